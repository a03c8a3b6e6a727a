/** Rules of tracked events (API reference, "POST /v1/track"). */
import type { ContactDataInput, ContactValue } from '@stamp/contracts';
import { validationError } from '@stamp/http-kit';

const RESERVED_EVENT_NAMES: readonly RegExp[] = [
  /^email\./,
  /^contact\.subscribed$/,
  /^contact\.unsubscribed$/,
  /^segment\..+\.entry$/,
  /^segment\..+\.exit$/,
];

/**
 * Whether an event name is reserved for system events: `email.*`, `contact.subscribed`,
 * `contact.unsubscribed`, `segment.*.entry`, `segment.*.exit`.
 */
export function isReservedEventName(name: string): boolean {
  return RESERVED_EVENT_NAMES.some((pattern) => pattern.test(name));
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
