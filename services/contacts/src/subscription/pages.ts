/**
 * The small self-contained HTML pages of the subscription links (no external assets, no
 * scripts). Every value is escaped. Forms post to a relative URL, so the pages work behind a
 * reverse proxy that serves the API under a path prefix.
 */

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A button posting to a subscription route of the same token. */
interface PageAction {
  route: 'unsubscribe' | 'subscribe';
  label: string;
}

/** What a page shows: a heading, an optional paragraph and an optional button. */
export interface PageContent {
  title: string;
  message?: string;
  action?: PageAction;
}

const STYLE =
  'body{font-family:system-ui,sans-serif;background:#f6f6f6;color:#222;margin:0}' +
  'main{max-width:28rem;margin:10vh auto;background:#fff;padding:2rem;border-radius:8px;' +
  'box-shadow:0 1px 3px rgba(0,0,0,.1)}h1{font-size:1.3rem;margin:0 0 1rem;word-break:break-word}' +
  'p{line-height:1.5}button{font:inherit;padding:.6rem 1.2rem;border:0;border-radius:6px;' +
  'background:#222;color:#fff;cursor:pointer}';

/**
 * A complete HTML page. `token` is the token of the current URL; a button posts to
 * `../<route>/<token>` (relative to `/<page>/<token>`).
 */
export function renderPage(content: PageContent, token: string): string {
  const action =
    content.action === undefined
      ? ''
      : `<form method="post" action="../${content.action.route}/${escapeHtml(encodeURIComponent(token))}">` +
        `<button type="submit">${escapeHtml(content.action.label)}</button></form>`;
  const message = content.message === undefined ? '' : `<p>${escapeHtml(content.message)}</p>`;
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="robots" content="noindex">' +
    `<title>${escapeHtml(content.title)}</title><style>${STYLE}</style></head>` +
    `<body><main><h1>${escapeHtml(content.title)}</h1>${message}${action}</main></body></html>`
  );
}

/** Page of GET /unsubscribe/:token. */
export const unsubscribeQuestion = (email: string): PageContent => ({
  title: `Unsubscribe ${email}?`,
  message: 'You will no longer receive marketing emails at this address.',
  action: { route: 'unsubscribe', label: 'Unsubscribe' },
});

/** Page of GET /subscribe/:token. */
export const subscribeQuestion = (email: string): PageContent => ({
  title: `Subscribe ${email}?`,
  message: 'You will receive marketing emails at this address again.',
  action: { route: 'subscribe', label: 'Subscribe' },
});

/** Page of GET /manage/:token and of the POST confirmations: the state and the other button. */
export const subscriptionState = (email: string, subscribed: boolean): PageContent =>
  subscribed
    ? {
        title: `${email} is subscribed`,
        message: 'You receive marketing emails at this address.',
        action: { route: 'unsubscribe', label: 'Unsubscribe' },
      }
    : {
        title: `${email} is unsubscribed`,
        message: 'You no longer receive marketing emails at this address.',
        action: { route: 'subscribe', label: 'Subscribe again' },
      };

/** Page of an invalid or forged link, or of a deleted contact. */
export const notFoundPage: PageContent = {
  title: 'Link not found',
  message: 'This link is invalid or no longer works.',
};
