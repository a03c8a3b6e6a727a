/** The activity service on the embedded platform: events appended to the log reach the feed. */
import type { AwaitViews } from '@stamp/contracts';
import type { EmbeddedPlatform } from '@stamp/platform';
import type { ServedRouter } from '@stamp/testkit/http.ts';

import { type ActivityBench, startActivityBench } from './testing.ts';

let bench: ActivityBench;
let platform: EmbeddedPlatform;
let service: ActivityBench['service'];
let served: ServedRouter;
let awaitViews: AwaitViews;

beforeAll(async () => {
  bench = await startActivityBench();
  ({ platform, service, served, awaitViews } = bench);
});

afterAll(async () => {
  await bench.close();
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
  // The feed, the webhook endpoints and the wipe of project resets; a second start adds none.
  expect(service.projections()).toHaveLength(3);
  await awaitViews(appended.position);
  const types = await served.request('GET', '/activity/types');
  expect(types.body).toEqual({ types: [{ type: 'contact.unsubscribed', count: 1 }] });
});
