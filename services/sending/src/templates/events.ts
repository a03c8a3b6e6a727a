/**
 * Template events (stream `template-<id>`) and the state folded from them (spec part 2
 * "Template", API reference "Templates and links").
 */

/** The template types (API reference, "Enums"). */
export const TEMPLATE_TYPES = ['TRANSACTIONAL', 'MARKETING'] as const;

/** Template type (API reference, "Enums"). */
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

/** The editable fields of a template. `from`, `fromName`, `replyTo` are optional. */
export interface TemplateFields {
  name: string;
  subject: string;
  /** HTML body (Liquid). */
  body: string;
  type: TemplateType;
  from?: string;
  fromName?: string;
  replyTo?: string;
}

/** A change of fields; `null` clears an optional field. */
export type TemplatePatch = {
  [K in keyof TemplateFields]?: K extends 'from' | 'fromName' | 'replyTo'
    ? TemplateFields[K] | null
    : TemplateFields[K];
};

/** Data of TemplateCreated. */
export interface TemplateCreatedData extends TemplateFields {
  templateId: string;
  /** ISO 8601. */
  createdAt: string;
}

/** The template events. */
export type TemplateEvent =
  | { type: 'TemplateCreated'; data: TemplateCreatedData }
  | {
      type: 'TemplateUpdated';
      data: { templateId: string; patch: TemplatePatch; updatedAt: string };
    }
  | { type: 'TemplateDeleted'; data: { templateId: string; deletedAt: string } };

/** State of one template stream; `null` before creation. */
export type TemplateState =
  null | (TemplateFields & { id: string; createdAt: string; updatedAt: string; deleted: boolean });

/** Applies a patch: `null` removes an optional field, `undefined` keeps it. */
export function applyPatch(fields: TemplateFields, patch: TemplatePatch): TemplateFields {
  const given = Object.entries(patch).filter(([, value]) => value !== undefined);
  const entries = Object.entries({ ...fields, ...Object.fromEntries(given) }).filter(
    ([, value]) => value !== null && value !== undefined,
  );
  return Object.fromEntries(entries) as unknown as TemplateFields;
}

/** Folds one event into the state. */
export function evolve(state: TemplateState, event: TemplateEvent): TemplateState {
  switch (event.type) {
    case 'TemplateCreated': {
      const { templateId, createdAt, ...fields } = event.data;
      return { ...fields, id: templateId, createdAt, updatedAt: createdAt, deleted: false };
    }
    case 'TemplateUpdated': {
      if (state === null) return state;
      const { id, createdAt, deleted } = state;
      return {
        ...applyPatch(state, event.data.patch),
        id,
        createdAt,
        updatedAt: event.data.updatedAt,
        deleted,
      };
    }
    case 'TemplateDeleted':
      return state === null ? state : { ...state, deleted: true, updatedAt: event.data.deletedAt };
  }
}
