/**
 * The `contactFields` view: per project and custom field (contact data key), how many contacts
 * hold it and with which inferred types. Kept current by the contacts projection from each
 * contact's data before and after an event, so GET /contacts/fields never scans the contacts.
 */
import type { ContactValue } from '@stamp/contracts';
import type { ViewCollection, ViewDocument, ViewStore } from '@stamp/platform';

import type { ContactData } from '../contacts/data.ts';
import { type FieldType, inferType } from './infer.ts';

/** Name of the view. */
export const CONTACT_FIELDS_VIEW = 'contactFields';

/** A document of the `contactFields` view (`_id` = `<projectId>:<field>`). */
export interface ContactFieldView extends ViewDocument {
  projectId: string;
  field: string;
  /** Contacts holding the field. */
  count: number;
  /** Contacts holding it, by inferred type of the value. */
  types: Partial<Record<FieldType, number>>;
}

/** The view collection. */
export const contactFieldsView = (views: ViewStore): ViewCollection<ContactFieldView> =>
  views.collection<ContactFieldView>(CONTACT_FIELDS_VIEW);

/** Id of the view document of `field` in `projectId`. */
export const contactFieldId = (projectId: string, field: string): string => `${projectId}:${field}`;

/** Creates the view's index ({projectId}). */
export async function createContactFieldIndexes(views: ViewStore): Promise<void> {
  await contactFieldsView(views).createIndex({ projectId: 1 });
}

/**
 * Moves the counters of every field whose presence or type differs between `before` and
 * `after` (null = no contact). Call once per applied contact event, after the contact's own
 * guarded write, so a replayed event (which that guard skips) never counts twice.
 */
export async function recordFieldChanges(
  views: ViewStore,
  projectId: string,
  before: ContactData | null,
  after: ContactData | null,
): Promise<void> {
  const fields = contactFieldsView(views);
  // Keys are data: a key absent from a contact's own data is absent, whatever its name (never a
  // property inherited by plain objects, such as `constructor` or `toString`).
  const own = (data: ContactData | null, field: string): ContactValue | undefined =>
    data !== null && Object.hasOwn(data, field) ? data[field] : undefined;
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const field of keys) {
    const previous = own(before, field);
    const next = own(after, field);
    const was = previous === undefined ? undefined : inferType(previous);
    const is = next === undefined ? undefined : inferType(next);
    if (was === is) continue;
    const increments: Record<string, number> = {};
    if (was !== undefined) increments[`types.${was}`] = -1;
    if (is !== undefined) increments[`types.${is}`] = 1;
    const count = (is === undefined ? 0 : 1) - (was === undefined ? 0 : 1);
    if (count !== 0) increments.count = count;
    await fields.updateOne(
      { _id: contactFieldId(projectId, field) },
      { $inc: increments, $setOnInsert: { projectId, field } },
      { upsert: true },
    );
  }
}
