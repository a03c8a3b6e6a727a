import { type BillingLimits, NO_BILLING_LIMITS } from '@stamp/contracts';
import { ApiError } from '@stamp/http-kit';

import {
  evolveProject,
  initialProjectState,
  type ProjectEvent,
  type ProjectState,
} from '../projects/events.ts';
import { applySubscription, limitsInForce, setLimits, type SubscriptionReport } from './decide.ts';

const NOW = new Date('2025-03-10T12:00:00.000Z');
const created: ProjectEvent = { type: 'ProjectCreated', data: { name: 'Acme', ownerId: 'u1' } };

const given = (...events: ProjectEvent[]): ProjectState =>
  events.reduce(evolveProject, initialProjectState);

/** The state after `events`, each applied through the decider's own output. */
const after = (state: ProjectState, events: readonly ProjectEvent[]): ProjectState =>
  events.reduce(evolveProject, state);

const PRO: BillingLimits = {
  transactional: 50_000,
  campaigns: 100_000,
  workflows: null,
  inbound: 10,
};
const PLANS = { price_pro: PRO };

const report = (overrides: Partial<SubscriptionReport> = {}): SubscriptionReport => ({
  provider: 'stripe',
  eventId: 'evt_1',
  eventType: 'customer.subscription.created',
  eventCreatedAt: '2025-03-10T11:00:00.000Z',
  customerId: 'cus_1',
  subscriptionId: 'sub_1',
  priceId: 'price_pro',
  status: 'active',
  ...overrides,
});

describe('setLimits', () => {
  it('given a project without caps, when a cap is set, then BillingLimitsChanged with it in force', () => {
    const events = setLimits(given(created), { transactional: 5 }, NOW);
    const manual = { ...NO_BILLING_LIMITS, transactional: 5 };
    expect(events).toEqual([
      {
        type: 'BillingLimitsChanged',
        data: {
          limits: manual,
          manual,
          plan: null,
          source: 'MANUAL',
          changedAt: NOW.toISOString(),
        },
      },
    ]);
  });

  it('keeps the categories not named, removes a cap with null, and decides nothing for no change', () => {
    const first = given(created);
    const capped = after(first, setLimits(first, { transactional: 5, inbound: 2 }, NOW));
    const lifted = setLimits(capped, { transactional: null }, NOW);
    expect(lifted[0]?.data).toMatchObject({
      manual: { transactional: null, campaigns: null, workflows: null, inbound: 2 },
    });
    expect(setLimits(capped, { inbound: 2 }, NOW)).toEqual([]);
  });

  it('never lets caps set by hand pass the plan', () => {
    const subscribed = after(
      given(created),
      applySubscription(given(created), report(), PLANS, NOW),
    );
    const [changed] = setLimits(subscribed, { transactional: 60_000, campaigns: 10 }, NOW);
    expect(changed?.type === 'BillingLimitsChanged' && changed.data.limits).toEqual({
      ...PRO,
      campaigns: 10,
    });
  });

  it('refuses an unknown or deleted project with 404', () => {
    expect(() => setLimits(given(), { transactional: 1 }, NOW)).toThrow(ApiError);
    const deleted = given(created, { type: 'ProjectDeleted', data: { deletedAt: '' } });
    expect(() => setLimits(deleted, { transactional: 1 }, NOW)).toThrow(
      expect.objectContaining({ status: 404 }) as Error,
    );
  });
});

describe('applySubscription', () => {
  it('given caps set by hand, when a plan becomes active, then the lower cap of each category applies', () => {
    const manual = given(created);
    const capped = after(manual, setLimits(manual, { inbound: 5, workflows: 7 }, NOW));
    const events = applySubscription(capped, report(), PLANS, NOW);
    expect(events.map((event) => event.type)).toEqual([
      'BillingSubscriptionChanged',
      'BillingLimitsChanged',
    ]);
    const state = after(capped, events);
    expect(state.billing.limits).toEqual({ ...PRO, inbound: 5, workflows: 7 });
    expect(state.billing.subscription).toMatchObject({ customerId: 'cus_1', active: true });
  });

  it('when the subscription ends, then the caps set by hand apply again', () => {
    const manual = given(created);
    const capped = after(manual, setLimits(manual, { transactional: 3 }, NOW));
    const subscribed = after(capped, applySubscription(capped, report(), PLANS, NOW));
    const ended = applySubscription(
      subscribed,
      report({
        eventId: 'evt_2',
        eventType: 'customer.subscription.deleted',
        eventCreatedAt: '2025-03-10T11:30:00.000Z',
        status: 'canceled',
      }),
      PLANS,
      NOW,
    );
    const state = after(subscribed, ended);
    expect(state.billing.plan).toBeNull();
    expect(state.billing.limits).toEqual({ ...NO_BILLING_LIMITS, transactional: 3 });
    expect(ended[1]?.data).toMatchObject({ source: 'SUBSCRIPTION' });
  });

  it('decides nothing for a report recorded before, an older one, or another subscription ending', () => {
    const subscribed = after(
      given(created),
      applySubscription(given(created), report(), PLANS, NOW),
    );
    expect(applySubscription(subscribed, report(), PLANS, NOW)).toEqual([]);
    const older = report({
      eventId: 'evt_0',
      eventCreatedAt: '2025-03-10T10:00:00.000Z',
      status: 'canceled',
    });
    expect(applySubscription(subscribed, older, PLANS, NOW)).toEqual([]);
    const other = report({ eventId: 'evt_3', subscriptionId: 'sub_old', status: 'canceled' });
    expect(applySubscription(subscribed, other, PLANS, NOW)).toEqual([]);
    expect(applySubscription(given(), report(), PLANS, NOW)).toEqual([]);
  });

  it('records a subscription of an unknown price without changing the caps', () => {
    const events = applySubscription(given(created), report({ priceId: 'price_x' }), PLANS, NOW);
    expect(events.map((event) => event.type)).toEqual(['BillingSubscriptionChanged']);
  });

  it('takes the lower cap per category, null being no cap', () => {
    expect(
      limitsInForce(
        { transactional: null, campaigns: 5, workflows: 9, inbound: null },
        { transactional: 4, campaigns: 6, workflows: null, inbound: null },
      ),
    ).toEqual({ transactional: 4, campaigns: 5, workflows: 9, inbound: null });
  });
});
