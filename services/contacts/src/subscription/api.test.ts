/**
 * API tests of the public subscription routes over a real socket, on a real embedded platform,
 * served like the gateway serves them: without an API key, in front of the JSON error envelope.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { AwaitViews } from '@stamp/contracts';
import { errorHandler, notFoundHandler, requestId } from '@stamp/http-kit';
import {
  createLogger,
  DnsResolver,
  type EmbeddedPlatform,
  openEmbeddedPlatform,
  Secrets,
} from '@stamp/platform';
import { type ServedRouter, serveRouter } from '@stamp/testkit/http.ts';
import express from 'express';

import { createContactsService } from '../index.ts';
import { escapeHtml, renderPage } from './pages.ts';
import { readSubscriptionToken, subscriptionToken } from '@stamp/contracts';

const secrets = new Secrets(Buffer.alloc(32, 1));

describe('subscription tokens and pages', () => {
  it('round-trips a token; refuses other secrets and other purposes', () => {
    const token = subscriptionToken(secrets, 'project-a', 'c1');
    expect(readSubscriptionToken(secrets, token)).toEqual({
      projectId: 'project-a',
      contactId: 'c1',
    });
    expect(readSubscriptionToken(new Secrets(Buffer.alloc(32, 2)), token)).toBeNull();
    expect(readSubscriptionToken(secrets, secrets.sign('other', 'project-a:c1'))).toBeNull();
    expect(readSubscriptionToken(secrets, secrets.sign('subscription', 'no-colon'))).toBeNull();
    expect(readSubscriptionToken(secrets, secrets.sign('subscription', 'p:'))).toBeNull();
  });

  it('escapes every value put into HTML', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
    );
    const html = renderPage(
      {
        title: '<script>alert(1)</script>',
        message: '"quoted"',
        action: { route: 'unsubscribe', label: '<b>' },
      },
      'a"b',
    );
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('action="../unsubscribe/a%22b"');
    expect(html).toContain('<button type="submit">&lt;b&gt;</button>');
    expect(html).not.toMatch(/https?:\/\//);
  });
});

describe('subscription routes', () => {
  let platform: EmbeddedPlatform;
  let service: ReturnType<typeof createContactsService>;
  let api: ServedRouter;
  let server: Server;
  let url: string;
  let contactId: string;

  const contactStream = (): string => `contact-${contactId}`;
  const eventTypes = async (): Promise<string[]> =>
    (await platform.store.readStream(contactStream())).map((event) => event.type);
  const link = (route: string, token: string): string => `${url}/${route}/${token}`;
  const post = (target: string): Promise<Response> =>
    fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });

  beforeAll(async () => {
    const logger = createLogger({ level: 'silent' });
    platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
    const awaitViews: AwaitViews = async (position) => {
      if (position <= 0) return;
      await Promise.all(service.projections().map((consumer) => consumer.waitFor(position, 2000)));
    };
    service = createContactsService({
      store: platform.store,
      bus: platform.bus,
      views: platform.views,
      logger,
      awaitViews,
      resolver: new DnsResolver(),
      secrets,
    });
    await service.start();
    api = await serveRouter(service.router, { projectId: 'project-a', keyKind: 'secret' });

    const publicRouter = service.publicRouter;
    if (publicRouter === undefined) throw new Error('no public router');
    const app = express();
    app.use(requestId());
    app.use(express.json());
    app.use(publicRouter);
    app.use(notFoundHandler());
    app.use(errorHandler(logger));
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => {
        resolve(listening);
      });
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const created = await api.request('POST', '/contacts', {
      email: 'ann@example.org',
      subscribed: true,
    });
    expect(created.status).toBe(201);
    contactId = (created.body as { id: string }).id;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await api.close();
    await service.stop();
    await platform.close();
  });

  it('GET pages ask, with a POST form, and never write', async () => {
    const token = subscriptionToken(secrets, 'project-a', contactId);
    const unsubscribe = await fetch(link('unsubscribe', token));
    expect(unsubscribe.status).toBe(200);
    expect(unsubscribe.headers.get('cache-control')).toBe('no-store');
    expect(unsubscribe.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await unsubscribe.text();
    expect(html).toContain('Unsubscribe ann@example.org?');
    expect(html).toContain(`<form method="post" action="../unsubscribe/${token}">`);
    expect(await (await fetch(link('subscribe', token))).text()).toContain(
      'Subscribe ann@example.org?',
    );
    expect(await (await fetch(link('manage', token))).text()).toContain(
      'ann@example.org is subscribed',
    );
    expect(await eventTypes()).toEqual(['ContactCreated']);
  });

  it('POST /unsubscribe flips once (ContactUnsubscribed only on a flip)', async () => {
    const token = subscriptionToken(secrets, 'project-a', contactId);
    const first = await post(link('unsubscribe', token));
    expect(first.status).toBe(200);
    const html = await first.text();
    expect(html).toContain('ann@example.org is unsubscribed');
    expect(html).toContain(`action="../subscribe/${token}"`);
    expect((await post(link('unsubscribe', token))).status).toBe(200);
    expect(await eventTypes()).toEqual(['ContactCreated', 'ContactUnsubscribed']);
    const got = await api.request('GET', `/contacts/${contactId}`);
    expect(got.body).toMatchObject({ subscribed: false });
  });

  it('POST /subscribe resubscribes; the manage page follows', async () => {
    const token = subscriptionToken(secrets, 'project-a', contactId);
    const response = await fetch(link('subscribe', token), { method: 'POST' });
    expect(response.status).toBe(200);
    expect(await (await fetch(link('manage', token))).text()).toContain(
      'ann@example.org is subscribed',
    );
    expect(await eventTypes()).toEqual([
      'ContactCreated',
      'ContactUnsubscribed',
      'ContactSubscribed',
    ]);
  });

  it('answers forged, foreign-project and malformed tokens with a 404 HTML page', async () => {
    const token = subscriptionToken(secrets, 'project-a', contactId);
    const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const foreign = subscriptionToken(secrets, 'project-b', contactId);
    const otherSecret = subscriptionToken(new Secrets(Buffer.alloc(32, 9)), 'project-a', contactId);
    for (const bad of [forged, foreign, otherSecret, contactId, 'x.y', '%E0%A4%A']) {
      for (const route of ['unsubscribe', 'subscribe', 'manage']) {
        const got = await fetch(link(route, bad));
        expect([route, bad, got.status]).toEqual([route, bad, 404]);
        expect(got.headers.get('content-type')).toMatch(/^text\/html/);
        expect(await got.text()).toContain('Link not found');
      }
      expect((await post(link('unsubscribe', bad))).status).toBe(404);
    }
    expect(await eventTypes()).toHaveLength(3);
  });

  it('answers 404 for a deleted contact', async () => {
    const token = subscriptionToken(secrets, 'project-a', contactId);
    expect((await api.request('DELETE', `/contacts/${contactId}`)).status).toBe(204);
    expect((await fetch(link('manage', token))).status).toBe(404);
    expect((await post(link('unsubscribe', token))).status).toBe(404);
  });

  it('leaves other paths to the next handlers', async () => {
    const response = await fetch(`${url}/contacts`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});
