/** Unit tests of the segment deciders: given events / when command / then events. No I/O. */
import { thrownApiError } from '@stamp/testkit/api-error.ts';

import type { Condition } from '../condition/index.ts';
import {
  type CreateSegment,
  decideAddMembers,
  decideCount,
  decideCreate,
  decideDelete,
  decideRemoveMembers,
  decideUpdate,
} from './decide.ts';
import { fold, type SegmentEvent, segmentSlug } from './events.ts';

const NOW = new Date('2025-01-01T00:00:00.000Z');
const LATER = new Date('2025-01-02T00:00:00.000Z');
const PRO: Condition = {
  logic: 'AND',
  groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
};
const command = (overrides: Partial<CreateSegment> = {}): CreateSegment => ({
  segmentId: 's1',
  projectId: 'p1',
  name: 'Pro',
  description: null,
  type: 'DYNAMIC',
  condition: PRO,
  trackMembership: false,
  ...overrides,
});
const given = (...events: SegmentEvent[][]) => fold(events.flat());
const dynamic = () => decideCreate(command(), NOW);
const fixed = () => decideCreate(command({ type: 'STATIC', condition: null }), NOW);

describe('decideCreate', () => {
  it('records a dynamic segment with its condition', () => {
    expect(dynamic()).toEqual([
      {
        type: 'SegmentCreated',
        data: {
          segmentId: 's1',
          projectId: 'p1',
          name: 'Pro',
          description: null,
          segmentType: 'DYNAMIC',
          condition: PRO,
          trackMembership: false,
          createdAt: NOW.toISOString(),
        },
      },
    ]);
  });

  it('refuses DYNAMIC without a condition, STATIC with one or with tracking', () => {
    expect(
      thrownApiError(() => decideCreate(command({ condition: null }), NOW)).options.errors,
    ).toMatchObject([{ field: 'condition' }]);
    expect(
      thrownApiError(() => decideCreate(command({ type: 'STATIC' }), NOW)).options.errors,
    ).toMatchObject([{ field: 'condition' }]);
    const tracked = command({ type: 'STATIC', condition: null, trackMembership: true });
    expect(thrownApiError(() => decideCreate(tracked, NOW)).options.errors).toMatchObject([
      { field: 'trackMembership' },
    ]);
  });
});

describe('decideUpdate', () => {
  it('records only the fields that change, nothing when none does', () => {
    const state = given(dynamic());
    expect(decideUpdate(state, 'p1', { name: 'Pro', condition: PRO }, LATER)).toEqual([]);
    expect(decideUpdate(state, 'p1', { name: 'Pros', description: 'Paying' }, LATER)).toEqual([
      {
        type: 'SegmentUpdated',
        data: { name: 'Pros', description: 'Paying', updatedAt: LATER.toISOString() },
      },
    ]);
  });

  it('refuses a condition on a STATIC segment, another project, and a deleted segment', () => {
    expect(
      thrownApiError(() => decideUpdate(given(fixed()), 'p1', { condition: PRO }, LATER)).status,
    ).toBe(422);
    expect(
      thrownApiError(() => decideUpdate(given(dynamic()), 'p2', { name: 'X' }, LATER)).code,
    ).toBe('SEGMENT_NOT_FOUND');
    const deleted = given(dynamic(), decideDelete(given(dynamic()), 'p1', LATER));
    expect(thrownApiError(() => decideUpdate(deleted, 'p1', { name: 'X' }, LATER)).status).toBe(
      404,
    );
    expect(thrownApiError(() => decideDelete(deleted, 'p1', LATER)).status).toBe(404);
  });
});

describe('members of a static segment', () => {
  it('adds those not yet members and removes those that are', () => {
    const state = given(fixed());
    expect(decideAddMembers(state, 'p1', ['c1', 'c2', 'c1'], new Set(['c2']))).toEqual([
      { type: 'SegmentMembersAdded', data: { contactIds: ['c1'] } },
    ]);
    expect(decideAddMembers(state, 'p1', ['c2'], new Set(['c2']))).toEqual([]);
    expect(decideRemoveMembers(state, 'p1', ['c1', 'c3'], new Set(['c1']))).toEqual([
      { type: 'SegmentMembersRemoved', data: { contactIds: ['c1'] } },
    ]);
    expect(decideRemoveMembers(state, 'p1', ['c3'], new Set(['c1']))).toEqual([]);
  });

  it('refuses members on a dynamic segment', () => {
    expect(
      thrownApiError(() => decideAddMembers(given(dynamic()), 'p1', ['c1'], new Set())).status,
    ).toBe(400);
  });
});

describe('decideCount', () => {
  it('records a count that differs from the cached one', () => {
    const state = given(dynamic());
    expect(decideCount(state, 'p1', 3, 3, LATER)).toEqual([]);
    expect(decideCount(state, 'p1', 4, 3, LATER)).toEqual([
      { type: 'SegmentCounted', data: { memberCount: 4, countedAt: LATER.toISOString() } },
    ]);
  });
});

describe('segmentSlug', () => {
  it('lowercases, turns spaces to dashes and drops other non-word characters', () => {
    expect(segmentSlug('VIP Customers!')).toBe('vip-customers');
    expect(segmentSlug('Trial  ends: soon')).toBe('trial-ends-soon');
  });
});
