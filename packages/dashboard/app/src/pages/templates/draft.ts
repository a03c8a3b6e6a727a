/** A template as its editor holds it, and the bodies of the API calls that save it. */
import { ApiError, type Schema } from '../../api/client';
import { fieldError } from '../../components/ErrorAlert';
import type { TemplateType } from './TemplateTypeBadge';

/** The editable fields of a template; optional ones are empty strings when unset. */
export interface TemplateDraft {
  name: string;
  type: TemplateType;
  from: string;
  fromName: string;
  replyTo: string;
  subject: string;
  body: string;
}

/** The draft of a new template. */
export const EMPTY_DRAFT: TemplateDraft = {
  name: '',
  type: 'MARKETING',
  from: '',
  fromName: '',
  replyTo: '',
  subject: '',
  body: '',
};

/** The draft of a saved template. */
export function draftOf(template: Schema<'Template'>): TemplateDraft {
  return {
    name: template.name,
    type: template.type,
    from: template.from ?? '',
    fromName: template.fromName ?? '',
    replyTo: template.replyTo ?? '',
    subject: template.subject,
    body: template.body,
  };
}

const DRAFT_FIELDS: readonly (keyof TemplateDraft)[] = [
  'name',
  'type',
  'from',
  'fromName',
  'replyTo',
  'subject',
  'body',
];

/** Whether two drafts hold the same values. */
export function sameDraft(a: TemplateDraft, b: TemplateDraft): boolean {
  return DRAFT_FIELDS.every((key) => a[key] === b[key]);
}

/** The body of `POST /templates`: the optional fields only when filled in. */
export function createBodyOf(draft: TemplateDraft) {
  const optional = (value: string) => (value.trim() === '' ? undefined : value.trim());
  const from = optional(draft.from);
  const fromName = optional(draft.fromName);
  const replyTo = optional(draft.replyTo);
  return {
    name: draft.name,
    type: draft.type,
    subject: draft.subject,
    body: draft.body,
    ...(from === undefined ? {} : { from }),
    ...(fromName === undefined ? {} : { fromName }),
    ...(replyTo === undefined ? {} : { replyTo }),
  };
}

/** The body of `PATCH /templates/:id`: every field, the empty optional ones cleared (null). */
export function patchBodyOf(draft: TemplateDraft) {
  const nullable = (value: string) => (value.trim() === '' ? null : value.trim());
  return {
    name: draft.name,
    type: draft.type,
    subject: draft.subject,
    body: draft.body,
    from: nullable(draft.from),
    fromName: nullable(draft.fromName),
    replyTo: nullable(draft.replyTo),
  };
}

/**
 * The message for the sender address in an API error: its field error, or the refusal of an
 * address outside the project's verified domains (403 DOMAIN_NOT_VERIFIED, which names no field).
 */
export function senderError(error: unknown, field = 'from'): string | undefined {
  if (error instanceof ApiError && error.code === 'DOMAIN_NOT_VERIFIED') return error.message;
  return fieldError(error, field);
}
