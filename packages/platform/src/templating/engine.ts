/**
 * The Liquid engine (liquidjs) as Stamp configures it, free of Node's modules so that the
 * dashboard's previews render exactly as the platform sends (API reference, "Templates and
 * links"): no file access, own properties only, strict filters, bounded parse and render time and
 * memory, `include`, `render` and `layout` refused, and Plunk's `{{ name ?? fallback }}` syntax.
 */
import { Liquid, LiquidError } from 'liquidjs';

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

/** The engine of `kind`: `html` escapes output (an email body), `text` does not (a subject). */
export function liquidEngine(kind: 'html' | 'text'): Liquid {
  return kind === 'html' ? htmlEngine : textEngine;
}

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

/** The position suffix liquidjs appends to its messages (`, line:3, col:6`). */
const POSITION_SUFFIX = /, (?:file:.*, )?line:\d+, col:\d+$/;

/**
 * An error of the engine in parts: its `message`, the 1-based `line` of the source it names (null
 * when none), and its `reason` (the message without its position).
 */
export function liquidErrorParts(error: unknown): {
  message: string;
  line: number | null;
  reason: string;
} {
  const message = error instanceof Error ? error.message : String(error);
  if (!LiquidError.is(error)) return { message, line: null, reason: message };
  const [line] = error.token.getPosition();
  return {
    message,
    line: line ?? null,
    reason: (error.originalError?.message ?? message).replace(POSITION_SUFFIX, ''),
  };
}
