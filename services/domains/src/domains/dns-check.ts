/**
 * Looks a domain's records up through the Resolver port and rates each one (API reference
 * "Domains"): DKIM VERIFIED when a TXT record at the DKIM name carries our public key in its `p=`
 * tag (whitespace removed, TXT strings joined); SPF when a `v=spf1` record includes our host;
 * RETURN_PATH and INBOUND when an MX points to our host; DMARC when a `v=DMARC1` record exists. A record that
 * is absent is PENDING, one that is present but different is FAILED.
 */
import type { DnsAnswer, Resolver } from '@stamp/platform';

import type { CheckOutcome } from './decide.ts';
import type { DnsRecord, RecordStatus } from './events.ts';

const stripSpace = (value: string): string => value.replace(/\s+/g, '');

/** The `p=` tag of a DKIM key record (RFC 6376 §3.6.1), whitespace removed, or undefined. */
export function dkimPublicKey(txt: string): string | undefined {
  for (const tag of stripSpace(txt).split(';')) {
    const eq = tag.indexOf('=');
    if (eq > 0 && tag.slice(0, eq).toLowerCase() === 'p') return tag.slice(eq + 1);
  }
  return undefined;
}

const hostEq = (a: string, b: string): boolean =>
  a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

function rate<T>(answer: DnsAnswer<T>, matches: (value: T) => boolean): RecordStatus {
  if (answer.records.some(matches)) return 'VERIFIED';
  return answer.records.length > 0 ? 'FAILED' : 'PENDING';
}

/** What the records must contain. */
export interface CheckTarget {
  /** Base64 SPKI DER of our DKIM key. */
  publicKey: string;
  spfInclude: string;
  mxHost: string;
}

/** Rates one record by looking it up. */
async function checkRecord(
  resolver: Resolver,
  record: DnsRecord,
  target: CheckTarget,
): Promise<{ status: RecordStatus; lookupFailed: boolean }> {
  switch (record.purpose) {
    case 'DKIM': {
      const answer = await resolver.txt(record.name);
      const expected = stripSpace(target.publicKey);
      return {
        status: rate(answer, (txt) => dkimPublicKey(txt) === expected),
        lookupFailed: answer.status === 'error',
      };
    }
    case 'SPF': {
      const answer = await resolver.txt(record.name);
      const spf = answer.records.filter((txt) => /^v=spf1(\s|$)/i.test(txt.trim()));
      const include = `include:${target.spfInclude}`.toLowerCase();
      return {
        status: rate({ ...answer, records: spf }, (txt) =>
          txt.toLowerCase().split(/\s+/).includes(include),
        ),
        lookupFailed: answer.status === 'error',
      };
    }
    case 'RETURN_PATH':
    case 'INBOUND': {
      const answer = await resolver.mx(record.name);
      return {
        status: rate(answer, (mx) => hostEq(mx.exchange, target.mxHost)),
        lookupFailed: answer.status === 'error',
      };
    }
    case 'DMARC': {
      const answer = await resolver.txt(record.name);
      return {
        status: rate(answer, (txt) => /^v=DMARC1\s*(;|$)/i.test(txt.trim())),
        lookupFailed: answer.status === 'error',
      };
    }
  }
}

/**
 * Looks every record up (in parallel) and returns them with their statuses; `dkimLookupFailed`
 * is true when the DKIM query itself failed (timeout, server failure), not when it was absent.
 */
export async function checkRecords(
  resolver: Resolver,
  records: readonly DnsRecord[],
  target: CheckTarget,
): Promise<CheckOutcome> {
  const results = await Promise.all(
    records.map(async (record) => ({ record, ...(await checkRecord(resolver, record, target)) })),
  );
  return {
    records: results.map(({ record, status }) => ({ ...record, status })),
    dkimLookupFailed: results.some(
      ({ record, lookupFailed }) => record.purpose === 'DKIM' && lookupFailed,
    ),
  };
}
