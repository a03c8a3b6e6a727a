import { Query } from 'mingo';

import { boundaryFilter, firstInstantAfter, nextBoundary } from './boundary.ts';
import type { AudienceDocument } from './audience.ts';
import type { Condition, Filter, SegmentReference } from './condition.ts';
import { evaluateCondition } from './evaluate.ts';
import { allOf, atOffset, audienceDocument, contextOf, NOW, resolverOf } from './testing.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The result of `condition` for `document` at `instant` (ms). */
const at = (condition: Condition, document: AudienceDocument, instant: number): boolean =>
  evaluateCondition(condition, document, { ...contextOf(), now: new Date(instant) });

describe('firstInstantAfter', () => {
  it.each([
    ['a stored timestamp', '2025-06-20T10:00:00.000Z', Date.parse('2025-06-20T10:00:00.001Z')],
    ['a day', '2025-06-20', Date.parse('2025-06-20T00:00:00.000Z')],
    [
      'a timestamp with an offset',
      '2025-06-20T10:00:00+02:00',
      Date.parse('2025-06-20T10:00:00.000Z'),
    ],
    // `Z` sorts after `.`: every millisecond of that second sorts before it.
    [
      'a timestamp without milliseconds',
      '2025-06-20T10:00:00Z',
      Date.parse('2025-06-20T10:00:01.000Z'),
    ],
    ['text below every date', '', Date.parse('0000-01-01T00:00:00.000Z')],
    ['the last instant', '9999-12-31T23:59:59.999Z', undefined],
    ['text above every date', 'pro', undefined],
  ])('given %s', (_name, text, expected) => {
    expect(firstInstantAfter(text)).toBe(expected);
  });
});

describe('nextBoundary', () => {
  const cases: [string, Filter, Partial<AudienceDocument>, number | undefined][] = [
    [
      'createdAt within: when it leaves the window',
      { field: 'createdAt', operator: 'within', value: 1, unit: 'days' },
      { createdAt: atOffset(-2 * HOUR) },
      NOW.getTime() - 2 * HOUR + 1 + DAY,
    ],
    [
      'createdAt olderThan: when it becomes old enough',
      { field: 'createdAt', operator: 'olderThan', value: 1, unit: 'days' },
      { createdAt: atOffset(-2 * HOUR) },
      NOW.getTime() - 2 * HOUR + 1 + DAY,
    ],
    [
      'createdAt within, already out of the window: never',
      { field: 'createdAt', operator: 'within', value: 1, unit: 'days' },
      { createdAt: atOffset(-2 * DAY) },
      undefined,
    ],
    [
      'updatedAt olderThan at its cutoff: 1 ms later',
      { field: 'updatedAt', operator: 'olderThan', value: 1, unit: 'hours' },
      { updatedAt: atOffset(-HOUR) },
      NOW.getTime() + 1,
    ],
    [
      'a data day within: at the end of the day plus the duration',
      { field: 'data.renewal', operator: 'within', value: 1, unit: 'days' },
      { data: { renewal: '2025-06-20' } },
      Date.parse('2025-06-21T00:00:00.000Z'),
    ],
    [
      'a data value that is no date: never',
      { field: 'data.plan', operator: 'olderThan', value: 1, unit: 'days' },
      { data: { plan: 'pro' } },
      undefined,
    ],
    [
      'a missing data key: never',
      { field: 'data.renewal', operator: 'olderThan', value: 1, unit: 'days' },
      {},
      undefined,
    ],
    [
      'an event triggeredWithin',
      { field: 'event.segment.vip.entry', operator: 'triggeredWithin', value: 30, unit: 'minutes' },
      {
        events: {
          'segment%2Evip%2Eentry': {
            first: atOffset(-DAY),
            last: atOffset(-10 * 60_000),
            count: 3,
          },
        },
      },
      NOW.getTime() + 20 * 60_000 + 1,
    ],
    [
      'an email notTriggeredWithin',
      { field: 'email.open', operator: 'notTriggeredWithin', value: 2, unit: 'hours' },
      { emails: { open: { last: atOffset(-HOUR) } } },
      NOW.getTime() + HOUR + 1,
    ],
    [
      'an event never triggered: never',
      { field: 'event.purchase', operator: 'triggeredOlderThan', value: 2, unit: 'hours' },
      {},
      undefined,
    ],
    [
      'a filter not relative to time: never',
      { field: 'createdAt', operator: 'greaterThan', value: '2025-06-15' },
      { createdAt: atOffset(-2 * HOUR) },
      undefined,
    ],
  ];

  it.each(cases)('given %s', (_name, filter, overrides, expected) => {
    const condition = allOf(filter);
    const document = audienceDocument(overrides);
    const boundary = nextBoundary(condition, document, NOW);
    expect(boundary?.getTime()).toBe(expected);
    if (expected === undefined) return;
    // One filter: the result holds until just before the boundary and changes at it.
    const before = at(condition, document, NOW.getTime());
    expect(at(condition, document, expected - 1)).toBe(before);
    expect(at(condition, document, expected)).toBe(!before);
  });

  it.each(cases)('boundaryFilter selects the document given %s', (_name, filter, overrides) => {
    const condition = allOf(filter);
    const document = audienceDocument(overrides);
    const selector = boundaryFilter(condition, NOW);
    if (nextBoundary(condition, document, NOW) !== undefined) {
      // Every document with a boundary to come is among those the filter selects.
      expect(selector).toBeDefined();
      expect(new Query(selector ?? {}).test(document)).toBe(true);
    }
    if (filter.operator === 'greaterThan') expect(selector).toBeUndefined();
  });

  it('gives the earliest boundary of all filters, whatever the logic', () => {
    const condition: Condition = {
      logic: 'OR',
      groups: [
        { filters: [{ field: 'createdAt', operator: 'within', value: 3, unit: 'days' }] },
        { filters: [{ field: 'updatedAt', operator: 'within', value: 1, unit: 'days' }] },
      ],
    };
    const document = audienceDocument({ createdAt: atOffset(-DAY), updatedAt: atOffset(-HOUR) });
    expect(nextBoundary(condition, document, NOW)?.getTime()).toBe(NOW.getTime() + 23 * HOUR + 1);
  });

  it('looks into untracked dynamic segments only with a resolver', () => {
    const segments: Record<string, SegmentReference> = {
      recent: {
        type: 'DYNAMIC',
        trackMembership: false,
        condition: allOf({ field: 'createdAt', operator: 'within', value: 1, unit: 'days' }),
      },
      tracked: {
        type: 'DYNAMIC',
        trackMembership: true,
        condition: allOf({ field: 'updatedAt', operator: 'within', value: 1, unit: 'days' }),
      },
    };
    const condition: Condition = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'segment.recent', operator: 'memberOfSegment' },
            { field: 'segment.tracked', operator: 'notMemberOfSegment' },
          ],
        },
      ],
    };
    const document = audienceDocument({ createdAt: atOffset(-HOUR), updatedAt: atOffset(-HOUR) });
    expect(nextBoundary(condition, document, NOW)).toBeUndefined();
    expect(nextBoundary(condition, document, NOW, resolverOf(segments))?.getTime()).toBe(
      NOW.getTime() + 23 * HOUR + 1,
    );
  });
});
