import type { DnsZoneEntry } from '@stamp/testkit/dns-server.ts';

import type { Resolver } from './resolver.ts';

/** A resolver under test and what it needs closed afterwards. */
export interface ResolverFixture {
  resolver: Resolver;
  close(): Promise<void>;
}

/** What a resolver contract run needs. */
export interface ResolverFactories {
  /** A resolver that answers from `zone` (name → records, served by a real DNS server). */
  make(zone: Record<string, DnsZoneEntry>): Promise<ResolverFixture>;
  /** A resolver whose server never answers, configured to give up within about 200 ms. */
  makeUnreachable(): Promise<ResolverFixture>;
}

/**
 * A DKIM-sized TXT value (402 bytes: > 255, so the server splits it into two strings, yet the UDP
 * answer stays under 512 bytes, as the test server has no TCP fallback).
 */
const LONG_TXT = `v=DKIM1; k=rsa; p=${'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A'.repeat(12)}`;

/** The zone every contract run serves. */
export const CONTRACT_ZONE: Record<string, DnsZoneEntry> = {
  'acme.example': {
    A: ['192.0.2.10', '192.0.2.11'],
    AAAA: ['2001:db8::1'],
    MX: [
      { exchange: 'mx1.acme.example', priority: 10 },
      { exchange: 'mx2.acme.example', priority: 20 },
    ],
    NS: ['ns1.acme.example', 'ns2.acme.example'],
    TXT: ['v=spf1 include:stamp.example ~all', 'google-site-verification=abc'],
  },
  'stamp1._domainkey.acme.example': { TXT: [LONG_TXT] },
  '_dmarc.only-children.example': { TXT: ['v=DMARC1; p=none'] },
};

const sorted = (values: string[]): string[] => [...values].sort();

/**
 * Contract suite of the Resolver port (architecture brief, "Ports"): TXT (character strings
 * joined), MX, NS, A, AAAA answers with status `ok`; `nxdomain` for unknown names; `nodata` for a
 * name without records of the asked type; `error` (never a throw) when the server does not
 * answer.
 */
export function resolverContract(name: string, factories: ResolverFactories): void {
  describe(`Resolver contract: ${name}`, () => {
    let fixture: ResolverFixture;
    beforeAll(async () => {
      fixture = await factories.make(CONTRACT_ZONE);
    });
    afterAll(async () => {
      await fixture.close();
    });

    it('answers TXT records, joining a long value split into 255-byte strings', async () => {
      const spf = await fixture.resolver.txt('acme.example');
      expect(spf.status).toBe('ok');
      expect(sorted(spf.records)).toEqual([
        'google-site-verification=abc',
        'v=spf1 include:stamp.example ~all',
      ]);
      expect(LONG_TXT.length).toBeGreaterThan(255);
      expect(await fixture.resolver.txt('stamp1._domainkey.acme.example')).toEqual({
        status: 'ok',
        records: [LONG_TXT],
      });
    });

    it('answers MX records with exchange and priority', async () => {
      const answer = await fixture.resolver.mx('acme.example');
      expect(answer.status).toBe('ok');
      expect([...answer.records].sort((left, right) => left.priority - right.priority)).toEqual([
        { exchange: 'mx1.acme.example', priority: 10 },
        { exchange: 'mx2.acme.example', priority: 20 },
      ]);
    });

    it('answers NS, A and AAAA records', async () => {
      const ns = await fixture.resolver.ns('acme.example');
      expect({ ...ns, records: sorted(ns.records) }).toEqual({
        status: 'ok',
        records: ['ns1.acme.example', 'ns2.acme.example'],
      });
      const a = await fixture.resolver.a('acme.example');
      expect({ ...a, records: sorted(a.records) }).toEqual({
        status: 'ok',
        records: ['192.0.2.10', '192.0.2.11'],
      });
      expect(await fixture.resolver.aaaa('acme.example')).toEqual({
        status: 'ok',
        records: ['2001:db8::1'],
      });
    });

    it('answers nxdomain for a name that does not exist, for every type', async () => {
      const absent = 'nope.acme-unknown.example';
      const nxdomain = { status: 'nxdomain', records: [] };
      expect(await fixture.resolver.txt(absent)).toEqual(nxdomain);
      expect(await fixture.resolver.mx(absent)).toEqual(nxdomain);
      expect(await fixture.resolver.ns(absent)).toEqual(nxdomain);
      expect(await fixture.resolver.a(absent)).toEqual(nxdomain);
      expect(await fixture.resolver.aaaa(absent)).toEqual(nxdomain);
    });

    it('answers nodata for an existing name without records of the asked type', async () => {
      const nodata = { status: 'nodata', records: [] };
      expect(await fixture.resolver.mx('stamp1._domainkey.acme.example')).toEqual(nodata);
      expect(await fixture.resolver.a('stamp1._domainkey.acme.example')).toEqual(nodata);
      expect(await fixture.resolver.aaaa('stamp1._domainkey.acme.example')).toEqual(nodata);
      expect(await fixture.resolver.ns('stamp1._domainkey.acme.example')).toEqual(nodata);
      // A name that exists only because a child name does (empty non-terminal).
      expect(await fixture.resolver.txt('only-children.example')).toEqual(nodata);
    });

    it('answers error, without throwing, when the server does not answer', async () => {
      const silent = await factories.makeUnreachable();
      try {
        const started = Date.now();
        expect(await silent.resolver.txt('acme.example')).toEqual({ status: 'error', records: [] });
        expect(Date.now() - started).toBeLessThan(3000);
      } finally {
        await silent.close();
      }
    });
  });
}
