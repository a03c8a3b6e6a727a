import {
  BILLING_CATEGORY_METADATA,
  BILLING_USAGE_VIEW,
  type BillingLimits,
  NO_BILLING_LIMITS,
} from '@stamp/contracts';
import { ApiError } from '@stamp/http-kit';
import {
  type Consumer,
  createLogger,
  type EmbeddedPlatform,
  newId,
  openEmbeddedPlatform,
} from '@stamp/platform';

import { type BillingGuard, createBillingGuard } from './guard.ts';
import {
  BILLING_TOPICS,
  billingProjection,
  periodBefore,
  SENDING_BILLING_GROUP,
} from './projection.ts';

let platform: EmbeddedPlatform;
let projection: Consumer;
let guard: BillingGuard;
let revision = -1;

beforeEach(() => {
  platform = openEmbeddedPlatform({
    dataDir: ':memory:',
    logger: createLogger({ level: 'silent' }),
    pollMs: 5,
  });
  projection = platform.bus.consume({
    groupId: SENDING_BILLING_GROUP,
    topics: BILLING_TOPICS,
    handle: billingProjection(platform.views),
  });
  guard = createBillingGuard({ views: platform.views, projection: () => projection });
  revision = -1;
});

afterEach(async () => {
  await projection.stop();
  await platform.close();
});

/** Records caps for project p1 and waits for the projection. */
async function capsOf(limits: Partial<BillingLimits>): Promise<void> {
  const all = { ...NO_BILLING_LIMITS, ...limits };
  const { position } = await platform.store.append([
    {
      streamId: 'project-p1',
      expectedRevision: revision < 0 ? 'no_stream' : revision,
      events: [
        {
          type: 'BillingLimitsChanged',
          data: { limits: all, manual: all, plan: null, source: 'MANUAL', changedAt: '' },
          metadata: { projectId: 'p1' },
        },
      ],
    },
  ]);
  revision += 1;
  expect(await projection.waitFor(position, 5000)).toBe(true);
}

/** Appends `count` accepted emails of `category` for p1; answers the log position. */
async function queue(count: number, category: string): Promise<number> {
  const appends = Array.from({ length: count }, () => {
    const emailId = newId();
    return {
      streamId: `email-${emailId}`,
      expectedRevision: 'no_stream' as const,
      events: [
        {
          type: 'EmailQueued',
          data: { emailId },
          metadata: { projectId: 'p1', [BILLING_CATEGORY_METADATA]: category },
        },
      ],
    };
  });
  return (await platform.store.append(appends)).position;
}

const refusal = async (promise: Promise<unknown>): Promise<ApiError> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

it('grants everything without a cap', async () => {
  expect((await guard.reserve('p1', 'transactional', 1000)).granted).toBe(1000);
  expect(await guard.allows('p1', 'inbound')).toBe(true);
});

it('never lets concurrent reservations pass the cap, and keeps them until the emails are counted', async () => {
  await capsOf({ transactional: 3 });
  const results = await Promise.allSettled(
    Array.from({ length: 10 }, () => guard.reserve('p1', 'transactional', 1)),
  );
  const granted = results.filter((result) => result.status === 'fulfilled');
  expect(granted).toHaveLength(3);
  const refused = results.find((result) => result.status === 'rejected');
  expect(refused?.status === 'rejected' && refused.reason).toMatchObject({
    status: 402,
    code: 'BILLING_LIMIT_EXCEEDED',
  });

  const position = await queue(3, 'transactional');
  for (const result of granted) if (result.status === 'fulfilled') result.value.settle(position);
  expect(await projection.waitFor(position, 5000)).toBe(true);
  // Counted by the view now: still no room, and the held reservations are gone.
  expect((await refusal(guard.reserve('p1', 'transactional', 1))).status).toBe(402);
  const usage = await platform.views.collection(BILLING_USAGE_VIEW).find({});
  expect(usage).toEqual([
    expect.objectContaining({ projectId: 'p1', transactional: 3 }) as unknown,
  ]);
  await capsOf({ transactional: 4 });
  expect((await guard.reserve('p1', 'transactional', 1)).granted).toBe(1);
});

it('grants part of a batch with partial, and gives the refusal of the rest', async () => {
  await capsOf({ campaigns: 5 });
  const reservation = await guard.reserve('p1', 'campaigns', 8, { partial: true });
  expect(reservation.granted).toBe(5);
  expect(reservation.shortfall).toMatchObject({
    status: 402,
    options: { details: { category: 'campaigns', limit: 5, requested: 3 } },
  });
  expect(await guard.allows('p1', 'campaigns')).toBe(false);
  // Two were appended, three never: those are released at once.
  reservation.settle(await queue(2, 'campaigns'), 2);
  expect((await guard.reserve('p1', 'campaigns', 3)).granted).toBe(3);
});

it('releases a reservation whose emails were never appended', async () => {
  await capsOf({ workflows: 1 });
  const first = await guard.reserve('p1', 'workflows', 1);
  expect((await refusal(guard.reserve('p1', 'workflows', 1))).status).toBe(402);
  first.release();
  first.release();
  expect((await guard.reserve('p1', 'workflows', 1)).granted).toBe(1);
});

it('counts an email once, however often its event is delivered', async () => {
  const handle = billingProjection(platform.views);
  const event = {
    id: newId(),
    streamId: 'email-e1',
    revision: 0,
    position: 1,
    type: 'EmailQueued',
    schemaVersion: 1,
    // Erased with its contact: the metadata still names the category.
    data: {},
    erased: true,
    metadata: { projectId: 'p2', [BILLING_CATEGORY_METADATA]: 'workflows' },
    createdAt: '2025-03-31T23:59:59.999Z',
  };
  await handle(event);
  await handle(event);
  const usage = await platform.views.collection(BILLING_USAGE_VIEW).findOne({ _id: 'p2:2025-03' });
  expect(usage).toMatchObject({ projectId: 'p2', period: '2025-03', workflows: 1 });
});

describe('periodBefore', () => {
  it('steps back over year boundaries', () => {
    expect(periodBefore('2026-03', 2)).toBe('2026-01');
    expect(periodBefore('2026-01', 2)).toBe('2025-11');
    expect(periodBefore('2026-12', 0)).toBe('2026-12');
  });
});
