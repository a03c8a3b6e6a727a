/** Rules of tracked events (API reference, "POST /v1/track"). */
import type { ContactDataInput, ContactValue } from '@stamp/contracts';
import { validationError } from '@stamp/http-kit';

const RESERVED_EVENT_NAMES: readonly RegExp[] = [
  /^email\./,
  /^contact\.subscribed$/,
  /^contact\.unsubscribed$/,
  /^segment\..+\.entry$/s,
  /^segment\..+\.exit$/s,
];

/**
 * The form of an event name compared with the reserved names: Unicode compatibility-normalised
 * (NFKC, so full-width letters count as their ASCII forms), trimmed and lowercased.
 */
export function comparableEventName(name: string): string {
  return name.normalize('NFKC').trim().toLowerCase();
}

/**
 * Whether an event name is reserved for system events: `email.*`, `contact.subscribed`,
 * `contact.unsubscribed`, `segment.*.entry`, `segment.*.exit`, compared after
 * {@link comparableEventName} (so `EMAIL.SENT` and ` email.sent` are reserved too).
 */
export function isReservedEventName(name: string): boolean {
  const comparable = comparableEventName(name);
  return RESERVED_EVENT_NAMES.some((pattern) => pattern.test(comparable));
}

/**
 * Checks a tracked event's name.
 * @throws ApiError 422 VALIDATION_ERROR (field `event`, code `reserved_event`) for a reserved name.
 */
export function assertTrackableName(name: string): void {
  if (isReservedEventName(name)) {
    throw validationError([
      {
        field: 'event',
        message: `"${name}" is a reserved system event name`,
        code: 'reserved_event',
        received: name,
      },
    ]);
  }
}

/**
 * The data kept on a tracked event: the request's primitive values (`{value}` objects unwrapped;
 * null and absent values left out).
 */
export function eventData(
  input: Record<string, ContactDataInput | undefined> | undefined,
): Record<string, ContactValue> {
  const data: Record<string, ContactValue> = {};
  for (const [key, value] of Object.entries(input ?? {})) {
    if (value === undefined || value === null || key === '__proto__') continue;
    data[key] = typeof value === 'object' ? value.value : value;
  }
  return data;
}
