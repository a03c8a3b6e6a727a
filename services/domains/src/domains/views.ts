/**
 * The `domains` view (one document per domain, `_id` = domain id) and the resource the routes
 * answer with.
 */
import type { ViewCollection, ViewDocument, ViewStore } from '@stamp/platform';

import type { DnsRecord, DomainStatus } from './events.ts';

/** Name of the view collection. */
export const DOMAINS_VIEW = 'domains';

/** A document of the `domains` view. Dates are ISO 8601 strings. */
export interface DomainView extends ViewDocument {
  projectId: string;
  domain: string;
  selector: string;
  publicKey: string;
  /**
   * The PKCS#8 PEM private key sealed with `secrets.seal('dkim', pem)`; unset once the domain is
   * removed. Never returned by a route.
   */
  privateKey?: string;
  status: DomainStatus;
  verified: boolean;
  records: DnsRecord[];
  createdAt: string;
  verifiedAt?: string;
  /** Time of the last recorded DNS check. */
  checkedAt?: string;
  /** Set when the domain was removed; such documents are hidden from every query. */
  removedAt?: string;
  /** Revision of the `domain-<id>` stream this document reflects. */
  revision: number;
}

/** The `domains` collection. */
export const domainsView = (views: ViewStore): ViewCollection<DomainView> =>
  views.collection<DomainView>(DOMAINS_VIEW);

/** Filter matching domains that were not removed. */
export const LIVE = { removedAt: { $exists: false } } as const;

/** The domain resource of the API (spec part 4, API reference "Domains"); no private key. */
export interface DomainResource {
  id: string;
  domain: string;
  status: DomainStatus;
  verified: boolean;
  records: DnsRecord[];
  createdAt: string;
  verifiedAt?: string;
}

/** The resource of a folded domain state (`id` given) or of a view document (`_id` given). */
export function toResource(source: {
  id?: string;
  _id?: string;
  domain: string;
  status: DomainStatus;
  records: readonly DnsRecord[];
  createdAt: string;
  verifiedAt?: string;
}): DomainResource {
  return {
    id: source.id ?? source._id ?? '',
    domain: source.domain,
    status: source.status,
    verified: source.status === 'VERIFIED',
    records: source.records.map((record) => ({ ...record })),
    createdAt: source.createdAt,
    ...(source.verifiedAt === undefined ? {} : { verifiedAt: source.verifiedAt }),
  };
}
