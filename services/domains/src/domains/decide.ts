/**
 * Pure deciders of sender domains: command + current state → events, throwing ApiError for rule
 * violations (spec part 4 "Domains", API reference "Domains"). No I/O here.
 */
import { conflict, notFound } from '@stamp/http-kit';

import type {
  ClaimEvent,
  DnsRecord,
  DomainAdded,
  DomainEvent,
  DomainState,
  DomainStatus,
  KnownDomain,
  RecordStatus,
} from './events.ts';

/** Where the records point: from the service options. */
export interface RecordsConfig {
  /** Return-path subdomain label (default `bounce`). */
  returnPathSubdomain: string;
  /** Host included by the SPF record (default `spf.stamp.localhost`). */
  spfInclude: string;
  /** MX host of the return path (default `feedback.stamp.localhost`). */
  mxHost: string;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Lowercases and checks a hostname: at least two labels of letters, digits and inner hyphens
 * (1..63 chars each), at most 253 chars, a non-numeric top-level label; one trailing dot is
 * dropped. Returns null when it is not a valid domain name.
 */
export function normalizeDomain(input: string): string | null {
  const domain = input.trim().toLowerCase().replace(/\.$/, '');
  if (domain.length === 0 || domain.length > 253) return null;
  const labels = domain.split('.');
  if (labels.length < 2) return null;
  if (!labels.every((label) => LABEL.test(label))) return null;
  const tld = labels[labels.length - 1] ?? '';
  if (/^[0-9]+$/.test(tld)) return null;
  return domain;
}

/** The DKIM TXT value publishing `publicKey` (base64 SPKI DER). */
export const dkimValue = (publicKey: string): string => `v=DKIM1; k=rsa; p=${publicKey}`;

/**
 * The DNS records a domain needs, every one PENDING: DKIM TXT at `<selector>._domainkey.<domain>`,
 * SPF TXT and MX (priority 10) at `<returnPathSubdomain>.<domain>`, DMARC TXT at
 * `_dmarc.<domain>`, and the domain's own MX (INBOUND: optional, only for a domain whose mail
 * Stamp should receive).
 */
export function expectedRecords(
  domain: string,
  selector: string,
  publicKey: string,
  config: RecordsConfig,
): DnsRecord[] {
  const returnPath = `${config.returnPathSubdomain}.${domain}`;
  return [
    {
      type: 'TXT',
      name: `${selector}._domainkey.${domain}`,
      value: dkimValue(publicKey),
      purpose: 'DKIM',
      status: 'PENDING',
    },
    {
      type: 'TXT',
      name: returnPath,
      value: `v=spf1 include:${config.spfInclude} ~all`,
      purpose: 'SPF',
      status: 'PENDING',
    },
    {
      type: 'MX',
      name: returnPath,
      value: config.mxHost,
      priority: 10,
      purpose: 'RETURN_PATH',
      status: 'PENDING',
    },
    {
      type: 'TXT',
      name: `_dmarc.${domain}`,
      value: 'v=DMARC1; p=none;',
      purpose: 'DMARC',
      status: 'PENDING',
    },
    {
      type: 'MX',
      name: domain,
      value: config.mxHost,
      priority: 10,
      purpose: 'INBOUND',
      status: 'PENDING',
    },
  ];
}

/** Command: add `domain` (already normalised) to a project with a generated key pair. */
export interface AddDomain {
  domainId: string;
  projectId: string;
  domain: string;
  selector: string;
  publicKey: string;
  /** The PKCS#8 PEM private key sealed with `secrets.seal('dkim', pem)`. */
  privateKey: string;
  /** ISO 8601. */
  now: string;
  config: RecordsConfig;
}

/**
 * Adds a domain.
 * @param claimed whether the project already holds this domain name.
 * @throws ApiError 409 CONFLICT when it does.
 */
export function decideAdd(
  claimed: boolean,
  command: AddDomain,
): { domain: [DomainAdded]; claim: [ClaimEvent] } {
  if (claimed) throw conflict(`Domain ${command.domain} already exists in this project`);
  return {
    domain: [
      {
        type: 'DomainAdded',
        data: {
          domainId: command.domainId,
          projectId: command.projectId,
          domain: command.domain,
          selector: command.selector,
          publicKey: command.publicKey,
          privateKey: command.privateKey,
          records: expectedRecords(
            command.domain,
            command.selector,
            command.publicKey,
            command.config,
          ),
          addedAt: command.now,
        },
      },
    ],
    claim: [{ type: 'DomainClaimed', data: { domainId: command.domainId } }],
  };
}

/** The live domain of `projectId`, or 404 DOMAIN_NOT_FOUND (absent, removed, other project). */
export function requireDomain(state: DomainState, projectId: string): KnownDomain {
  if (state.kind !== 'active' || state.projectId !== projectId) {
    throw notFound('DOMAIN_NOT_FOUND', 'Domain not found');
  }
  return state;
}

/** Result of looking the records up in DNS. */
export interface CheckOutcome {
  /** The records with the status each look-up found. */
  records: DnsRecord[];
  /** The DKIM look-up failed (timeout, SERVFAIL): the status is left as it is. */
  dkimLookupFailed: boolean;
}

/** Command: record a DNS check of a domain. */
export interface RecordCheck {
  projectId: string;
  outcome: CheckOutcome;
  /** ISO 8601. */
  now: string;
  /**
   * When false, a check that changes no status and no record status appends nothing (the
   * background re-check); when true the check is always recorded (GET /domains/:id/verify).
   */
  always: boolean;
}

const dkimStatus = (records: readonly DnsRecord[]): RecordStatus | undefined =>
  records.find((record) => record.purpose === 'DKIM')?.status;

/**
 * Records a check: DomainVerified when the DKIM record resolves to our key and the domain was not
 * VERIFIED; DomainVerificationFailed when a VERIFIED domain's key is gone; DomainChecked
 * otherwise (status unchanged). A failed DKIM look-up never changes the status.
 * @throws ApiError 404 DOMAIN_NOT_FOUND.
 */
export function decideCheck(state: DomainState, command: RecordCheck): DomainEvent[] {
  const domain = requireDomain(state, command.projectId);
  const { records, dkimLookupFailed } = command.outcome;
  const data = { records, checkedAt: command.now };
  const keyFound = dkimStatus(records) === 'VERIFIED';
  let next: DomainStatus = domain.status;
  if (keyFound) next = 'VERIFIED';
  else if (!dkimLookupFailed && domain.status === 'VERIFIED') next = 'FAILED';
  if (next !== domain.status) {
    return [
      next === 'VERIFIED'
        ? { type: 'DomainVerified', data }
        : { type: 'DomainVerificationFailed', data },
    ];
  }
  const unchanged =
    records.length === domain.records.length &&
    records.every((record, index) => record.status === domain.records[index]?.status);
  if (unchanged && !command.always) return [];
  return [{ type: 'DomainChecked', data }];
}

/**
 * Removes a domain and releases its name in the project.
 * @throws ApiError 404 DOMAIN_NOT_FOUND.
 */
export function decideRemove(
  state: DomainState,
  command: { projectId: string; now: string },
): { domain: DomainEvent[]; claim: ClaimEvent[] } {
  const domain = requireDomain(state, command.projectId);
  return {
    domain: [{ type: 'DomainRemoved', data: { removedAt: command.now } }],
    claim: [{ type: 'DomainReleased', data: { domainId: domain.id } }],
  };
}
