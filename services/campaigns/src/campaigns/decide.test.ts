/** Unit tests of the campaign deciders: given events / when command / then events. No I/O. */
import { thrownApiError } from '@stamp/testkit/api-error.ts';

import { foldCampaign } from './commands.ts';
import {
  decideCancel,
  decideCreate,
  decideDelete,
  decideDue,
  decideSend,
  decideUpdate,
  nextSendingStep,
  requireCampaign,
} from './decide.ts';
import type { CampaignEvent, CampaignFields, CampaignState, CampaignStatus } from './events.ts';

const NOW = new Date('2025-03-01T12:00:00.000Z');
const EARLIER = new Date('2025-02-28T12:00:00.000Z');
const LATER = new Date('2025-03-02T09:30:00.000Z');
const LATEST = new Date('2025-03-05T08:00:00.000Z');

const FIELDS: CampaignFields = {
  name: 'Spring sale',
  description: null,
  subject: 'Hello {{ contact.firstName }}',
  body: '<p>Spring is here</p>',
  from: 'news@example.com',
  fromName: 'Example',
  replyTo: null,
  audienceType: 'SEGMENT',
  segmentId: 'seg1',
  audienceFilter: null,
};
const EDITED: CampaignFields = { ...FIELDS, name: 'Summer sale', subject: 'Summer is here' };

const created = (fields: CampaignFields = FIELDS): CampaignEvent => ({
  type: 'CampaignCreated',
  data: { campaignId: 'c1', projectId: 'p1', ...fields, createdAt: EARLIER.toISOString() },
});
const scheduled = (timerId = 't1', at: Date = LATER): CampaignEvent => ({
  type: 'CampaignScheduled',
  data: { scheduledFor: at.toISOString(), timerId },
});
const sendingStarted = (): CampaignEvent => ({
  type: 'CampaignSendingStarted',
  data: { startedAt: EARLIER.toISOString() },
});
const audienceFixed = (batches: number, recipients = batches * 500): CampaignEvent => ({
  type: 'CampaignAudienceFixed',
  data: { recipients, batches },
});
const batchQueued = (batch: number): CampaignEvent => ({
  type: 'CampaignBatchQueued',
  data: { batch, queued: 500, existing: 0, skipped: 0 },
});
const cancelled = (): CampaignEvent => ({
  type: 'CampaignCancelled',
  data: { cancelledAt: EARLIER.toISOString(), reason: null },
});
const sent = (): CampaignEvent => ({
  type: 'CampaignSent',
  data: { sentAt: EARLIER.toISOString(), recipients: 500 },
});
const deleted = (): CampaignEvent => ({
  type: 'CampaignDeleted',
  data: { deletedAt: EARLIER.toISOString() },
});

const given = (...events: CampaignEvent[]): CampaignState => foldCampaign(events);

/** A history that leaves the campaign in each status. */
const HISTORIES: Record<CampaignStatus, () => CampaignEvent[]> = {
  DRAFT: () => [created()],
  SCHEDULED: () => [created(), scheduled()],
  SENDING: () => [created(), scheduled(), sendingStarted()],
  SENT: () => [created(), sendingStarted(), audienceFixed(1), batchQueued(0), sent()],
  CANCELLED: () => [created(), scheduled(), cancelled()],
};
const inStatus = (status: CampaignStatus): CampaignState => given(...HISTORIES[status]());

/** The status of a state, failing the test when the campaign does not exist. */
const statusOf = (state: CampaignState): CampaignStatus => requireCampaign(state, 'p1').status;

describe('the given histories', () => {
  it.each(Object.keys(HISTORIES) as CampaignStatus[])('fold into a %s campaign', (status) => {
    expect(statusOf(inStatus(status))).toBe(status);
  });
});

describe('decideCreate', () => {
  it('records a DRAFT campaign with its fields', () => {
    const events = decideCreate({ campaignId: 'c1', projectId: 'p1', fields: FIELDS }, NOW);
    expect(events).toEqual([
      {
        type: 'CampaignCreated',
        data: {
          campaignId: 'c1',
          projectId: 'p1',
          name: 'Spring sale',
          description: null,
          subject: 'Hello {{ contact.firstName }}',
          body: '<p>Spring is here</p>',
          from: 'news@example.com',
          fromName: 'Example',
          replyTo: null,
          audienceType: 'SEGMENT',
          segmentId: 'seg1',
          audienceFilter: null,
          createdAt: NOW.toISOString(),
        },
      },
    ]);
    expect(foldCampaign(events)).toMatchObject({
      exists: true,
      deleted: false,
      id: 'c1',
      projectId: 'p1',
      status: 'DRAFT',
      fields: FIELDS,
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
      scheduledFor: null,
      timerId: null,
      batches: null,
      batchesQueued: 0,
    });
  });
});

describe('decideUpdate', () => {
  it.each<CampaignStatus>(['DRAFT', 'SCHEDULED'])(
    'replaces the fields of a %s campaign',
    (status) => {
      const state = inStatus(status);
      const events = decideUpdate(state, 'p1', EDITED, NOW);
      expect(events).toEqual([
        { type: 'CampaignUpdated', data: { ...EDITED, updatedAt: NOW.toISOString() } },
      ]);
      const after = requireCampaign(foldCampaign(events, state), 'p1');
      expect(after.fields).toEqual(EDITED);
      expect(after.updatedAt).toBe(NOW.toISOString());
      expect(after.status).toBe(status);
    },
  );

  it('keeps the schedule of a SCHEDULED campaign', () => {
    const state = inStatus('SCHEDULED');
    const after = requireCampaign(
      foldCampaign(decideUpdate(state, 'p1', EDITED, NOW), state),
      'p1',
    );
    expect(after).toMatchObject({ scheduledFor: LATER.toISOString(), timerId: 't1' });
  });

  it('records nothing when the fields are the same', () => {
    expect(decideUpdate(inStatus('DRAFT'), 'p1', { ...FIELDS }, NOW)).toEqual([]);
    expect(decideUpdate(inStatus('SCHEDULED'), 'p1', { ...FIELDS }, NOW)).toEqual([]);
    const edited = given(created(), {
      type: 'CampaignUpdated',
      data: { ...EDITED, updatedAt: EARLIER.toISOString() },
    });
    expect(decideUpdate(edited, 'p1', { ...EDITED }, NOW)).toEqual([]);
    expect(decideUpdate(edited, 'p1', FIELDS, NOW)).toHaveLength(1);
  });

  it('records a change of a single nullable field', () => {
    expect(
      decideUpdate(inStatus('DRAFT'), 'p1', { ...FIELDS, replyTo: 'r@example.com' }, NOW),
    ).toEqual([
      {
        type: 'CampaignUpdated',
        data: { ...FIELDS, replyTo: 'r@example.com', updatedAt: NOW.toISOString() },
      },
    ]);
  });

  it.each<CampaignStatus>(['SENDING', 'SENT', 'CANCELLED'])(
    'refuses a %s campaign with a 409 naming its state',
    (status) => {
      const error = thrownApiError(() => decideUpdate(inStatus(status), 'p1', EDITED, NOW));
      expect(error.status).toBe(409);
      expect(error.code).toBe('CONFLICT');
      expect(error.message).toContain(status);
    },
  );

  it('answers 404 for an unknown, a deleted or another project’s campaign', () => {
    const cases: [CampaignState, string][] = [
      [given(), 'p1'],
      [given(created(), deleted()), 'p1'],
      [inStatus('DRAFT'), 'p2'],
    ];
    for (const [state, projectId] of cases) {
      const error = thrownApiError(() => decideUpdate(state, projectId, EDITED, NOW));
      expect(error.status).toBe(404);
      expect(error.code).toBe('CAMPAIGN_NOT_FOUND');
    }
  });
});

describe('decideDelete', () => {
  it.each<CampaignStatus>(['SCHEDULED', 'SENDING'])(
    'refuses a %s campaign with a 409 naming its state',
    (status) => {
      const error = thrownApiError(() => decideDelete(inStatus(status), 'p1', NOW));
      expect(error.status).toBe(409);
      expect(error.code).toBe('CONFLICT');
      expect(error.message).toContain(status);
    },
  );

  it.each<CampaignStatus>(['DRAFT', 'SENT', 'CANCELLED'])('deletes a %s campaign', (status) => {
    expect(decideDelete(inStatus(status), 'p1', NOW)).toEqual([
      { type: 'CampaignDeleted', data: { deletedAt: NOW.toISOString() } },
    ]);
  });

  it('leaves a campaign that is not found anymore', () => {
    const state = inStatus('DRAFT');
    const after = foldCampaign(decideDelete(state, 'p1', NOW), state);
    const error = thrownApiError(() => requireCampaign(after, 'p1'));
    expect(error.status).toBe(404);
    expect(error.code).toBe('CAMPAIGN_NOT_FOUND');
    expect(error.message).toBe('Campaign not found');
    expect(thrownApiError(() => decideDelete(after, 'p1', NOW)).code).toBe('CAMPAIGN_NOT_FOUND');
  });

  it('answers 404 for another project’s campaign', () => {
    expect(thrownApiError(() => decideDelete(inStatus('DRAFT'), 'p2', NOW)).status).toBe(404);
  });
});

describe('decideSend', () => {
  it('schedules a DRAFT campaign at a later time, with the timer', () => {
    const state = inStatus('DRAFT');
    const events = decideSend(state, 'p1', { scheduledFor: LATER, timerId: 't9' }, NOW);
    expect(events).toEqual([
      { type: 'CampaignScheduled', data: { scheduledFor: LATER.toISOString(), timerId: 't9' } },
    ]);
    expect(foldCampaign(events, state)).toMatchObject({
      status: 'SCHEDULED',
      scheduledFor: LATER.toISOString(),
      timerId: 't9',
    });
  });

  it.each<[string, Date | null]>([
    ['without a time', null],
    ['at a past time', EARLIER],
    ['at the current time', NOW],
  ])('starts sending a DRAFT campaign sent %s', (_, scheduledFor) => {
    const state = inStatus('DRAFT');
    const events = decideSend(state, 'p1', { scheduledFor, timerId: 't9' }, NOW);
    expect(events).toEqual([
      { type: 'CampaignSendingStarted', data: { startedAt: NOW.toISOString() } },
    ]);
    expect(foldCampaign(events, state)).toMatchObject({
      status: 'SENDING',
      startedAt: NOW.toISOString(),
      timerId: null,
    });
  });

  it('reschedules a SCHEDULED campaign with a new timer', () => {
    const state = inStatus('SCHEDULED');
    const events = decideSend(state, 'p1', { scheduledFor: LATEST, timerId: 't2' }, NOW);
    expect(events).toEqual([
      { type: 'CampaignScheduled', data: { scheduledFor: LATEST.toISOString(), timerId: 't2' } },
    ]);
    expect(foldCampaign(events, state)).toMatchObject({
      status: 'SCHEDULED',
      scheduledFor: LATEST.toISOString(),
      timerId: 't2',
    });
  });

  it('sends a SCHEDULED campaign now when sent without a time', () => {
    expect(
      decideSend(inStatus('SCHEDULED'), 'p1', { scheduledFor: null, timerId: 't2' }, NOW),
    ).toEqual([{ type: 'CampaignSendingStarted', data: { startedAt: NOW.toISOString() } }]);
  });

  it.each<CampaignStatus>(['SENDING', 'SENT', 'CANCELLED'])(
    'refuses a %s campaign with a 409 naming its state',
    (status) => {
      const error = thrownApiError(() =>
        decideSend(inStatus(status), 'p1', { scheduledFor: LATER, timerId: 't9' }, NOW),
      );
      expect(error.status).toBe(409);
      expect(error.code).toBe('CONFLICT');
      expect(error.message).toContain(status);
    },
  );

  it('answers 404 for a deleted or another project’s campaign', () => {
    const send = { scheduledFor: null, timerId: 't9' };
    expect(thrownApiError(() => decideSend(inStatus('DRAFT'), 'p2', send, NOW)).code).toBe(
      'CAMPAIGN_NOT_FOUND',
    );
    expect(
      thrownApiError(() => decideSend(given(created(), deleted()), 'p1', send, NOW)).status,
    ).toBe(404);
  });
});

describe('decideCancel', () => {
  it.each<CampaignStatus>(['SCHEDULED', 'SENDING'])('cancels a %s campaign', (status) => {
    const state = inStatus(status);
    const events = decideCancel(state, 'p1', NOW);
    expect(events).toEqual([
      { type: 'CampaignCancelled', data: { cancelledAt: NOW.toISOString(), reason: null } },
    ]);
    expect(foldCampaign(events, state)).toMatchObject({
      status: 'CANCELLED',
      cancelledAt: NOW.toISOString(),
      timerId: null,
    });
  });

  it('records the reason of a cancellation by the platform', () => {
    expect(decideCancel(inStatus('SENDING'), 'p1', NOW, 'Segment seg1 is gone')).toEqual([
      {
        type: 'CampaignCancelled',
        data: { cancelledAt: NOW.toISOString(), reason: 'Segment seg1 is gone' },
      },
    ]);
  });

  it.each<CampaignStatus>(['DRAFT', 'SENT', 'CANCELLED'])(
    'refuses a %s campaign with a 409 naming its state',
    (status) => {
      const error = thrownApiError(() => decideCancel(inStatus(status), 'p1', NOW));
      expect(error.status).toBe(409);
      expect(error.code).toBe('CONFLICT');
      expect(error.message).toContain(status);
    },
  );

  it('answers 404 for another project’s campaign', () => {
    expect(thrownApiError(() => decideCancel(inStatus('SCHEDULED'), 'p2', NOW)).code).toBe(
      'CAMPAIGN_NOT_FOUND',
    );
  });
});

describe('decideDue', () => {
  it('starts sending a campaign SCHEDULED by that timer', () => {
    const state = inStatus('SCHEDULED');
    const events = decideDue(state, 't1', NOW);
    expect(events).toEqual([
      { type: 'CampaignSendingStarted', data: { startedAt: NOW.toISOString() } },
    ]);
    expect(statusOf(foldCampaign(events, state))).toBe('SENDING');
  });

  it('ignores the timer of a replaced schedule', () => {
    const state = given(created(), scheduled('t1'), scheduled('t2', LATEST));
    expect(decideDue(state, 't1', NOW)).toEqual([]);
    expect(decideDue(state, 't2', NOW)).toHaveLength(1);
  });

  it('ignores a timer once the campaign is cancelled, sending, sent or deleted', () => {
    expect(decideDue(inStatus('CANCELLED'), 't1', NOW)).toEqual([]);
    expect(decideDue(inStatus('SENDING'), 't1', NOW)).toEqual([]);
    expect(decideDue(given(created(), scheduled(), sendingStarted(), sent()), 't1', NOW)).toEqual(
      [],
    );
    expect(decideDue(given(created(), scheduled(), deleted()), 't1', NOW)).toEqual([]);
  });

  it('ignores a timer of a campaign that does not exist or is a DRAFT', () => {
    expect(decideDue(given(), 't1', NOW)).toEqual([]);
    expect(decideDue(inStatus('DRAFT'), 't1', NOW)).toEqual([]);
  });
});

describe('nextSendingStep', () => {
  it.each<CampaignStatus>(['DRAFT', 'SCHEDULED', 'SENT', 'CANCELLED'])(
    'has nothing to do for a %s campaign',
    (status) => {
      expect(nextSendingStep(inStatus(status))).toEqual({ kind: 'none' });
    },
  );

  it('has nothing to do for an unknown or a deleted campaign', () => {
    expect(nextSendingStep(given())).toEqual({ kind: 'none' });
    expect(nextSendingStep(given(created(), sendingStarted(), deleted()))).toEqual({
      kind: 'none',
    });
  });

  it('fixes the audience of a SENDING campaign first', () => {
    expect(nextSendingStep(inStatus('SENDING'))).toEqual({ kind: 'fixAudience' });
  });

  it('queues the batches in order, then finishes', () => {
    const history = [...HISTORIES.SENDING(), audienceFixed(3)];
    expect(nextSendingStep(given(...history))).toEqual({ kind: 'queueBatch', batch: 0 });
    expect(nextSendingStep(given(...history, batchQueued(0)))).toEqual({
      kind: 'queueBatch',
      batch: 1,
    });
    expect(nextSendingStep(given(...history, batchQueued(0), batchQueued(1)))).toEqual({
      kind: 'queueBatch',
      batch: 2,
    });
    expect(
      nextSendingStep(given(...history, batchQueued(0), batchQueued(1), batchQueued(2))),
    ).toEqual({ kind: 'finish' });
  });

  it('finishes at once with an empty audience', () => {
    expect(nextSendingStep(given(...HISTORIES.SENDING(), audienceFixed(0, 0)))).toEqual({
      kind: 'finish',
    });
  });

  it('stops once the campaign is cancelled while sending', () => {
    const state = given(...HISTORIES.SENDING(), audienceFixed(3), batchQueued(0), cancelled());
    expect(nextSendingStep(state)).toEqual({ kind: 'none' });
  });
});

describe('evolve', () => {
  it('counts batches queued as the last batch + 1 and keeps the audience', () => {
    const state = given(...HISTORIES.SENDING(), audienceFixed(5, 2345), batchQueued(0));
    expect(state).toMatchObject({ recipients: 2345, batches: 5, batchesQueued: 1 });
    expect(foldCampaign([batchQueued(3)], state)).toMatchObject({ batchesQueued: 4 });
  });

  it('gives the same state when the events are folded again', () => {
    const events: CampaignEvent[] = [
      created(),
      { type: 'CampaignUpdated', data: { ...EDITED, updatedAt: EARLIER.toISOString() } },
      scheduled('t1'),
      scheduled('t2', LATEST),
      { type: 'CampaignSendDue', data: { timerId: 't2' } },
      sendingStarted(),
      audienceFixed(2),
      batchQueued(0),
      batchQueued(1),
      sent(),
    ];
    const once = foldCampaign(events);
    expect(foldCampaign(events)).toEqual(once);
    expect(foldCampaign(JSON.parse(JSON.stringify(events)) as CampaignEvent[])).toEqual(once);
    expect(once).toMatchObject({
      status: 'SENT',
      fields: EDITED,
      scheduledFor: LATEST.toISOString(),
      timerId: null,
      batches: 2,
      batchesQueued: 2,
      sentAt: EARLIER.toISOString(),
    });
  });

  it('skips events of other types and events before the campaign exists', () => {
    const state = inStatus('DRAFT');
    expect(foldCampaign([{ type: 'SegmentCreated', data: {} }], state)).toEqual(state);
    expect(foldCampaign([sendingStarted(), scheduled()])).toEqual({ exists: false });
  });
});
