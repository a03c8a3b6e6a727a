/**
 * Whether an open or a click looks automated rather than a person's (issue "Opens and clicks";
 * API reference, "Open and click tracking"). Automated requests are recorded and counted apart:
 * they are not engagement. Pure.
 */
import type { AutomatedReason } from '@stamp/contracts';
import { isbot } from 'isbot';

/** A click this soon after delivery, in ms, is a link scanner's (they follow links on arrival). */
export const SCANNER_WINDOW_MS = 10_000;

/** Two different links of one email followed within this many ms: a scanner following each. */
export const LINK_BURST_MS = 2_000;

/** The request of an open or a click. */
export interface TrackingRequest {
  method: string;
  /** The User-Agent header, when one was sent. */
  userAgent?: string;
}

/**
 * Apple Mail Privacy Protection fetches every remote image at delivery through a proxy whose
 * user agent is exactly `Mozilla/5.0`; a browser's always says more.
 */
const PRIVACY_PROXY_AGENTS = new Set(['Mozilla/5.0']);

/** Why a request of either kind looks automated, or null. */
function requestReason(request: TrackingRequest): AutomatedReason | null {
  if (request.method === 'HEAD') return 'head-request';
  const agent = request.userAgent?.trim() ?? '';
  if (PRIVACY_PROXY_AGENTS.has(agent)) return 'privacy-proxy';
  // No user agent, or a crawler's, scanner's or HTTP library's (isbot's list).
  if (agent === '' || isbot(agent)) return 'bot-user-agent';
  return null;
}

/** Why an open looks automated, or null for a person's. */
export function openAutomation(request: TrackingRequest): AutomatedReason | null {
  return requestReason(request);
}

/**
 * Why a click looks automated, or null for a person's: the request itself, a click within
 * {@link SCANNER_WINDOW_MS} of delivery (`sentAt`, ms since the epoch; null when the delivery is
 * not recorded yet, so the click came with it), or another link of the email followed less than
 * {@link LINK_BURST_MS} before.
 */
export function clickAutomation(
  request: TrackingRequest,
  click: { url: string; at: number; sentAt: number | null },
  earlier: readonly { url: string; at: number }[],
): AutomatedReason | null {
  const reason = requestReason(request);
  if (reason !== null) return reason;
  if (click.sentAt === null || click.at - click.sentAt < SCANNER_WINDOW_MS) {
    return 'soon-after-delivery';
  }
  const burst = earlier.some(
    (previous) => previous.url !== click.url && Math.abs(click.at - previous.at) < LINK_BURST_MS,
  );
  return burst ? 'link-burst' : null;
}
