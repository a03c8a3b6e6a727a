/** Type inference of contact fields (spec part 2: GET /contacts/fields lists inferred types). */
import type { ContactValue } from '@stamp/contracts';

/** Inferred type of a contact data value; `date` is a string holding an ISO 8601 date/time. */
export type FieldType = 'string' | 'number' | 'boolean' | 'date';

/** Every {@link FieldType}, in the order they are reported. */
export const FIELD_TYPES: readonly FieldType[] = ['string', 'number', 'boolean', 'date'];

const ISO_DATE =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** The inferred type of `value`: `date` for an ISO 8601 string that parses as a date. */
export function inferType(value: ContactValue): FieldType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return ISO_DATE.test(value) && !Number.isNaN(Date.parse(value)) ? 'date' : 'string';
}
