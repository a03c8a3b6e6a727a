import {
  createLogger,
  type EmbeddedPlatform,
  openEmbeddedPlatform,
  type RecordedEvent,
} from '@stamp/platform';

import { countRange, dayCounters, hourCounters, projectTotals } from './counters.ts';
import { contactEvent, emailEvent, queuedData, trackedEvent } from './fixtures.ts';
import {
  activityItems,
  activityStats,
  createActivityIndexes,
  dropActivityViews,
  erasedContacts,
} from './items.ts';
import { projectActivity, projectActivityBatch } from './projection.ts';

let platform: EmbeddedPlatform;

beforeEach(async () => {
  platform = openEmbeddedPlatform({
    dataDir: ':memory:',
    logger: createLogger({ level: 'silent' }),
  });
  await createActivityIndexes(platform.views);
});

afterEach(async () => {
  await platform.close();
});

const project = async (events: readonly RecordedEvent[]): Promise<void> => {
  for (const event of events) await projectActivity(platform.views, event);
};

const snapshot = async (): Promise<unknown> => ({
  items: await activityItems(platform.views).find({}, { sort: { _id: 1 } }),
  stats: await activityStats(platform.views).find({}, { sort: { _id: 1 } }),
  erased: await erasedContacts(platform.views).find({}, { sort: { _id: 1 } }),
});

/** A day of activity of contacts c1 and c2 of project p1, and c9 of project p2. */
const history = (): RecordedEvent[] => [
  trackedEvent(
    { name: 'signed-up', contactId: 'c1', data: { plan: 'pro' } },
    { at: '2025-03-01T10:00:00.000Z', id: 't1' },
  ),
  emailEvent('m1', 'EmailQueued', queuedData('m1', 'c1', 'Welcome', 'tpl1'), {
    at: '2025-03-01T10:05:00.000Z',
    id: 'q1',
  }),
  emailEvent(
    'm1',
    'EmailSent',
    { messageId: '<1@x>', response: '250 OK', transport: 'smtp', sentAt: '' },
    { at: '2025-03-01T10:05:01.000Z', id: 's1', revision: 1 },
  ),
  emailEvent('m2', 'EmailQueued', queuedData('m2', 'c2', 'Receipt'), {
    at: '2025-03-01T11:00:00.000Z',
    id: 'q2',
  }),
  emailEvent(
    'm2',
    'EmailFailed',
    { error: '550 <c2@example.org> unknown', failedAt: '' },
    { at: '2025-03-01T11:00:02.000Z', id: 'f2', revision: 1 },
  ),
  contactEvent('c2', 'ContactUnsubscribed', { at: '2025-03-02T09:00:00.000Z', id: 'u2' }),
  contactEvent('c9', 'ContactSubscribed', {
    at: '2025-03-02T09:30:00.000Z',
    id: 'x9',
    projectId: 'p2',
  }),
];

describe('activity projection', () => {
  it('writes one item per activity with no email address, and the counters', async () => {
    await project(history());
    const items = activityItems(platform.views);
    expect(await items.findOne({ _id: 's1' })).toEqual({
      _id: 's1',
      projectId: 'p1',
      type: 'email.delivered',
      contactId: 'c1',
      emailId: 'm1',
      at: '2025-03-01T10:05:01.000Z',
      minute: '2025-03-01T10:05',
      data: { subject: 'Welcome', templateId: 'tpl1' },
    });
    expect(await items.findOne({ _id: 'f2' })).toMatchObject({
      type: 'email.bounced',
      contactId: 'c2',
      data: { subject: 'Receipt', error: '550 <[address]> unknown' },
    });
    expect(JSON.stringify(await items.find({}))).not.toContain('@example.org');

    const totals = await projectTotals(platform.views, 'p1');
    expect(totals).toMatchObject({
      total: 6,
      firstDay: '2025-03-01',
      lastDay: '2025-03-02',
      counts: {
        event_triggered: 1,
        email_sent: 2,
        email_delivered: 1,
        email_bounced: 1,
        contact_unsubscribed: 1,
      },
    });
    expect(await dayCounters(platform.views, 'p1', '2025-03-01')).toMatchObject({ total: 5 });
    expect(await hourCounters(platform.views, 'p1', '2025-03-01T10')).toMatchObject({
      total: 3,
    });
    expect(await projectTotals(platform.views, 'p2')).toMatchObject({
      total: 1,
      counts: { contact_subscribed: 1 },
    });
  });

  it('is idempotent: replaying every event changes nothing', async () => {
    const events = history();
    await project(events);
    const before = await snapshot();
    await project(events);
    await project([...events].reverse());
    expect(await snapshot()).toEqual(before);
  });

  it('drops an outcome whose email has no queued item', async () => {
    await project([
      emailEvent(
        'gone',
        'EmailSent',
        { messageId: '<1@x>', response: '250', transport: 'outbox', sentAt: '' },
        { at: '2025-03-01T10:00:00.000Z', id: 'lonely' },
      ),
    ]);
    expect(await activityItems(platform.views).countDocuments({})).toBe(0);
    expect(await projectTotals(platform.views, 'p1')).toBeNull();
  });

  it('skips erased events', async () => {
    await project([
      trackedEvent(
        { name: 'x', contactId: 'c1' },
        { at: '2025-03-01T10:00:00.000Z', erased: true },
      ),
      contactEvent('c1', 'ContactSubscribed', { at: '2025-03-01T10:00:00.000Z', erased: true }),
    ]);
    expect(await activityItems(platform.views).countDocuments({})).toBe(0);
  });

  it('on ContactDeleted removes the contact’s items, moves the counters back, and refuses later items', async () => {
    await project(history());
    await project([contactEvent('c1', 'ContactDeleted', { at: '2025-03-03T00:00:00.000Z' })]);
    const items = activityItems(platform.views);
    expect(await items.countDocuments({ contactId: 'c1' })).toBe(0);
    expect(await items.countDocuments({ contactId: 'c2' })).toBe(3);
    expect(await projectTotals(platform.views, 'p1')).toMatchObject({
      total: 3,
      counts: { event_triggered: 0, email_sent: 1, email_delivered: 0 },
    });
    expect(await hourCounters(platform.views, 'p1', '2025-03-01T10')).toMatchObject({ total: 0 });

    // A tracked event of the deleted contact handled after the deletion (another stream).
    await project([
      trackedEvent({ name: 'late', contactId: 'c1' }, { at: '2025-03-02T23:59:00.000Z' }),
    ]);
    expect(await items.countDocuments({ contactId: 'c1' })).toBe(0);
    expect(await projectTotals(platform.views, 'p1')).toMatchObject({ total: 3 });
  });

  it('stays consistent when a deletion and an insert of the same contact run concurrently', async () => {
    await project(history());
    const late = trackedEvent(
      { name: 'late', contactId: 'c2' },
      { at: '2025-03-02T10:00:00.000Z' },
    );
    await Promise.all([
      projectActivity(platform.views, late),
      projectActivity(
        platform.views,
        contactEvent('c2', 'ContactDeleted', { at: '2025-03-02T10:00:00.000Z' }),
      ),
    ]);
    expect(await activityItems(platform.views).countDocuments({ contactId: 'c2' })).toBe(0);
    expect(await projectTotals(platform.views, 'p1')).toMatchObject({ total: 3 });
    expect(await countRange(platform.views, 'p1', {})).toBe(3);
  });

  it('gives the same views from batches of any size as from one event at a time', async () => {
    const events = [
      ...history(),
      trackedEvent({ name: 'late', contactId: 'c2' }, { at: '2025-03-02T10:00:00.000Z' }),
      contactEvent('c2', 'ContactDeleted', { at: '2025-03-04T00:00:00.000Z', revision: 2 }),
      trackedEvent({ name: 'after', contactId: 'c2' }, { at: '2025-03-04T01:00:00.000Z' }),
      contactEvent('c1', 'ContactSubscribed', { at: '2025-03-04T02:00:00.000Z', id: 'u1' }),
    ];
    await project(events);
    const oneByOne = await snapshot();
    for (const size of [2, 3, events.length]) {
      await dropActivityViews(platform.views);
      for (let start = 0; start < events.length; start += size) {
        await projectActivityBatch(platform.views, events.slice(start, start + size));
      }
      expect(await snapshot()).toEqual(oneByOne);
      // A batch handled again (a retry after a crash) changes nothing.
      await projectActivityBatch(platform.views, events);
      expect(await snapshot()).toEqual(oneByOne);
    }
  });

  it('rebuilds the same views from the log after a drop', async () => {
    const events = [
      ...history(),
      contactEvent('c2', 'ContactDeleted', { at: '2025-03-04T00:00:00.000Z', revision: 2 }),
    ];
    await project(events);
    const before = await snapshot();
    await dropActivityViews(platform.views);
    expect(await activityItems(platform.views).countDocuments({})).toBe(0);
    await project(events);
    expect(await snapshot()).toEqual(before);
  });
});

describe('countRange', () => {
  it('counts exactly over ranges cut at days, hours and milliseconds', async () => {
    await project(history());
    const count = (from?: string, to?: string, type?: 'email.sent'): Promise<number> =>
      countRange(platform.views, 'p1', {
        type,
        from: from === undefined ? undefined : Date.parse(from),
        to: to === undefined ? undefined : Date.parse(to),
      });
    expect(await count()).toBe(6);
    expect(await count(undefined, undefined, 'email.sent')).toBe(2);
    expect(await count('2025-03-01T00:00:00.000Z', '2025-03-01T23:59:59.999Z')).toBe(5);
    expect(await count('2025-03-01T10:05:00.000Z')).toBe(5);
    expect(await count('2025-03-01T10:05:00.001Z')).toBe(4);
    expect(await count(undefined, '2025-03-01T10:05:00.000Z')).toBe(2);
    expect(await count('2025-03-01T10:05:00.000Z', '2025-03-01T11:00:00.000Z', 'email.sent')).toBe(
      2,
    );
    expect(await count('2025-03-02T00:00:00.000Z')).toBe(1);
    expect(await count('2030-01-01T00:00:00.000Z')).toBe(0);
    expect(await count('2025-03-01T12:00:00.000Z', '2025-03-01T11:00:00.000Z')).toBe(0);
    expect(await countRange(platform.views, 'nobody', {})).toBe(0);
  });
});
