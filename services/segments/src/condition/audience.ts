/**
 * The audience document: what the segments service keeps of each contact to test conditions
 * against (one document per contact of a view collection), and the encoding of the keys it
 * holds in field names.
 */
import type { ContactValue } from '@stamp/contracts';
import type { ViewDocument } from '@stamp/platform';

import type { EmailActivity } from './condition.ts';

/** First and last time (ISO 8601) and number of times a contact triggered one event. */
export interface EventSummary {
  first: string;
  last: string;
  count: number;
}

/**
 * The per-contact summary that conditions are compiled against (`_id` = contact id).
 * - `email`: the address, lowercase (as contacts stores it).
 * - `createdAt`, `updatedAt`: ISO 8601 UTC texts as `Date.prototype.toISOString` writes them
 *   (`YYYY-MM-DDTHH:mm:ss.sssZ`), as the contacts view stores them; compared as text.
 * - `data`: the contact's data, keys encoded with {@link encodePathKey}.
 * - `events`: per event name (encoded with {@link encodePathKey}) the first and last time (ISO
 *   8601 UTC, as above) and count of the contact's tracked events of that name.
 * - `emails`: per kind of email activity the time (ISO 8601 UTC) of the contact's last one.
 * - `segments`: ids of the static segments the contact is a member of and of the tracked dynamic
 *   segments it is currently in.
 */
export interface AudienceDocument extends ViewDocument {
  projectId: string;
  email: string;
  subscribed: boolean;
  createdAt: string;
  updatedAt: string;
  data: Record<string, ContactValue>;
  events: Record<string, EventSummary>;
  emails: Partial<Record<EmailActivity, { last: string }>>;
  segments: string[];
}

/** Characters {@link encodePathKey} escapes, and the `__proto__` key. */
const ESCAPED = /[%.$"\\\0]/g;
const PROTO = '__proto__';
const ENCODED_PROTO = '%5F_proto__';

/**
 * `key` (a contact data key or an event name) made safe as one part of a MongoDB field path:
 * `%`, `.`, `$`, `"`, `\` and NUL become `%` and two uppercase hex digits (`segment.vip.entry` is
 * `segment%2Evip%2Eentry`; `50%` is `50%25`), and the key `__proto__` becomes `%5F_proto__` so
 * that it never names an object's prototype. A `.` would split the path, a `$` start an operator;
 * `"` and `\` keep the embedded view store from reading the field in SQL (a `"` ends its JSON
 * path label, a `\` is not matched), NUL is refused by MongoDB. Other characters are kept.
 * Reversed by {@link decodePathKey}; distinct keys give distinct results.
 */
export function encodePathKey(key: string): string {
  if (key === PROTO) return ENCODED_PROTO;
  return key.replace(
    ESCAPED,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/**
 * The key that {@link encodePathKey} encoded as `encoded`: every `%` followed by two hex digits
 * becomes the character of that code.
 */
export function decodePathKey(encoded: string): string {
  return encoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/** Field path of the data key `key` in an audience document (`data.<encoded key>`). */
export const dataPath = (key: string): string => `data.${encodePathKey(key)}`;

/** Field path of the last time of the event `name` (`events.<encoded name>.last`). */
export const eventLastPath = (name: string): string => `events.${encodePathKey(name)}.last`;

/** Field path of the last time of an email activity (`emails.<kind>.last`). */
export const emailLastPath = (activity: EmailActivity): string => `emails.${activity}.last`;
