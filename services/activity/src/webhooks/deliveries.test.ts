import { createLogger, openEmbeddedPlatform, type RecordedEvent } from '@stamp/platform';

import { dispatchWebhooks, WEBHOOK_DELIVERIES } from './deliveries.ts';
import { WEBHOOK_ENDPOINTS } from './endpoints.ts';

const platform = openEmbeddedPlatform({
  dataDir: ':memory:',
  logger: createLogger({ level: 'silent' }),
});

afterAll(async () => {
  await platform.close();
});

/** An EventTracked of project p1 that happened at `createdAt`. */
const tracked = (id: string, createdAt: string): RecordedEvent => ({
  id,
  streamId: `trackedEvent-${id}`,
  type: 'EventTracked',
  data: { name: 'signed-up', contactId: 'c1', email: 'ada@example.org', data: {} },
  metadata: { projectId: 'p1', correlationId: 'r', subjectId: 'c1' },
  revision: 0,
  position: 1,
  schemaVersion: 1,
  createdAt,
});

it('posts an endpoint the events since its creation, once each, not the history before', async () => {
  await platform.views.collection(WEBHOOK_ENDPOINTS).insertOne({
    _id: 'e1',
    projectId: 'p1',
    url: 'https://hooks.example.com/in',
    eventTypes: ['*'],
    description: null,
    enabled: true,
    secret: 'sealed',
    disabledReason: null,
    deleted: false,
    createdAt: '2026-06-01T12:00:00.000Z',
    updatedAt: '2026-06-01T12:00:00.000Z',
    revision: 0,
  });
  const now = Date.now();
  expect(
    await dispatchWebhooks(
      platform.views,
      tracked('00000000-0000-7000-8000-000000000001', '2026-06-01T11:59:59.999Z'),
      now,
    ),
  ).toBe(0);
  const later = tracked('00000000-0000-7000-8000-000000000002', '2026-06-01T12:00:00.001Z');
  expect(await dispatchWebhooks(platform.views, later, now)).toBe(1);
  // A redelivered event adds nothing.
  expect(await dispatchWebhooks(platform.views, later, now)).toBe(0);
  const deliveries = await platform.views.collection(WEBHOOK_DELIVERIES).find({});
  expect(deliveries.map((delivery) => delivery.eventId)).toEqual([later.id]);
});
