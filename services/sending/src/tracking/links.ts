/**
 * Open and click tracking links (API reference, "Open and click tracking"): the open pixel
 * `{publicUrl}/t/o/<token>` and click links `{publicUrl}/t/c/<token>`, whose tokens are signed
 * (HMAC-SHA256, see `Secrets.sign`) over the email id, and for a click also the link's URL, so the
 * click endpoint redirects only to URLs that were in that email.
 */
import type { TrackingMode } from '@stamp/contracts';
import type { Secrets } from '@stamp/platform';
import { Parser } from 'htmlparser2';

/** Where tracking links point and what signs them. */
export interface TrackingLinks {
  /** Public base URL of the API (no trailing slash needed). */
  publicUrl: string;
  secrets: Secrets;
}

const OPEN_PURPOSE = 'track-open';
const CLICK_PURPOSE = 'track-click';
/** Paths under the public URL whose links are never rewritten: subscription and tracking. */
const UNTRACKED_PATHS = ['/unsubscribe/', '/subscribe/', '/manage/', '/t/'];

const baseOf = (publicUrl: string): string => publicUrl.replace(/\/+$/, '');

/** Whether an email is tracked under `mode` (`marketing`: a campaign or MARKETING template). */
export function isTracked(mode: TrackingMode, marketing: boolean): boolean {
  return mode === 'ENABLED' || (mode === 'MARKETING_ONLY' && marketing);
}

/** The open pixel's URL for `emailId`. */
export function openUrl(links: TrackingLinks, emailId: string): string {
  return `${baseOf(links.publicUrl)}/t/o/${links.secrets.sign(OPEN_PURPOSE, emailId)}`;
}

/** The tracked URL of link `url` in email `emailId`. */
export function clickUrl(links: TrackingLinks, emailId: string, url: string): string {
  const token = links.secrets.sign(CLICK_PURPOSE, JSON.stringify([emailId, url]));
  return `${baseOf(links.publicUrl)}/t/c/${token}`;
}

/** The email id of an open token; null when it is malformed or forged. */
export function readOpenToken(secrets: Secrets, token: string): string | null {
  const emailId = secrets.verify(OPEN_PURPOSE, token);
  return emailId === null || emailId === '' ? null : emailId;
}

/** The email id and URL of a click token; null when it is malformed, forged or not http(s). */
export function readClickToken(
  secrets: Secrets,
  token: string,
): { emailId: string; url: string } | null {
  const payload = secrets.verify(CLICK_PURPOSE, token);
  if (payload === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return null;
  const [emailId, url] = parsed as unknown[];
  if (typeof emailId !== 'string' || typeof url !== 'string' || !isWebUrl(url)) return null;
  return { emailId, url };
}

/** Whether `url` is an absolute http(s) URL. */
function isWebUrl(url: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(url) && URL.canParse(url);
}

const escapeAttribute = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** A start tag written back from its parsed name and attributes. */
function startTag(name: string, attributes: Record<string, string>): string {
  const parts = Object.entries(attributes).map(
    ([attribute, value]) => ` ${attribute}="${escapeAttribute(value)}"`,
  );
  return `<${name}${parts.join('')}>`;
}

/**
 * `html` with tracking: every `<a href>` to an http(s) URL points at the click endpoint (the
 * subscription links and links already under `/t/` of the public URL excepted), and the open
 * pixel (a 1×1 image) is inserted before `</body>`, or appended when there is none. Only the
 * rewritten `<a>` start tags change (written back with double-quoted attributes); the rest of the
 * document is kept byte for byte. Parsing is htmlparser2's, forgiving of malformed markup.
 */
export function instrumentHtml(html: string, emailId: string, links: TrackingLinks): string {
  const base = baseOf(links.publicUrl);
  const keep = (url: string): boolean =>
    UNTRACKED_PATHS.some((path) => url.startsWith(`${base}${path}`));
  const edits: { start: number; end: number; text: string }[] = [];
  let bodyEnd = -1;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name !== 'a' || attributes.href === undefined) return;
        const url = attributes.href.trim();
        if (!isWebUrl(url) || keep(url)) return;
        edits.push({
          start: parser.startIndex,
          end: parser.endIndex + 1,
          text: startTag(name, { ...attributes, href: clickUrl(links, emailId, url) }),
        });
      },
      onclosetag(name, implied) {
        if (name === 'body' && !implied && bodyEnd === -1) bodyEnd = parser.startIndex;
      },
    },
    { decodeEntities: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  const pixel =
    `<img src="${escapeAttribute(openUrl(links, emailId))}" width="1" height="1" alt="" ` +
    'style="display:block;width:1px;height:1px;border:0" />';
  edits.push({ start: bodyEnd === -1 ? html.length : bodyEnd, end: -1, text: pixel });
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const edit of edits) {
    out += html.slice(at, edit.start) + edit.text;
    at = edit.end === -1 ? edit.start : edit.end;
  }
  return out + html.slice(at);
}
