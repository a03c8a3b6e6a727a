/**
 * Liquid templating (liquidjs) as every service uses it: one configuration (no file access, own
 * properties only, strict filters, bounded parse and render time and memory, `include`,
 * `render` and `layout` refused), Plunk's `{{ name ?? fallback }}` syntax, parsed templates
 * cached by content, and syntax errors with their line (API reference, "Templates and links").
 */
import { createHash } from 'node:crypto';

import type { Template } from 'liquidjs';

import { liquidEngine, liquidErrorParts, rewriteFallbacks } from './engine.ts';

export { MAX_SOURCE_CHARACTERS, rewriteFallbacks } from './engine.ts';

/** A parsed template, as {@link parseTemplate} answers and {@link renderTemplate} takes it. */
export type ParsedTemplate = Template[];

/** Where a template text is used: an HTML body (output escaped) or a subject line (plain). */
export type TemplateKind = 'html' | 'text';

/** Parsed templates kept, at most this many sources … */
const MAX_CACHE = 2000;
/** … totalling at most this many characters; a larger source is parsed at each use. */
const MAX_CACHE_CHARACTERS = 32 * 1024 * 1024;
/** Sources above this many characters are not cached. */
const MAX_CACHED_SOURCE = 1024 * 1024;
const cache = new Map<string, Template[]>();
let cachedCharacters = 0;

/**
 * Thrown when a template text is not valid Liquid (or uses a refused tag). `message` is the
 * engine's text; `reason` is that text without its position; `line` is the 1-based line of the
 * source where the error was found, or null when the engine gives none.
 */
export class TemplateSyntaxError extends Error {
  readonly reason: string;
  readonly line: number | null;
  constructor(message: string, line: number | null = null, reason: string = message) {
    super(message);
    this.name = 'TemplateSyntaxError';
    this.line = line;
    this.reason = reason;
  }
}

/** Wraps an error of the Liquid engine, keeping the line it names. */
function syntaxErrorOf(error: unknown): TemplateSyntaxError {
  const { message, line, reason } = liquidErrorParts(error);
  return new TemplateSyntaxError(message, line, reason);
}

/**
 * The text of a syntax error for API clients: `Liquid syntax error on line 3: <reason>`, or
 * `Liquid syntax error: <reason>` when the line is unknown.
 */
export function describeSyntaxError(error: TemplateSyntaxError): string {
  const where = error.line === null ? '' : ` on line ${String(error.line)}`;
  return `Liquid syntax error${where}: ${error.reason}`;
}

/**
 * Parses `source` (after {@link rewriteFallbacks}) for `kind`, cached by content hash (sources up
 * to 1 MiB characters, 32 Mi characters in all).
 * @throws TemplateSyntaxError on invalid Liquid or a refused tag.
 */
export function parseTemplate(source: string, kind: TemplateKind): Template[] {
  const key = createHash('sha256').update(kind).update('\0').update(source).digest('base64');
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const engine = liquidEngine(kind);
  let parsed: Template[];
  try {
    parsed = engine.parse(rewriteFallbacks(source));
  } catch (error) {
    throw syntaxErrorOf(error);
  }
  if (source.length > MAX_CACHED_SOURCE) return parsed;
  if (cache.size >= MAX_CACHE || cachedCharacters + source.length > MAX_CACHE_CHARACTERS) {
    cache.clear();
    cachedCharacters = 0;
  }
  cache.set(key, parsed);
  cachedCharacters += source.length;
  return parsed;
}

/**
 * Renders `source` with `scope`; HTML output escaping applies for `kind` `html`.
 * @throws TemplateSyntaxError on invalid Liquid; render errors (for example an unknown filter)
 * also surface as TemplateSyntaxError.
 */
export async function renderTemplate(
  source: string | Template[],
  kind: TemplateKind,
  scope: Record<string, unknown>,
): Promise<string> {
  const parsed = typeof source === 'string' ? parseTemplate(source, kind) : source;
  const engine = liquidEngine(kind);
  try {
    return String(await engine.render(parsed, scope));
  } catch (error) {
    throw syntaxErrorOf(error);
  }
}
