/** The billing categories (API reference, "Enums": monthly caps, null for no cap), in words. */
import type { paths } from '../../api/schema';

/** The caps a person sets (`PUT /users/@me/projects/:id/billing-limits`). */
export type Caps =
  paths['/users/@me/projects/{id}/billing-limits']['put']['requestBody']['content']['application/json'];

/** A billing category. */
export type Category = keyof Caps;

/** Words for each category; a category the API adds and this list lacks fails the type check. */
export const CATEGORY_WORDS = {
  transactional: 'Transactional email',
  campaigns: 'Campaign email',
  workflows: 'Workflow email',
  inbound: 'Inbound email',
} satisfies Record<Category, string>;

/** Whether `value` names a category. */
export function isCategory(value: string): value is Category {
  return Object.hasOwn(CATEGORY_WORDS, value);
}

/** The categories, in the order the API lists them. */
export const CATEGORIES: readonly Category[] = Object.keys(CATEGORY_WORDS).filter(isCategory);

/** A period's bounds in words, for example "1 March 2025 – 31 March 2025 (UTC)". */
export function periodWords(period: { start: string; end: string }): string {
  const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
  const lastDay = new Date(Date.parse(period.end) - 1);
  return `${format.format(new Date(period.start))} – ${format.format(lastDay)} (UTC)`;
}
