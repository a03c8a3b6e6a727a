/** Given/when/then of tracked membership: the decision, the stream's fold, the names, the start. */
import type { SegmentEvent } from '../segments/events.ts';
import { decideMembership } from './decide.ts';
import { foldMembership, membershipEventName, membershipStream, NO_MEMBERSHIP } from './events.ts';
import { startsTracking } from './starter.ts';

const segment = { id: 'seg-1', name: 'VIP Customers!' };

describe('decideMembership', () => {
  it('given no membership, when the contact matches, then it enters', () => {
    expect(decideMembership(NO_MEMBERSHIP, true, segment, 'c1')).toEqual({
      type: 'SegmentEntered',
      data: {
        name: 'segment.vip-customers.entry',
        segmentId: 'seg-1',
        segmentName: 'VIP Customers!',
        contactId: 'c1',
      },
    });
  });

  it('given a member, when the contact no longer matches, then it exits', () => {
    expect(decideMembership({ member: true, revision: 0 }, false, segment, 'c1')).toMatchObject({
      type: 'SegmentExited',
      data: { name: 'segment.vip-customers.exit', contactId: 'c1' },
    });
  });

  it('given the same answer as the state, then nothing happens', () => {
    expect(decideMembership(NO_MEMBERSHIP, false, segment, 'c1')).toBeUndefined();
    expect(decideMembership({ member: false, revision: 3 }, false, segment, 'c1')).toBeUndefined();
    expect(decideMembership({ member: true, revision: 2 }, true, segment, 'c1')).toBeUndefined();
  });
});

describe('foldMembership', () => {
  it('follows entries and exits, and counts timers in the revision only', () => {
    expect(foldMembership([])).toEqual({ member: false, revision: -1 });
    expect(
      foldMembership([
        { type: 'SegmentEntered', revision: 0 },
        { type: 'SegmentMembershipDue', revision: 1 },
      ]),
    ).toEqual({ member: true, revision: 1 });
    expect(
      foldMembership([
        { type: 'SegmentEntered', revision: 0 },
        { type: 'SegmentExited', revision: 1 },
        { type: 'SegmentMembershipDue', revision: 2 },
      ]),
    ).toEqual({ member: false, revision: 2 });
  });
});

describe('names', () => {
  it('slugs the segment name, and falls back to the id for a name without a word', () => {
    expect(membershipEventName({ id: 's', name: 'Trial users  2025' }, 'entry')).toBe(
      'segment.trial-users-2025.entry',
    );
    expect(membershipEventName({ id: 's9', name: '!!!' }, 'exit')).toBe('segment.s9.exit');
  });

  it('gives one stream per segment and contact', () => {
    expect(membershipStream('a', 'b')).toBe(membershipStream('a', 'b'));
    expect(membershipStream('a', 'b')).not.toBe(membershipStream('a', 'c'));
    expect(membershipStream('a', 'b')).toMatch(/^segmentMembership-[0-9a-f-]{36}$/);
  });
});

describe('startsTracking', () => {
  const created = (trackMembership: boolean, segmentType: 'DYNAMIC' | 'STATIC'): SegmentEvent => ({
    type: 'SegmentCreated',
    data: {
      segmentId: 's',
      projectId: 'p',
      name: 'n',
      description: null,
      segmentType,
      condition: null,
      trackMembership,
      createdAt: '2025-01-01T00:00:00.000Z',
    },
  });

  it('given a tracked dynamic segment created, or tracking turned on, then a pass runs', () => {
    expect(startsTracking(created(true, 'DYNAMIC'))).toBe(true);
    expect(
      startsTracking({
        type: 'SegmentUpdated',
        data: { trackMembership: true, updatedAt: '2025-01-01T00:00:00.000Z' },
      }),
    ).toBe(true);
    expect(
      startsTracking({
        type: 'SegmentUpdated',
        data: { condition: { logic: 'AND', groups: [] }, updatedAt: '2025-01-01T00:00:00.000Z' },
      }),
    ).toBe(true);
  });

  it('given anything else, then none runs', () => {
    expect(startsTracking(created(false, 'DYNAMIC'))).toBe(false);
    expect(startsTracking(created(true, 'STATIC'))).toBe(false);
    expect(
      startsTracking({
        type: 'SegmentUpdated',
        data: { name: 'renamed', updatedAt: '2025-01-01T00:00:00.000Z' },
      }),
    ).toBe(false);
    expect(startsTracking({ type: 'SegmentDeleted', data: { deletedAt: '2025-01-01' } })).toBe(
      false,
    );
  });
});
