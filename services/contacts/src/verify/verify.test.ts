import { DnsResolver } from '@stamp/platform';
import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';

import { REASONS, verifyEmail } from './verify.ts';

const mailHost = {
  NS: ['ns1.example.net'],
  MX: [{ exchange: 'mx.example.net', priority: 10 }],
  A: ['192.0.2.10'],
};

describe('verifyEmail', () => {
  let dns: TestDnsServer;
  let resolver: DnsResolver;

  beforeAll(async () => {
    dns = await startDnsServer({
      'acme.io': { ...mailHost, AAAA: ['2001:db8::10'] },
      'nomx.io': { NS: ['ns1.example.net'], A: ['192.0.2.11'] },
      'mxonly.io': { MX: [{ exchange: 'mx.example.net', priority: 10 }] },
      'nullmx.io': { NS: ['ns1.example.net'], MX: [{ exchange: '.', priority: 0 }] },
      'mailinator.com': mailHost,
      'sub.mailinator.com': mailHost,
      'duck.com': mailHost,
      'gmail.com': mailHost,
      'gmial.com': mailHost,
    });
    resolver = new DnsResolver({ servers: [dns.address], timeoutMs: 1000, tries: 1 });
  });

  afterAll(async () => {
    await dns.close();
  });

  it('accepts an address on a domain with MX and A records', async () => {
    expect(await verifyEmail('jane@acme.io', resolver)).toEqual({
      email: 'jane@acme.io',
      valid: true,
      isDisposable: false,
      isAlias: false,
      isTypo: false,
      isPlusAddressed: false,
      isPersonalEmail: false,
      domainExists: true,
      hasWebsite: true,
      hasMxRecords: true,
      reasons: [REASONS.ok],
    });
  });

  it('rejects a domain that does not exist (NXDOMAIN)', async () => {
    const result = await verifyEmail('jane@missing-domain.io', resolver);
    expect(result).toMatchObject({
      valid: false,
      domainExists: false,
      hasMxRecords: false,
      hasWebsite: false,
    });
    expect(result.reasons).toEqual([REASONS.domainMissing]);
  });

  it('rejects a domain without MX records but sees its website', async () => {
    const result = await verifyEmail('jane@nomx.io', resolver);
    expect(result).toMatchObject({
      valid: false,
      domainExists: true,
      hasMxRecords: false,
      hasWebsite: true,
    });
    expect(result.reasons).toEqual([REASONS.noMx]);
  });

  it('treats a null MX (RFC 7505) as no MX', async () => {
    const result = await verifyEmail('jane@nullmx.io', resolver);
    expect(result).toMatchObject({ valid: false, domainExists: true, hasMxRecords: false });
  });

  it('accepts a domain with MX only (no NS answer, no website)', async () => {
    const result = await verifyEmail('jane@mxonly.io', resolver);
    expect(result).toMatchObject({ valid: true, domainExists: true, hasWebsite: false });
    expect(result.reasons).toEqual([REASONS.ok]);
  });

  it('flags a disposable domain without making the address invalid', async () => {
    const result = await verifyEmail('temp@mailinator.com', resolver);
    expect(result).toMatchObject({ valid: true, isDisposable: true, isPersonalEmail: false });
    expect(result.reasons).toEqual([REASONS.disposable]);
  });

  it('matches parent domains of disposable providers', async () => {
    const result = await verifyEmail('temp@sub.mailinator.com', resolver);
    expect(result.isDisposable).toBe(true);
  });

  it('flags an alias / relay service', async () => {
    const result = await verifyEmail('hidden@duck.com', resolver);
    expect(result).toMatchObject({ valid: true, isAlias: true, isPersonalEmail: false });
    expect(result.reasons).toEqual([REASONS.alias]);
  });

  it('flags plus addressing', async () => {
    const result = await verifyEmail('jane+news@acme.io', resolver);
    expect(result).toMatchObject({ valid: true, isPlusAddressed: true });
    expect(result.reasons).toEqual([REASONS.plus]);
  });

  it('flags a personal (free provider) address', async () => {
    const result = await verifyEmail('jane@gmail.com', resolver);
    expect(result).toMatchObject({ valid: true, isPersonalEmail: true, isTypo: false });
    expect(result.reasons).toEqual([REASONS.personal]);
    expect(result).not.toHaveProperty('suggestedEmail');
  });

  it('flags a typo and suggests the corrected address', async () => {
    const result = await verifyEmail('user@gmial.com', resolver);
    expect(result).toMatchObject({ isTypo: true, suggestedEmail: 'user@gmail.com' });
    expect(result.reasons).toContain(REASONS.typo);
  });

  it('reports a malformed address without DNS look-ups', async () => {
    const result = await verifyEmail('not-an-email', resolver);
    expect(result).toMatchObject({ valid: false, domainExists: false });
    expect(result.reasons).toEqual([REASONS.invalidFormat]);
  });
});
