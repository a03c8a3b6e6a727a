/**
 * Contact data rules (spec part 2, "Rules for writing contact data"; API reference,
 * "Brand-prefixed reserved keys"), as pure functions.
 */
import type { ContactDataInput, ContactValue } from '@stamp/contracts';
import { type FieldError, validationError } from '@stamp/http-kit';
import { z } from 'zod';

/** Reserved contact-data keys, silently dropped from writes. */
export const RESERVED_DATA_KEYS: ReadonlySet<string> = new Set([
  'id',
  'email',
  'stamp_id',
  'stamp_email',
  'plunk_id',
  'plunk_email',
  'unsubscribeUrl',
  'subscribeUrl',
  'manageUrl',
]);

/** At most this many data keys on one contact. */
export const MAX_DATA_KEYS = 100;
/** At most this many characters in a data key name. */
export const MAX_KEY_LENGTH = 255;
/** At most this many characters in a string data value. */
export const MAX_VALUE_LENGTH = 2000;

/** Stored data of a contact: key to primitive value. */
export type ContactData = Record<string, ContactValue>;

/** A change of contact data: keys to set and keys to remove. */
export interface DataPatch {
  set: ContactData;
  unset: string[];
}

const primitive = z.union([z.string(), z.number(), z.boolean()]);

/**
 * zod schema of a `data` object in HTTP bodies: values are primitives, null, or
 * `{value, persistent?}`; any other nested object or array is refused (422).
 */
export const dataSchema = z.record(
  z.string(),
  z.union([
    primitive,
    z.null(),
    z.strictObject({ value: primitive, persistent: z.boolean().optional() }),
  ]),
);

/**
 * Turns raw request data into a patch by the rules of spec part 2: a primitive is set, null
 * removes the key, an empty string is ignored, reserved keys are dropped, `{value}` /
 * `{value, persistent: true}` set `value` and `{value, persistent: false}` is not stored.
 * @throws ApiError 422 VALIDATION_ERROR (field `data.<key>`) for a key longer than 255 characters
 *   or a string value longer than 2,000 characters.
 */
export function dataPatch(
  input: Record<string, ContactDataInput | undefined> | undefined,
): DataPatch {
  const patch: DataPatch = { set: {}, unset: [] };
  if (input === undefined) return patch;
  const errors: FieldError[] = [];
  for (const [key, raw] of Object.entries(input)) {
    if (raw === undefined) continue;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      errors.push({
        field: `data.${key}`,
        message: `Data keys must have 1 to ${MAX_KEY_LENGTH} characters`,
        code: 'too_big',
      });
      continue;
    }
    if (RESERVED_DATA_KEYS.has(key) || key === '__proto__') continue;
    if (raw === null) {
      patch.unset.push(key);
      continue;
    }
    let value: ContactValue;
    if (typeof raw === 'object') {
      if (raw.persistent === false) continue;
      value = raw.value;
    } else {
      value = raw;
    }
    if (value === '') continue;
    if (typeof value === 'string' && value.length > MAX_VALUE_LENGTH) {
      errors.push({
        field: `data.${key}`,
        message: `Data values may have at most ${MAX_VALUE_LENGTH} characters`,
        code: 'too_big',
      });
      continue;
    }
    if (typeof value === 'number' && !Number.isFinite(value)) continue;
    patch.set[key] = value;
  }
  if (errors.length > 0) throw validationError(errors);
  return patch;
}

/**
 * The part of `patch` that changes `current` (keys whose value differs, keys that exist to be
 * removed) and the resulting data.
 * @throws ApiError 422 VALIDATION_ERROR (field `data`) when the result has more than 100 keys.
 */
export function applyPatch(
  current: ContactData,
  patch: DataPatch,
): { changes: DataPatch; data: ContactData } {
  const changes: DataPatch = { set: {}, unset: [] };
  const data: ContactData = { ...current };
  for (const key of patch.unset) {
    if (Object.hasOwn(data, key) && !Object.hasOwn(patch.set, key)) {
      changes.unset.push(key);
      // eslint-disable-next-line @typescript-eslint/no-dynamic-delete
      delete data[key];
    }
  }
  for (const [key, value] of Object.entries(patch.set)) {
    if (!Object.hasOwn(data, key) || data[key] !== value) {
      changes.set[key] = value;
      data[key] = value;
    }
  }
  if (Object.keys(data).length > MAX_DATA_KEYS) {
    throw validationError([
      {
        field: 'data',
        message: `A contact may have at most ${MAX_DATA_KEYS} data keys`,
        code: 'too_big',
      },
    ]);
  }
  return { changes, data };
}

/** Whether a patch changes nothing. */
export function isEmptyPatch(patch: DataPatch): boolean {
  return patch.unset.length === 0 && Object.keys(patch.set).length === 0;
}
