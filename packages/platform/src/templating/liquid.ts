/**
 * Liquid templating (liquidjs) as every service uses it: one configuration (no file access, own
 * properties only, strict filters, bounded parse and render time and memory, `include`,
 * `render` and `layout` refused), Plunk's `{{ name ?? fallback }}` syntax, parsed templates
 * cached by content, and syntax errors with their line (API reference, "Templates and links").
 */
import { createHash } from 'node:crypto';

import { Liquid, LiquidError, type Template } from 'liquidjs';

/**
 * Longest template source the engine parses, characters: the whole-message limit (spec part 8:
 * 40 MB), so every body a message can carry can be parsed; render time and memory stay bounded
 * by the engine's other limits.
 */
export const MAX_SOURCE_CHARACTERS = 40 * 1024 * 1024;

/** Tags that would load other templates; refused at parse time (API reference, "Templates and links"). */
const REFUSED_TAGS = ['include', 'render', 'layout'] as const;

function createEngine(escape: boolean): Liquid {
  const engine = new Liquid({
    ...(escape ? { outputEscape: 'escape' as const } : {}),
    strictFilters: true,
    // Variables are the scope's own keys: `{{ constructor }}` is a data key, never a property
    // every object inherits.
    ownPropertyOnly: true,
    relativeReference: false,
    dynamicPartials: false,
    // An empty in-memory mapping: nothing is ever resolved from disk.
    templates: {},
    cache: false,
    // Bounds that keep one template from stalling or exhausting the process: source length
    // (characters), render time (ms) and the memory its values and loops may take (liquidjs units).
    parseLimit: MAX_SOURCE_CHARACTERS,
    renderLimit: 1_000,
    memoryLimit: 50_000_000,
  });
  for (const tag of REFUSED_TAGS) {
    engine.registerTag(tag, {
      parse() {
        throw new Error(`the {% ${tag} %} tag is not allowed`);
      },
      render() {
        return '';
      },
    });
  }
  return engine;
}

const htmlEngine = createEngine(true);
const textEngine = createEngine(false);

/** A parsed template, as {@link parseTemplate} answers and {@link renderTemplate} takes it. */
export type ParsedTemplate = Template[];

/** Where a template text is used: an HTML body (output escaped) or a subject line (plain). */
export type TemplateKind = 'html' | 'text';

const FALLBACK = /\{\{-?\s*([^{}|?]+?)\s*\?\?\s*([^{}]*?)\s*-?\}\}/g;

/**
 * Rewrites Plunk's fallback syntax `{{ name ?? there }}` to Liquid's
 * `{{ name | default: "there" }}`; a quoted fallback keeps its quotes. Line breaks inside a
 * rewritten tag are kept (before its closing `}}`), so line numbers of errors stay those of the
 * source.
 */
export function rewriteFallbacks(source: string): string {
  return source.replace(FALLBACK, (match: string, variable: string, fallback: string) => {
    const quoted = /^(["']).*\1$/.test(fallback)
      ? fallback
      : fallback.includes('"')
        ? `'${fallback.replace(/'/g, '')}'`
        : `"${fallback}"`;
    const breaks = match.match(/\n/g)?.length ?? 0;
    return `{{ ${variable} | default: ${quoted} ${'\n'.repeat(breaks)}}}`;
  });
}

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

/** The position suffix liquidjs appends to its messages (`, line:3, col:6`). */
const POSITION_SUFFIX = /, (?:file:.*, )?line:\d+, col:\d+$/;

/** Wraps an error of the Liquid engine, keeping the line it names. */
function syntaxErrorOf(error: unknown): TemplateSyntaxError {
  const message = error instanceof Error ? error.message : String(error);
  if (!LiquidError.is(error)) return new TemplateSyntaxError(message);
  const [line] = error.token.getPosition();
  return new TemplateSyntaxError(
    message,
    line ?? null,
    (error.originalError?.message ?? message).replace(POSITION_SUFFIX, ''),
  );
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
  const engine = kind === 'html' ? htmlEngine : textEngine;
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
  const engine = kind === 'html' ? htmlEngine : textEngine;
  try {
    return String(await engine.render(parsed, scope));
  } catch (error) {
    throw syntaxErrorOf(error);
  }
}
