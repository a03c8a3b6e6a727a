/** The activity service on the embedded platform: events appended to the log reach the feed. */
import { randomBytes } from 'node:crypto';

import { awaitViewsOf, type ServiceModule } from '@stamp/http-kit';
import {
  createLogger,
  DnsResolver,
  type EmbeddedPlatform,
  openEmbeddedPlatform,
  Secrets,
} from '@stamp/platform';
import { serveRouter, type ServedRouter } from '@stamp/testkit/http.ts';

import { createActivityService } from './index.ts';

let platform: EmbeddedPlatform;
let service: ReturnType<typeof createActivityService>;
let served: ServedRouter;
const modules: ServiceModule[] = [];
const awaitViews = awaitViewsOf(modules);

beforeAll(async () => {
  const logger = createLogger({ level: 'silent' });
  platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
  service = createActivityService({
    store: platform.store,
    bus: platform.bus,
    views: platform.views,
    logger,
    awaitViews,
    leases: platform.leases,
    secrets: new Secrets(randomBytes(32)),
    resolver: new DnsResolver({ servers: ['127.0.0.1:9'] }),
    allowPrivateTargets: false,
  });
  modules.push(service);
  await service.start();
  served = await serveRouter(service.router, { projectId: 'p1', keyKind: 'secret' });
});

afterAll(async () => {
  await served.close();
  await service.stop();
  await platform.close();
});

const metadata = { projectId: 'p1', correlationId: 'test', subjectId: 'c1' };

it('projects appended contact, tracked-event and email events; ContactDeleted empties the feed', async () => {
  expect(service.name).toBe('activity');
  const appended = await platform.store.append([
    {
      streamId: 'contact-c1',
      expectedRevision: 'no_stream',
      events: [
        {
          type: 'ContactCreated',
          data: { email: 'ada@example.org', subscribed: false, data: {} },
          metadata,
        },
        { type: 'ContactSubscribed', data: {}, metadata },
      ],
    },
    {
      streamId: 'trackedEvent-t1',
      expectedRevision: 'no_stream',
      events: [
        {
          id: 't1',
          type: 'EventTracked',
          data: { name: 'signed-up', contactId: 'c1', email: 'ada@example.org', data: {} },
          metadata,
        },
      ],
    },
    {
      streamId: 'email-m1',
      expectedRevision: 'no_stream',
      events: [
        {
          type: 'EmailQueued',
          data: {
            emailId: 'm1',
            contactId: 'c1',
            to: { email: 'ada@example.org' },
            from: { email: 'hello@example.test' },
            subject: 'Welcome',
            html: '<p>Hi</p>',
            headers: {},
            attachments: [],
            sandbox: true,
          },
          metadata,
        },
        {
          type: 'EmailSent',
          data: { messageId: '<m1@x>', response: '250 OK', transport: 'outbox', sentAt: '' },
          metadata,
        },
      ],
    },
  ]);
  await awaitViews(appended.position);
  const feed = await served.request('GET', '/activity');
  expect(feed.status).toBe(200);
  const body = feed.body as { data: { id: string; type: string }[]; total: number };
  expect(body.data.map((item) => item.type).sort()).toEqual([
    'contact.subscribed',
    'email.delivered',
    'email.sent',
    'event.triggered',
  ]);
  expect(body.total).toBe(4);
  expect(JSON.stringify(body)).not.toContain('<p>Hi</p>');

  const deleted = await platform.store.append([
    {
      streamId: 'contact-c1',
      expectedRevision: 1,
      events: [{ type: 'ContactDeleted', data: {}, metadata }],
    },
  ]);
  await awaitViews(deleted.position);
  expect((await served.request('GET', '/activity')).body).toEqual({
    data: [],
    cursor: '',
    hasMore: false,
    total: 0,
  });
  expect((await served.request('GET', '/activity/types')).body).toEqual({ types: [] });
  expect((await served.request('GET', '/activity/recent-count')).body).toMatchObject({ count: 0 });
});

it('stops and starts again without losing its place', async () => {
  await service.stop();
  expect(service.projections()).toEqual([]);
  const appended = await platform.store.append([
    {
      streamId: 'contact-c2',
      expectedRevision: 'no_stream',
      events: [
        { type: 'ContactUnsubscribed', data: {}, metadata: { ...metadata, subjectId: 'c2' } },
      ],
    },
  ]);
  await service.start();
  await service.start();
  expect(service.projections()).toHaveLength(2);
  await awaitViews(appended.position);
  const types = await served.request('GET', '/activity/types');
  expect(types.body).toEqual({ types: [{ type: 'contact.unsubscribed', count: 1 }] });
});
