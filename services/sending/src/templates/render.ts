import { createHash } from 'node:crypto';

import { Liquid, type Template } from 'liquidjs';

/** Tags that would load other templates; refused at parse time (API reference, "Templates and links"). */
const REFUSED_TAGS = ['include', 'render', 'layout'] as const;

function createEngine(escape: boolean): Liquid {
  const engine = new Liquid({
    ...(escape ? { outputEscape: 'escape' as const } : {}),
    strictFilters: true,
    relativeReference: false,
    dynamicPartials: false,
    // An empty in-memory mapping: nothing is ever resolved from disk.
    templates: {},
    cache: false,
    // Bounds that keep one template from stalling or exhausting the process: source length
    // (characters), render time (ms) and the memory its values and loops may take (liquidjs units).
    parseLimit: 1_000_000,
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

/** Where a template text is used: an HTML body (output escaped) or a subject line (plain). */
export type TemplateKind = 'html' | 'text';

const FALLBACK = /\{\{-?\s*([^{}|?]+?)\s*\?\?\s*([^{}]*?)\s*-?\}\}/g;

/**
 * Rewrites Plunk's fallback syntax `{{ name ?? there }}` to Liquid's
 * `{{ name | default: "there" }}`; a quoted fallback keeps its quotes.
 */
export function rewriteFallbacks(source: string): string {
  return source.replace(FALLBACK, (_match, variable: string, fallback: string) => {
    const quoted = /^(["']).*\1$/.test(fallback)
      ? fallback
      : fallback.includes('"')
        ? `'${fallback.replace(/'/g, '')}'`
        : `"${fallback}"`;
    return `{{ ${variable} | default: ${quoted} }}`;
  });
}

const MAX_CACHE = 2000;
const cache = new Map<string, Template[]>();

/** Thrown when a template text is not valid Liquid (or uses a refused tag). */
export class TemplateSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateSyntaxError';
  }
}

/**
 * Parses `source` (after {@link rewriteFallbacks}) for `kind`, cached by content hash.
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
    throw new TemplateSyntaxError(error instanceof Error ? error.message : String(error));
  }
  if (cache.size >= MAX_CACHE) cache.clear();
  cache.set(key, parsed);
  return parsed;
}

/** The variables a template sees (API reference, "Templates and links"). */
export interface RenderContact {
  id: string;
  email: string;
  subscribed: boolean;
  /** Stored contact data merged with this send's non-persistent values. */
  data: Record<string, unknown>;
}

/** The three subscription links of a recipient (API reference, "Templates and links"). */
export interface SubscriptionLinks {
  unsubscribeUrl: string;
  subscribeUrl: string;
  manageUrl: string;
}

/**
 * The subscription links for a token: `{publicUrl}/unsubscribe/<token>`, `/subscribe/<token>`,
 * `/manage/<token>` (trailing slashes of `publicUrl` dropped; the token URL-encoded). The token
 * is `secrets.sign('subscription', '<projectId>:<contactId>')`, verified by the contacts
 * service's public subscription routes.
 */
export function subscriptionLinks(publicUrl: string, token: string): SubscriptionLinks {
  const base = publicUrl.replace(/\/+$/, '');
  const encoded = encodeURIComponent(token);
  return {
    unsubscribeUrl: `${base}/unsubscribe/${encoded}`,
    subscribeUrl: `${base}/subscribe/${encoded}`,
    manageUrl: `${base}/manage/${encoded}`,
  };
}

/**
 * Builds the Liquid scope: the contact's data keys at top level and under `data`, plus `id,
 * email, subscribed, unsubscribeUrl, subscribeUrl, manageUrl, stamp_id, stamp_email, plunk_id,
 * plunk_email` (these win over data keys of the same name). URLs are {@link subscriptionLinks}
 * of `token`, the recipient's signed subscription token (`subscriptionToken` of
 * @stamp/contracts).
 */
export function templateScope(
  contact: RenderContact,
  publicUrl: string,
  token: string,
): Record<string, unknown> {
  return {
    ...contact.data,
    data: contact.data,
    id: contact.id,
    email: contact.email,
    subscribed: contact.subscribed,
    ...subscriptionLinks(publicUrl, token),
    stamp_id: contact.id,
    stamp_email: contact.email,
    plunk_id: contact.id,
    plunk_email: contact.email,
  };
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
    throw new TemplateSyntaxError(error instanceof Error ? error.message : String(error));
  }
}
