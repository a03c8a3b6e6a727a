/**
 * Which service answers which public paths: the gateway forwards a request to the service owning
 * the first path segment(s) listed here (distributed mode); in embedded mode the same services'
 * routers are mounted in-process in this order.
 */

/** The services that own public routes, in the gateway's mounting order. */
export const ROUTED_SERVICES = [
  'accounts',
  'contacts',
  'domains',
  'sending',
  'activity',
  'segments',
  'campaigns',
  'workflows',
] as const;

/** A service that owns public routes. */
export type RoutedService = (typeof ROUTED_SERVICES)[number];

/** Path prefixes of each service's authenticated routes (spec parts 1–6). */
export const SERVICE_ROUTES: Readonly<Record<RoutedService, readonly string[]>> = {
  accounts: ['/users', '/projects'],
  contacts: ['/contacts', '/events', '/v1/track', '/v1/verify'],
  domains: ['/domains'],
  sending: [
    '/emails',
    '/outbox',
    '/templates',
    '/v1/send',
    '/suppressions',
    '/inbound',
    '/uploads',
  ],
  activity: ['/activity', '/analytics', '/webhook-endpoints'],
  segments: ['/segments'],
  campaigns: ['/campaigns'],
  workflows: ['/workflows'],
};

/**
 * Path prefixes answered without an API key (signed links in emails, sign-up and login, uploaded
 * images, the payment provider's notifications).
 */
export const PUBLIC_SERVICE_ROUTES: Readonly<Partial<Record<RoutedService, readonly string[]>>> = {
  accounts: ['/auth', '/webhooks/incoming'],
  contacts: ['/subscribe', '/unsubscribe', '/manage'],
  sending: ['/t', '/webhooks/sns', '/images'],
};

/** Whether `path` is `prefix` or below it (`/contacts` owns `/contacts/1`, not `/contactsx`). */
export function pathIsUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}
