/** Unit tests of the domain deciders: given events / when command / then events. No I/O. */

import {
  type RecordsConfig,
  decideAdd,
  decideCheck,
  decideRemove,
  expectedRecords,
  normalizeDomain,
} from './decide.ts';
import { dkimPublicKey } from './dns-check.ts';
import { type DnsRecord, type DomainEvent, type RecordStatus, fold, isClaimed } from './events.ts';
import { thrownApiError } from '@stamp/testkit/api-error.ts';

const config: RecordsConfig = {
  returnPathSubdomain: 'bounce',
  spfInclude: 'spf.stamp.localhost',
  mxHost: 'feedback.stamp.localhost',
};
const NOW = '2025-01-01T00:00:00.000Z';
const LATER = '2025-01-01T00:05:00.000Z';

const added = (): DomainEvent =>
  decideAdd(false, {
    domainId: 'd1',
    projectId: 'p1',
    domain: 'example.com',
    selector: 'stamp-abc123',
    publicKey: 'PUB',
    privateKey: 'PRIV',
    now: NOW,
    config,
  }).domain[0];

const withStatuses = (records: readonly DnsRecord[], statuses: RecordStatus[]): DnsRecord[] =>
  records.map((record, index) => ({ ...record, status: statuses[index] ?? 'PENDING' }));

const thrown = thrownApiError;

describe('normalizeDomain', () => {
  it.each([
    ['Example.COM', 'example.com'],
    [' mail.example.co.uk. ', 'mail.example.co.uk'],
    ['a-b.example.io', 'a-b.example.io'],
  ])('accepts %p as %p', (input, output) => {
    expect(normalizeDomain(input)).toBe(output);
  });
  it.each(['', 'localhost', 'exa mple.com', '-a.com', 'a-.com', 'a..com', '1.2.3.4', 'a@b.com'])(
    'refuses %p',
    (input) => {
      expect(normalizeDomain(input)).toBeNull();
    },
  );
});

describe('decideAdd', () => {
  it('given no claim, when adding, then DomainAdded with the four pending records and a claim', () => {
    const result = decideAdd(false, {
      domainId: 'd1',
      projectId: 'p1',
      domain: 'example.com',
      selector: 'stamp-abc123',
      publicKey: 'PUB',
      privateKey: 'PRIV',
      now: NOW,
      config,
    });
    expect(result.claim).toEqual([{ type: 'DomainClaimed', data: { domainId: 'd1' } }]);
    expect(result.domain[0].data.records).toEqual([
      {
        type: 'TXT',
        name: 'stamp-abc123._domainkey.example.com',
        value: 'v=DKIM1; k=rsa; p=PUB',
        purpose: 'DKIM',
        status: 'PENDING',
      },
      {
        type: 'TXT',
        name: 'bounce.example.com',
        value: 'v=spf1 include:spf.stamp.localhost ~all',
        purpose: 'SPF',
        status: 'PENDING',
      },
      {
        type: 'MX',
        name: 'bounce.example.com',
        value: 'feedback.stamp.localhost',
        priority: 10,
        purpose: 'RETURN_PATH',
        status: 'PENDING',
      },
      {
        type: 'TXT',
        name: '_dmarc.example.com',
        value: 'v=DMARC1; p=none;',
        purpose: 'DMARC',
        status: 'PENDING',
      },
      {
        type: 'MX',
        name: 'example.com',
        value: 'feedback.stamp.localhost',
        priority: 10,
        purpose: 'INBOUND',
        status: 'PENDING',
      },
    ]);
    expect(fold([result.domain[0]])).toMatchObject({ kind: 'active', status: 'PENDING' });
  });

  it('given the name is claimed, when adding, then 409 CONFLICT', () => {
    const error = thrown(() =>
      decideAdd(true, {
        domainId: 'd2',
        projectId: 'p1',
        domain: 'example.com',
        selector: 's',
        publicKey: 'P',
        privateKey: 'K',
        now: NOW,
        config,
      }),
    );
    expect([error.status, error.code]).toEqual([409, 'CONFLICT']);
  });

  it('a claim is held after DomainClaimed and free after DomainReleased', () => {
    expect(isClaimed([])).toBe(false);
    expect(isClaimed([{ type: 'DomainClaimed' }])).toBe(true);
    expect(isClaimed([{ type: 'DomainClaimed' }, { type: 'DomainReleased' }])).toBe(false);
  });
});

describe('decideCheck', () => {
  const records = expectedRecords('example.com', 'stamp-abc123', 'PUB', config);

  it('given a pending domain, when the DKIM key is found, then DomainVerified', () => {
    const checked = withStatuses(records, ['VERIFIED', 'PENDING', 'FAILED', 'PENDING']);
    const events = decideCheck(fold([added()]), {
      projectId: 'p1',
      outcome: { records: checked, dkimLookupFailed: false },
      now: LATER,
      always: false,
    });
    expect(events).toEqual([
      { type: 'DomainVerified', data: { records: checked, checkedAt: LATER } },
    ]);
    expect(fold([added(), ...events])).toMatchObject({ status: 'VERIFIED', verifiedAt: LATER });
  });

  it('given a pending domain, when nothing changed, then no event unless always', () => {
    const outcome = { records, dkimLookupFailed: false };
    const state = fold([added()]);
    expect(decideCheck(state, { projectId: 'p1', outcome, now: LATER, always: false })).toEqual([]);
    expect(decideCheck(state, { projectId: 'p1', outcome, now: LATER, always: true })).toEqual([
      { type: 'DomainChecked', data: { records, checkedAt: LATER } },
    ]);
  });

  it('given a pending domain, when the DKIM record has a wrong key, then it stays PENDING', () => {
    const checked = withStatuses(records, ['FAILED', 'VERIFIED', 'VERIFIED', 'VERIFIED']);
    const events = decideCheck(fold([added()]), {
      projectId: 'p1',
      outcome: { records: checked, dkimLookupFailed: false },
      now: LATER,
      always: false,
    });
    expect(events.map((event) => event.type)).toEqual(['DomainChecked']);
    expect(fold([added(), ...events])).toMatchObject({ status: 'PENDING' });
  });

  const verified: DomainEvent = {
    type: 'DomainVerified',
    data: { records: withStatuses(records, ['VERIFIED']), checkedAt: NOW },
  };

  it('given a verified domain, when the key is gone, then DomainVerificationFailed', () => {
    const events = decideCheck(fold([added(), verified]), {
      projectId: 'p1',
      outcome: { records, dkimLookupFailed: false },
      now: LATER,
      always: true,
    });
    expect(events.map((event) => event.type)).toEqual(['DomainVerificationFailed']);
    expect(fold([added(), verified, ...events])).toMatchObject({ status: 'FAILED' });
  });

  it('given a verified domain, when the DKIM look-up fails, then the status is kept', () => {
    const events = decideCheck(fold([added(), verified]), {
      projectId: 'p1',
      outcome: { records, dkimLookupFailed: true },
      now: LATER,
      always: true,
    });
    expect(events.map((event) => event.type)).toEqual(['DomainChecked']);
  });

  it('given another project or a removed domain, when checking, then 404 DOMAIN_NOT_FOUND', () => {
    const outcome = { records, dkimLookupFailed: false };
    const removed: DomainEvent = { type: 'DomainRemoved', data: { removedAt: LATER } };
    for (const [state, projectId] of [
      [fold([added()]), 'p2'],
      [fold([added(), removed]), 'p1'],
      [fold([]), 'p1'],
    ] as const) {
      const error = thrown(() =>
        decideCheck(state, { projectId, outcome, now: LATER, always: true }),
      );
      expect([error.status, error.code]).toEqual([404, 'DOMAIN_NOT_FOUND']);
    }
  });
});

describe('decideRemove', () => {
  it('given a domain, when removing, then DomainRemoved and the claim released', () => {
    const result = decideRemove(fold([added()]), { projectId: 'p1', now: LATER });
    expect(result).toEqual({
      domain: [{ type: 'DomainRemoved', data: { removedAt: LATER } }],
      claim: [{ type: 'DomainReleased', data: { domainId: 'd1' } }],
    });
    expect(fold([added(), ...result.domain]).kind).toBe('removed');
  });

  it('given a removed domain, when removing again, then 404', () => {
    const removed: DomainEvent = { type: 'DomainRemoved', data: { removedAt: LATER } };
    expect(
      thrown(() => decideRemove(fold([added(), removed]), { projectId: 'p1', now: LATER })).status,
    ).toBe(404);
  });
});

describe('dkimPublicKey', () => {
  it('reads the p= tag with whitespace removed', () => {
    expect(dkimPublicKey('v=DKIM1; k=rsa; p=AB CD\tEF')).toBe('ABCDEF');
    expect(dkimPublicKey('v=DKIM1;k=rsa;p=XYZ;')).toBe('XYZ');
    expect(dkimPublicKey('v=spf1 -all')).toBeUndefined();
  });
});
