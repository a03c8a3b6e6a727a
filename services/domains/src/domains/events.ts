/**
 * Events, state and `evolve` of a sender domain (spec part 4 "Domains", API reference
 * "Domains"). Stream `domain-<id>`; the claim of a domain name within a project lives on stream
 * `domainclaim-<projectId>:<domain>` so two concurrent adds of one name cannot both succeed.
 */

/** Stream category of sender domains (also the bus topic the projection reads). */
export const DOMAIN_CATEGORY = 'domain';

/** Stream category of per-project domain name claims. */
export const CLAIM_CATEGORY = 'domainclaim';

/** Stream id of a domain. */
export const domainStream = (id: string): string => `${DOMAIN_CATEGORY}-${id}`;

/** Stream id of the claim of `domain` (lowercase) in `projectId`. */
export const claimStream = (projectId: string, domain: string): string =>
  `${CLAIM_CATEGORY}-${projectId}:${domain}`;

/** Status of a domain: PENDING until the DKIM record resolves to our key (API reference enums). */
export type DomainStatus = 'PENDING' | 'VERIFIED' | 'FAILED';

/** Status of one DNS record: PENDING (absent), VERIFIED (matches), FAILED (present, wrong). */
export type RecordStatus = 'PENDING' | 'VERIFIED' | 'FAILED';

/** What a DNS record is for. */
export type RecordPurpose = 'DKIM' | 'SPF' | 'RETURN_PATH' | 'DMARC' | 'INBOUND';

/** A DNS record the customer adds to their zone; `priority` only on MX. */
export interface DnsRecord {
  type: 'TXT' | 'MX';
  name: string;
  value: string;
  priority?: number;
  purpose: RecordPurpose;
  status: RecordStatus;
}

/** A domain was added to a project with a fresh RSA-2048 DKIM key pair. */
export interface DomainAdded {
  type: 'DomainAdded';
  data: {
    domainId: string;
    projectId: string;
    /** Lowercase hostname. */
    domain: string;
    /** DKIM selector (`stamp-<hex>`). */
    selector: string;
    /** Base64 of the SPKI DER public key, as in the DKIM `p=` tag. */
    publicKey: string;
    /**
     * The PKCS#8 PEM private key sealed with the platform secret (`secrets.seal('dkim', pem)`,
     * `v1.<iv>.<ciphertext>.<tag>`); never plaintext, never returned by a route.
     */
    privateKey: string;
    /** The records to add, every one PENDING. */
    records: DnsRecord[];
    /** ISO 8601. */
    addedAt: string;
  };
}

/** A check found the DKIM record resolving to our key. */
export interface DomainVerified {
  type: 'DomainVerified';
  data: { records: DnsRecord[]; checkedAt: string };
}

/** A check of a VERIFIED domain no longer found our DKIM key. */
export interface DomainVerificationFailed {
  type: 'DomainVerificationFailed';
  data: { records: DnsRecord[]; checkedAt: string };
}

/** A check that did not change the domain's status (per-record statuses may have changed). */
export interface DomainChecked {
  type: 'DomainChecked';
  data: { records: DnsRecord[]; checkedAt: string };
}

/** The domain was removed from its project. */
export interface DomainRemoved {
  type: 'DomainRemoved';
  data: { removedAt: string };
}

/** Every event of a `domain-<id>` stream. */
export type DomainEvent =
  DomainAdded | DomainVerified | DomainVerificationFailed | DomainChecked | DomainRemoved;

/** Event types of a domain stream. */
export const DOMAIN_EVENT_TYPES: readonly DomainEvent['type'][] = [
  'DomainAdded',
  'DomainVerified',
  'DomainVerificationFailed',
  'DomainChecked',
  'DomainRemoved',
];

/** Events of a claim stream: the name is taken, or released again by a removal. */
export type ClaimEvent =
  | { type: 'DomainClaimed'; data: { domainId: string } }
  | { type: 'DomainReleased'; data: { domainId: string } };

/** A domain that was added (and possibly removed since), folded from its stream. */
export interface KnownDomain {
  kind: 'active' | 'removed';
  id: string;
  projectId: string;
  domain: string;
  selector: string;
  publicKey: string;
  /** Sealed private key (see {@link DomainAdded}). */
  privateKey: string;
  status: DomainStatus;
  records: DnsRecord[];
  createdAt: string;
  verifiedAt?: string;
}

/** State of a domain folded from its stream. */
export type DomainState = { kind: 'absent' } | KnownDomain;

/** State of a stream with no events. */
export const initialState: DomainState = { kind: 'absent' };

/** Applies one event to the state. */
export function evolve(state: DomainState, event: DomainEvent): DomainState {
  switch (event.type) {
    case 'DomainAdded': {
      const { data } = event;
      return {
        kind: 'active',
        id: data.domainId,
        projectId: data.projectId,
        domain: data.domain,
        selector: data.selector,
        publicKey: data.publicKey,
        privateKey: data.privateKey,
        status: 'PENDING',
        records: data.records,
        createdAt: data.addedAt,
      };
    }
    case 'DomainVerified':
      if (state.kind === 'absent') return state;
      return {
        ...state,
        status: 'VERIFIED',
        records: event.data.records,
        verifiedAt: event.data.checkedAt,
      };
    case 'DomainVerificationFailed':
      if (state.kind === 'absent') return state;
      return { ...state, status: 'FAILED', records: event.data.records };
    case 'DomainChecked':
      if (state.kind === 'absent') return state;
      return { ...state, records: event.data.records };
    case 'DomainRemoved':
      if (state.kind === 'absent') return state;
      return { ...state, kind: 'removed' };
  }
}

/** Folds a stream's events (unknown types are skipped). */
export function fold(events: readonly { type: string; data: unknown }[]): DomainState {
  let state = initialState;
  for (const event of events) {
    if ((DOMAIN_EVENT_TYPES as readonly string[]).includes(event.type)) {
      state = evolve(state, event as DomainEvent);
    }
  }
  return state;
}

/** Whether the claim stream's events leave the name taken. */
export function isClaimed(events: readonly { type: string }[]): boolean {
  const last = events[events.length - 1];
  return last?.type === 'DomainClaimed';
}
