/** A request path compared case-insensitively and without a trailing slash (`/V1/Send/` → `/v1/send`). */
export function normalisePath(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

/** `text` as a regular expression that matches it literally (for `$regex` search filters). */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
