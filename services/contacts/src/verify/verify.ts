import type { DnsAnswer, MxRecord, Resolver } from '@stamp/platform';
import { POPULAR_DOMAINS, run as suggestEmail } from '@zootools/email-spell-checker';
import disposableDomains from 'disposable-email-domains' with { type: 'json' };
import disposableWildcards from 'disposable-email-domains/wildcard.json' with { type: 'json' };
import freeDomains from 'free-email-domains';

/**
 * Result of `POST /v1/verify` (spec part 2 "Other records"; api-details "POST /v1/verify").
 * `suggestedEmail` is present only when a typo was detected.
 */
export interface VerificationResult {
  email: string;
  /** False when the domain does not exist or has no MX records (or the address is malformed). */
  valid: boolean;
  isDisposable: boolean;
  isAlias: boolean;
  isTypo: boolean;
  isPlusAddressed: boolean;
  isPersonalEmail: boolean;
  domainExists: boolean;
  hasWebsite: boolean;
  hasMxRecords: boolean;
  suggestedEmail?: string;
  /** Human-readable findings; `["Email appears to be valid"]` when there is none. */
  reasons: string[];
}

/** Reason texts of {@link verifyEmail}. */
export const REASONS = {
  invalidFormat: 'Email address is not well formed',
  domainMissing: 'Domain does not exist',
  noMx: 'Domain has no MX records',
  disposable: 'Email is from a disposable provider',
  alias: 'Email is from an email alias or relay service',
  personal: 'Email is from a free personal email provider',
  plus: 'Email uses plus addressing',
  typo: 'Email domain looks like a typo',
  ok: 'Email appears to be valid',
  dnsFailed: 'DNS look-up failed; the domain could not be checked',
  mxLookupFailed: 'DNS look-up of the MX records failed',
} as const;

/** Relay / alias services (api-details "POST /v1/verify"). */
const ALIAS_DOMAINS: ReadonlySet<string> = new Set([
  'privaterelay.appleid.com',
  'duck.com',
  'simplelogin.com',
  'simplelogin.co',
  'simplelogin.fr',
  'aleeas.com',
  'slmail.me',
  'addy.io',
  'anonaddy.com',
  'anonaddy.me',
  'mozmail.com',
]);

const DISPOSABLE: ReadonlySet<string> = new Set(
  [...disposableDomains, ...disposableWildcards].map((domain) => domain.toLowerCase()),
);
const FREE: ReadonlySet<string> = new Set(freeDomains.map((domain) => domain.toLowerCase()));
const POPULAR: ReadonlySet<string> = new Set(POPULAR_DOMAINS);

/** `a.b.example.com` → `a.b.example.com`, `b.example.com`, `example.com` (never the bare TLD). */
function selfAndParents(domain: string): string[] {
  const labels = domain.split('.');
  const names: string[] = [];
  for (let index = 0; index < labels.length - 1; index += 1)
    names.push(labels.slice(index).join('.'));
  return names;
}

function listed(domain: string, list: ReadonlySet<string>): boolean {
  return selfAndParents(domain).some((name) => list.has(name));
}

/** MX answers other than a null MX (RFC 7505: a single `.` exchange, meaning "accepts no mail"). */
function usableMx(answer: DnsAnswer<MxRecord>): MxRecord[] {
  return answer.records.filter((record) => record.exchange !== '' && record.exchange !== '.');
}

const exists = (answer: DnsAnswer<unknown>): boolean =>
  answer.status === 'ok' || answer.status === 'nodata';

/** Splits at the last `@`; undefined when either side is empty or the domain has no dot. */
function splitAddress(email: string): { local: string; domain: string } | undefined {
  const at = email.lastIndexOf('@');
  if (at <= 0) return undefined;
  const local = email.slice(0, at);
  const domain = email
    .slice(at + 1)
    .toLowerCase()
    .replace(/\.$/, '');
  if (domain === '' || !domain.includes('.') || /\s/.test(domain)) return undefined;
  return { local, domain };
}

/**
 * Verifies an email address (spec part 4 "POST /v1/verify", rules of api-details):
 * NS, MX, A and AAAA look-ups run in parallel through `resolver`. The domain exists unless every
 * look-up fails (NXDOMAIN or error); a missing domain or no (non-null) MX record makes `valid`
 * false. A or AAAA records set `hasWebsite`. Disposable (`disposable-email-domains`, parents
 * matched too), alias (relay services), personal (`free-email-domains`, not when disposable or an
 * alias), plus-addressed and typo (`@zootools/email-spell-checker`, giving `suggestedEmail`;
 * never for disposable or alias domains; for a free-list domain only towards a popular provider)
 * each add a reason but do not change `valid`. Never throws: a failed look-up (timeout,
 * SERVFAIL) makes `valid` false with a reason saying the check failed, not that the domain is
 * missing.
 */
export async function verifyEmail(email: string, resolver: Resolver): Promise<VerificationResult> {
  const address = email.trim();
  const parts = splitAddress(address);
  if (parts === undefined) {
    return {
      email: address,
      valid: false,
      isDisposable: false,
      isAlias: false,
      isTypo: false,
      isPlusAddressed: false,
      isPersonalEmail: false,
      domainExists: false,
      hasWebsite: false,
      hasMxRecords: false,
      reasons: [REASONS.invalidFormat],
    };
  }
  const { local, domain } = parts;
  const [ns, mx, a, aaaa] = await Promise.all([
    resolver.ns(domain),
    resolver.mx(domain),
    resolver.a(domain),
    resolver.aaaa(domain),
  ]);
  const domainExists = [ns, mx, a, aaaa].some(exists);
  const hasMxRecords = usableMx(mx).length > 0;
  const hasWebsite = a.records.length > 0 || aaaa.records.length > 0;

  const isDisposable = listed(domain, DISPOSABLE);
  const isAlias = listed(domain, ALIAS_DOMAINS);
  const isPersonalEmail = !isDisposable && !isAlias && listed(domain, FREE);
  const isPlusAddressed = local.includes('+');
  const suggestion =
    isDisposable || isAlias ? undefined : suggestEmail({ email: `${local}@${domain}` });
  // The free list also holds look-alikes such as gmial.com: a listed domain counts as a typo only
  // when the suggestion is one of the checker's popular providers.
  const isTypo =
    suggestion !== undefined &&
    suggestion.domain.toLowerCase() !== domain &&
    (!FREE.has(domain) || POPULAR.has(suggestion.domain.toLowerCase()));

  // A failed look-up (timeout, SERVFAIL) proves nothing: it is reported as such, not as absence.
  const domainMissing =
    !domainExists && [ns, mx, a, aaaa].some((answer) => answer.status === 'nxdomain');
  const reasons: string[] = [];
  if (domainMissing) reasons.push(REASONS.domainMissing);
  else if (!domainExists) reasons.push(REASONS.dnsFailed);
  else if (mx.status === 'error') reasons.push(REASONS.mxLookupFailed);
  else if (!hasMxRecords) reasons.push(REASONS.noMx);
  if (isDisposable) reasons.push(REASONS.disposable);
  if (isAlias) reasons.push(REASONS.alias);
  if (isPersonalEmail) reasons.push(REASONS.personal);
  if (isPlusAddressed) reasons.push(REASONS.plus);
  if (isTypo) reasons.push(REASONS.typo);
  if (reasons.length === 0) reasons.push(REASONS.ok);

  return {
    email: address,
    valid: domainExists && hasMxRecords,
    isDisposable,
    isAlias,
    isTypo,
    isPlusAddressed,
    isPersonalEmail,
    domainExists,
    hasWebsite,
    hasMxRecords,
    ...(isTypo ? { suggestedEmail: suggestion.full } : {}),
    reasons,
  };
}
