/**
 * The HTML of a captured message made safe to preview in a sandboxed frame: inline images
 * (`cid:` references) become data URLs; remote images are left out unless asked for (an
 * open-tracking pixel would otherwise record an open each time someone previews the message);
 * and a Content-Security-Policy keeps the frame from fetching anything else.
 */
import type { Attachment } from 'postal-mime';

/** Attributes through which HTML loads an image or another resource. */
const RESOURCE_ATTRIBUTES = ['src', 'srcset', 'background', 'poster'] as const;

/** The policy of the preview: no scripts, no requests; images only inline (or also remote). */
function policy(remoteImages: boolean): string {
  const images = remoteImages ? 'data: https: http:' : 'data:';
  return `default-src 'none'; img-src ${images}; style-src 'unsafe-inline'; font-src data:`;
}

/** The data URL of an attachment parsed with `attachmentEncoding: 'base64'`, if it is one. */
function dataUrl(attachment: Attachment): string | undefined {
  if (typeof attachment.content !== 'string' || attachment.encoding !== 'base64') return undefined;
  return `data:${attachment.mimeType};base64,${attachment.content}`;
}

/** `text` with its percent escapes decoded (as it is when they are malformed). */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `html` with its `cid:` references to inline attachments replaced by their data URLs. */
export function inlineImages(html: string, attachments: readonly Attachment[]): string {
  const byId = new Map<string, string>();
  for (const attachment of attachments) {
    const url = dataUrl(attachment);
    if (attachment.contentId === undefined || url === undefined) continue;
    byId.set(attachment.contentId.replace(/^<|>$/g, '').toLowerCase(), url);
  }
  if (byId.size === 0) return html;
  return html.replace(/cid:([^"'\s)>]+)/gi, (reference, id: string) => {
    return byId.get(decoded(id).toLowerCase()) ?? reference;
  });
}

/**
 * Removes from `document` every reference to a resource that is not inline (not a data URL):
 * image sources and external style sheets. A removed source is kept as `data-blocked-<name>`.
 */
function removeRemoteResources(document: Document): number {
  let removed = 0;
  const selector = RESOURCE_ATTRIBUTES.map((name) => `[${name}]`).join(',');
  for (const element of document.querySelectorAll(selector)) {
    for (const name of RESOURCE_ATTRIBUTES) {
      const value = element.getAttribute(name);
      if (value === null || value.trim().toLowerCase().startsWith('data:')) continue;
      element.removeAttribute(name);
      element.setAttribute(`data-blocked-${name}`, value);
      removed += 1;
    }
  }
  for (const link of document.querySelectorAll('link[href]')) {
    link.remove();
    removed += 1;
  }
  return removed;
}

/** A preview of a message: its document, and how many remote resources were left out. */
export interface Preview {
  document: string;
  blocked: number;
}

/**
 * The document shown in the preview frame: the message's HTML with its inline images, without
 * its remote resources unless `remoteImages`, under a policy that allows nothing else. The HTML
 * is parsed into an inert document (nothing runs or loads) and written back.
 */
export function previewDocument(
  html: string,
  attachments: readonly Attachment[],
  remoteImages: boolean,
): Preview {
  const parsed = new DOMParser().parseFromString(inlineImages(html, attachments), 'text/html');
  const blocked = remoteImages ? 0 : removeRemoteResources(parsed);
  const meta = parsed.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = policy(remoteImages);
  parsed.head.prepend(meta);
  const doctype = parsed.doctype === null ? '' : `<!DOCTYPE ${parsed.doctype.name}>`;
  return { document: `${doctype}${parsed.documentElement.outerHTML}`, blocked };
}
