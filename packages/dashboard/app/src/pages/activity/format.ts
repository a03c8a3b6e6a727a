/** Dates and times as people read them, in the browser's language and time zone. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const date = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** A timestamp of the API (ISO 8601) as a date and time, for example "3 Mar 2026, 14:05". */
export function formatDateTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : dateTime.format(at);
}

/** A timestamp of the API (ISO 8601) as a date, for example "3 Mar 2026". */
export function formatDate(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : date.format(at);
}
