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
 * Changes of the field counters summed over the events of a batch: {@link add} the data before
 * and after each applied contact event, then {@link write} once (one upsert per field document
 * whose counters moved, instead of one per contact).
 */
export class FieldCounts {
  private readonly sums = new Map<
    string,
    { projectId: string; field: string; increments: Record<string, number> }
  >();

  /**
   * Adds the moves of every field whose presence or type differs between `before` and `after`
   * (null = no contact). Add only events whose own guarded write was applied, so a replayed
   * event (which that guard skips) never counts twice.
   */
  add(projectId: string, before: ContactData | null, after: ContactData | null): void {
    // Keys are data: a key absent from a contact's own data is absent, whatever its name (never
    // a property inherited by plain objects, such as `constructor` or `toString`).
    const own = (data: ContactData | null, field: string): ContactValue | undefined =>
      data !== null && Object.hasOwn(data, field) ? data[field] : undefined;
    const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
    for (const field of keys) {
      const previous = own(before, field);
      const next = own(after, field);
      const was = previous === undefined ? undefined : inferType(previous);
      const is = next === undefined ? undefined : inferType(next);
      if (was === is) continue;
      const id = contactFieldId(projectId, field);
      let sum = this.sums.get(id);
      if (sum === undefined) {
        sum = { projectId, field, increments: {} };
        this.sums.set(id, sum);
      }
      const { increments } = sum;
      if (was !== undefined) increments[`types.${was}`] = (increments[`types.${was}`] ?? 0) - 1;
      if (is !== undefined) increments[`types.${is}`] = (increments[`types.${is}`] ?? 0) + 1;
      const count = (is === undefined ? 0 : 1) - (was === undefined ? 0 : 1);
      if (count !== 0) increments.count = (increments.count ?? 0) + count;
    }
  }

  /** Writes the summed moves to the `contactFields` view. */
  async write(views: ViewStore): Promise<void> {
    const fields = contactFieldsView(views);
    // Moves that sum to zero are written too: the document is the same as after the events
    // one at a time, whatever the batches.
    for (const [id, { projectId, field, increments }] of this.sums) {
      await fields.updateOne(
        { _id: id },
        { $inc: increments, $setOnInsert: { projectId, field } },
        { upsert: true },
      );
    }
    this.sums.clear();
  }
}
