import { createSocket } from 'node:dgram';

import { startDnsServer } from '@stamp/testkit/dns-server.ts';

import { resolverContract } from './resolver.contract.ts';
import { DnsResolver } from './resolver.ts';

/** A loopback UDP port nobody listens on. */
async function unusedUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => {
    socket.bind(0, '127.0.0.1', resolve);
  });
  const { port } = socket.address();
  await new Promise<void>((resolve) => {
    socket.close(() => {
      resolve();
    });
  });
  return port;
}

resolverContract('DnsResolver (c-ares) → dns2 server on loopback', {
  async make(zone) {
    const server = await startDnsServer(zone);
    return {
      resolver: new DnsResolver({ servers: [server.address], timeoutMs: 1000, tries: 2 }),
      close: () => server.close(),
    };
  },
  async makeUnreachable() {
    // A bound UDP socket that reads every query and never answers: each try times out.
    const silent = createSocket('udp4');
    silent.on('message', () => undefined);
    await new Promise<void>((resolve) => {
      silent.bind(0, '127.0.0.1', resolve);
    });
    const { port } = silent.address();
    return {
      resolver: new DnsResolver({ servers: [`127.0.0.1:${port}`], timeoutMs: 200, tries: 1 }),
      close: () =>
        new Promise<void>((resolve) => {
          silent.close(() => {
            resolve();
          });
        }),
    };
  },
});

describe('DnsResolver', () => {
  it('answers error, without throwing, when nobody listens on the server port', async () => {
    const port = await unusedUdpPort();
    const resolver = new DnsResolver({ servers: [`127.0.0.1:${port}`], timeoutMs: 200, tries: 1 });
    expect(await resolver.a('acme.example')).toEqual({ status: 'error', records: [] });
    expect(await resolver.ns('acme.example')).toEqual({ status: 'error', records: [] });
  });

  it('sees records changed on the server (no stale cache)', async () => {
    const server = await startDnsServer({ 'acme.example': { TXT: ['first'] } });
    try {
      const resolver = new DnsResolver({ servers: [server.address], timeoutMs: 1000 });
      expect(await resolver.txt('acme.example')).toEqual({ status: 'ok', records: ['first'] });
      server.set('acme.example', { TXT: ['second'] });
      expect(await resolver.txt('acme.example')).toEqual({ status: 'ok', records: ['second'] });
      server.remove('acme.example');
      expect(await resolver.txt('acme.example')).toEqual({ status: 'nxdomain', records: [] });
    } finally {
      await server.close();
    }
  });
});
