import { DnsResolver } from '@stamp/platform';

import { startDnsServer } from './dns-server.ts';

describe('test DNS server with the platform resolver', () => {
  it('answers records, NODATA and NXDOMAIN over real UDP, and over TCP past 512 bytes', async () => {
    const longKey = `v=DKIM1; k=rsa; p=${'A'.repeat(392)}`;
    const dns = await startDnsServer({
      'example.test': { MX: [{ exchange: 'mx.example.test', priority: 10 }], A: ['127.0.0.2'] },
      'sel._domainkey.example.test': { TXT: [longKey] },
    });
    const resolver = new DnsResolver({ servers: [dns.address], timeoutMs: 1000, tries: 1 });
    try {
      expect(await resolver.mx('example.test')).toEqual({
        status: 'ok',
        records: [{ exchange: 'mx.example.test', priority: 10 }],
      });
      expect((await resolver.txt('sel._domainkey.example.test')).records).toEqual([longKey]);
      expect((await resolver.a('example.test')).records).toEqual(['127.0.0.2']);
      expect((await resolver.aaaa('example.test')).status).toBe('nodata');
      expect((await resolver.mx('missing.test')).status).toBe('nxdomain');
      const big = [`v=spf1 ${'include:a.example.test '.repeat(20)}~all`, `k=${'B'.repeat(400)}`];
      dns.set('a-rather-long-selector-name._domainkey.some-long-domain-name.example.test', {
        TXT: big,
      });
      expect(
        (
          await resolver.txt(
            'a-rather-long-selector-name._domainkey.some-long-domain-name.example.test',
          )
        ).records,
      ).toEqual(big);
      dns.set('late.test', { TXT: ['hello'] });
      expect((await resolver.txt('late.test')).records).toEqual(['hello']);
    } finally {
      await dns.close();
    }
  });
});
