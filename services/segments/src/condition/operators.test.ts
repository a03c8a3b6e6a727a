/**
 * Each operator on each kind of field: given a contact, when a one-filter condition is tested,
 * then the direct evaluation and the compiled filter (run by mingo, MongoDB's semantics) answer
 * as expected.
 */
import { Query } from 'mingo';
import type { AnyObject } from 'mingo/types';

import type { AudienceDocument } from './audience.ts';
import { compileCondition } from './compile.ts';
import type { Filter, SegmentReference } from './condition.ts';
import { compareText, evaluateCondition } from './evaluate.ts';
import { parseCondition } from './parse.ts';
import { allOf, atOffset, audienceDocument, contextOf } from './testing.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const contact = audienceDocument({
  email: 'ann.smith@example.org',
  subscribed: true,
  createdAt: '2025-06-10T08:00:00.000Z',
  updatedAt: atOffset(-30 * MINUTE),
  data: {
    plan: 'Pro',
    seats: 30,
    age: '42',
    vip: true,
    flag: 'false',
    city: 'Zürich',
    renewal: '2025-06-20',
    signup: atOffset(-2 * DAY),
    note: 'a.b*c',
    'dotted%2Ekey': 'yes',
  },
  events: {
    signup: { first: atOffset(-3 * DAY), last: atOffset(-2 * DAY), count: 2 },
    'segment%2Evip%2Eentry': { first: atOffset(-HOUR), last: atOffset(-HOUR), count: 1 },
  },
  emails: { open: { last: atOffset(-40 * DAY) }, sent: { last: atOffset(-DAY) } },
  segments: ['static-1'],
});

const segments: Record<string, SegmentReference> = {
  'static-1': { type: 'STATIC', trackMembership: false },
  'static-2': { type: 'STATIC', trackMembership: false },
  tracked: {
    type: 'DYNAMIC',
    trackMembership: true,
    condition: allOf({ field: 'data.plan', operator: 'equals', value: 'Pro' }),
  },
  pro: {
    type: 'DYNAMIC',
    trackMembership: false,
    condition: allOf({ field: 'data.plan', operator: 'equals', value: 'Pro' }),
  },
  free: {
    type: 'DYNAMIC',
    trackMembership: false,
    condition: allOf({ field: 'data.plan', operator: 'equals', value: 'Free' }),
  },
};

/** Whether `document` satisfies the one-filter condition: direct and through mingo, which agree. */
function test(filter: Filter, document: AudienceDocument = contact): boolean {
  const condition = parseCondition(allOf(filter));
  const context = contextOf(segments);
  const direct = evaluateCondition(condition, document, context);
  const compiled = compileCondition(condition, context);
  const byMingo = new Query(compiled, {}).test(document);
  expect({ compiled, byMingo }).toEqual({ compiled, byMingo: direct });
  return direct;
}

type Case = [string, Filter, boolean];

const cases: Record<string, Case[]> = {
  email: [
    [
      'equals ignores case and spaces',
      { field: 'email', operator: 'equals', value: ' Ann.Smith@Example.ORG ' },
      true,
    ],
    [
      'equals is the whole address',
      { field: 'email', operator: 'equals', value: 'ann.smith@example' },
      false,
    ],
    ['notEquals', { field: 'email', operator: 'notEquals', value: 'bob@example.org' }, true],
    ['contains ignores case', { field: 'email', operator: 'contains', value: 'SMITH@' }, true],
    [
      'contains takes the text literally',
      { field: 'email', operator: 'contains', value: 'ann.s' },
      true,
    ],
    [
      'contains: . is no wildcard',
      { field: 'email', operator: 'contains', value: 'annxsmith' },
      false,
    ],
    ['contains: .* is no pattern', { field: 'email', operator: 'contains', value: 'a.*g' }, false],
    ['notContains', { field: 'email', operator: 'notContains', value: 'example.com' }, true],
    ['notContains of a part', { field: 'email', operator: 'notContains', value: 'example' }, false],
  ],
  subscribed: [
    ['equals true', { field: 'subscribed', operator: 'equals', value: true }, true],
    ['equals false', { field: 'subscribed', operator: 'equals', value: false }, false],
    ['notEquals false', { field: 'subscribed', operator: 'notEquals', value: false }, true],
  ],
  dates: [
    ['equals a day', { field: 'createdAt', operator: 'equals', value: '2025-06-10' }, true],
    ['equals another day', { field: 'createdAt', operator: 'equals', value: '2025-06-11' }, false],
    [
      'equals the instant',
      { field: 'createdAt', operator: 'equals', value: '2025-06-10T10:00:00+02:00' },
      true,
    ],
    [
      'equals a millisecond later',
      { field: 'createdAt', operator: 'equals', value: '2025-06-10T08:00:00.001Z' },
      false,
    ],
    [
      'notEquals the day',
      { field: 'createdAt', operator: 'notEquals', value: '2025-06-10' },
      false,
    ],
    [
      'greaterThan the day before',
      { field: 'createdAt', operator: 'greaterThan', value: '2025-06-09' },
      true,
    ],
    [
      'greaterThan its own day',
      { field: 'createdAt', operator: 'greaterThan', value: '2025-06-10' },
      false,
    ],
    [
      'greaterThanOrEqual its own day',
      { field: 'createdAt', operator: 'greaterThanOrEqual', value: '2025-06-10' },
      true,
    ],
    [
      'greaterThan the instant',
      { field: 'createdAt', operator: 'greaterThan', value: '2025-06-10T08:00:00Z' },
      false,
    ],
    [
      'greaterThanOrEqual the instant',
      { field: 'createdAt', operator: 'greaterThanOrEqual', value: '2025-06-10T08:00:00Z' },
      true,
    ],
    [
      'lessThan its own day',
      { field: 'createdAt', operator: 'lessThan', value: '2025-06-10' },
      false,
    ],
    [
      'lessThan the next day',
      { field: 'createdAt', operator: 'lessThan', value: '2025-06-11' },
      true,
    ],
    [
      'lessThanOrEqual its own day',
      { field: 'createdAt', operator: 'lessThanOrEqual', value: '2025-06-10' },
      true,
    ],
    [
      'lessThanOrEqual the instant',
      { field: 'createdAt', operator: 'lessThanOrEqual', value: '2025-06-10T08:00:00.000Z' },
      true,
    ],
    [
      'lessThan the instant',
      { field: 'createdAt', operator: 'lessThan', value: '2025-06-10T08:00:00.000Z' },
      false,
    ],
    ['within 6 days', { field: 'createdAt', operator: 'within', value: 6, unit: 'days' }, true],
    ['within 5 days', { field: 'createdAt', operator: 'within', value: 5, unit: 'days' }, false],
    [
      'within 124 hours (at the cutoff)',
      { field: 'createdAt', operator: 'within', value: 124, unit: 'hours' },
      true,
    ],
    [
      'olderThan 5 days',
      { field: 'createdAt', operator: 'olderThan', value: 5, unit: 'days' },
      true,
    ],
    [
      'olderThan 124 hours (at the cutoff)',
      { field: 'createdAt', operator: 'olderThan', value: 124, unit: 'hours' },
      false,
    ],
    [
      'within 30 minutes (at the cutoff)',
      { field: 'updatedAt', operator: 'within', value: 30, unit: 'minutes' },
      true,
    ],
    [
      'within 29 minutes',
      { field: 'updatedAt', operator: 'within', value: 29, unit: 'minutes' },
      false,
    ],
    [
      'olderThan 30 minutes (at the cutoff)',
      { field: 'updatedAt', operator: 'olderThan', value: 30, unit: 'minutes' },
      false,
    ],
  ],
  data: [
    ['equals text (case matters)', { field: 'data.plan', operator: 'equals', value: 'Pro' }, true],
    ['equals other case', { field: 'data.plan', operator: 'equals', value: 'pro' }, false],
    ['equals a number', { field: 'data.seats', operator: 'equals', value: 30 }, true],
    ['equals the number as text', { field: 'data.seats', operator: 'equals', value: '30' }, true],
    ['equals text as a number', { field: 'data.age', operator: 'equals', value: 42 }, true],
    [
      'equals non-canonical number text',
      { field: 'data.age', operator: 'equals', value: '42.0' },
      false,
    ],
    ['equals a boolean', { field: 'data.vip', operator: 'equals', value: true }, true],
    ['equals the boolean as text', { field: 'data.vip', operator: 'equals', value: 'true' }, true],
    [
      'equals boolean text as a boolean',
      { field: 'data.flag', operator: 'equals', value: false },
      true,
    ],
    ['equals 1 is not true', { field: 'data.vip', operator: 'equals', value: 1 }, false],
    ['equals on a missing key', { field: 'data.missing', operator: 'equals', value: 'x' }, false],
    [
      'notEquals on a missing key',
      { field: 'data.missing', operator: 'notEquals', value: 'x' },
      true,
    ],
    [
      'notEquals the same value',
      { field: 'data.seats', operator: 'notEquals', value: '30' },
      false,
    ],
    [
      'equals on a key with a dot',
      { field: 'data.dotted.key', operator: 'equals', value: 'yes' },
      true,
    ],
    ['contains ignores case', { field: 'data.plan', operator: 'contains', value: 'PR' }, true],
    [
      'contains non-ASCII, ignoring case',
      { field: 'data.city', operator: 'contains', value: 'ZÜR' },
      true,
    ],
    [
      'contains takes metacharacters literally',
      { field: 'data.note', operator: 'contains', value: 'a.b*' },
      true,
    ],
    [
      'contains a pattern that would match',
      { field: 'data.note', operator: 'contains', value: 'a.b.c' },
      false,
    ],
    ['contains on a number', { field: 'data.seats', operator: 'contains', value: '3' }, false],
    ['notContains on a number', { field: 'data.seats', operator: 'notContains', value: '3' }, true],
    [
      'notContains on a missing key',
      { field: 'data.missing', operator: 'notContains', value: 'x' },
      true,
    ],
    ['greaterThan a number', { field: 'data.seats', operator: 'greaterThan', value: 29.5 }, true],
    ['greaterThan itself', { field: 'data.seats', operator: 'greaterThan', value: 30 }, false],
    [
      'greaterThanOrEqual itself',
      { field: 'data.seats', operator: 'greaterThanOrEqual', value: 30 },
      true,
    ],
    ['lessThan a number', { field: 'data.seats', operator: 'lessThan', value: 100 }, true],
    [
      'lessThanOrEqual itself',
      { field: 'data.seats', operator: 'lessThanOrEqual', value: 30 },
      true,
    ],
    [
      'a number does not compare with text',
      { field: 'data.age', operator: 'greaterThan', value: 1 },
      false,
    ],
    ['text compares as text', { field: 'data.age', operator: 'greaterThan', value: '100' }, true],
    [
      'text does not compare with a number',
      { field: 'data.seats', operator: 'lessThan', value: 'zzz' },
      false,
    ],
    [
      'text compares date texts',
      { field: 'data.renewal', operator: 'greaterThan', value: '2025-06-15' },
      true,
    ],
    [
      'a boolean compares with nothing',
      { field: 'data.vip', operator: 'lessThan', value: 5 },
      false,
    ],
    ['exists', { field: 'data.plan', operator: 'exists' }, true],
    ['exists on a missing key', { field: 'data.nope', operator: 'exists' }, false],
    ['notExists on a missing key', { field: 'data.nope', operator: 'notExists' }, true],
    [
      'within 2 days (at the cutoff)',
      { field: 'data.signup', operator: 'within', value: 2, unit: 'days' },
      true,
    ],
    [
      'within 47 hours',
      { field: 'data.signup', operator: 'within', value: 47, unit: 'hours' },
      false,
    ],
    [
      'olderThan 47 hours',
      { field: 'data.signup', operator: 'olderThan', value: 47, unit: 'hours' },
      true,
    ],
    [
      'a future date is within',
      { field: 'data.renewal', operator: 'within', value: 1, unit: 'days' },
      true,
    ],
    [
      'a future date is not olderThan',
      { field: 'data.renewal', operator: 'olderThan', value: 1, unit: 'days' },
      false,
    ],
    [
      'text that is no date is never within',
      { field: 'data.plan', operator: 'within', value: 1, unit: 'days' },
      false,
    ],
    [
      'text that is no date is never olderThan',
      { field: 'data.plan', operator: 'olderThan', value: 1, unit: 'days' },
      false,
    ],
    [
      'a number is never within',
      { field: 'data.seats', operator: 'within', value: 1, unit: 'days' },
      false,
    ],
    [
      'within on a missing key',
      { field: 'data.nope', operator: 'within', value: 1, unit: 'days' },
      false,
    ],
  ],
  events: [
    ['triggered', { field: 'event.signup', operator: 'triggered' }, true],
    [
      'triggered, a name with dots',
      { field: 'event.segment.vip.entry', operator: 'triggered' },
      true,
    ],
    ['triggered, never', { field: 'event.purchase', operator: 'triggered' }, false],
    ['notTriggered, never', { field: 'event.purchase', operator: 'notTriggered' }, true],
    ['notTriggered', { field: 'event.signup', operator: 'notTriggered' }, false],
    [
      'triggeredWithin 2 days (at the cutoff)',
      { field: 'event.signup', operator: 'triggeredWithin', value: 2, unit: 'days' },
      true,
    ],
    [
      'triggeredWithin a day',
      { field: 'event.signup', operator: 'triggeredWithin', value: 1, unit: 'days' },
      false,
    ],
    [
      'triggeredWithin, never',
      { field: 'event.purchase', operator: 'triggeredWithin', value: 1, unit: 'days' },
      false,
    ],
    [
      'triggeredOlderThan a day',
      { field: 'event.signup', operator: 'triggeredOlderThan', value: 1, unit: 'days' },
      true,
    ],
    [
      'triggeredOlderThan, last within',
      {
        field: 'event.segment.vip.entry',
        operator: 'triggeredOlderThan',
        value: 30,
        unit: 'minutes',
      },
      true,
    ],
    [
      'triggeredOlderThan, last more recent',
      {
        field: 'event.segment.vip.entry',
        operator: 'triggeredOlderThan',
        value: 61,
        unit: 'minutes',
      },
      false,
    ],
    [
      'triggeredOlderThan, never',
      { field: 'event.purchase', operator: 'triggeredOlderThan', value: 1, unit: 'days' },
      false,
    ],
    [
      'notTriggeredWithin, never',
      { field: 'event.purchase', operator: 'notTriggeredWithin', value: 1, unit: 'days' },
      true,
    ],
    [
      'notTriggeredWithin, lately',
      { field: 'event.segment.vip.entry', operator: 'notTriggeredWithin', value: 1, unit: 'days' },
      false,
    ],
    [
      'notTriggeredWithin, long ago',
      { field: 'event.signup', operator: 'notTriggeredWithin', value: 1, unit: 'days' },
      true,
    ],
  ],
  emails: [
    ['triggered', { field: 'email.open', operator: 'triggered' }, true],
    ['triggered, never', { field: 'email.click', operator: 'triggered' }, false],
    ['notTriggered, never', { field: 'email.bounce', operator: 'notTriggered' }, true],
    [
      'triggeredWithin 30 days',
      { field: 'email.open', operator: 'triggeredWithin', value: 30, unit: 'days' },
      false,
    ],
    [
      'triggeredWithin 2 days',
      { field: 'email.sent', operator: 'triggeredWithin', value: 2, unit: 'days' },
      true,
    ],
    [
      'triggeredOlderThan 30 days',
      { field: 'email.open', operator: 'triggeredOlderThan', value: 30, unit: 'days' },
      true,
    ],
    [
      'notTriggeredWithin 30 days',
      { field: 'email.open', operator: 'notTriggeredWithin', value: 30, unit: 'days' },
      true,
    ],
    [
      'notTriggeredWithin, never',
      { field: 'email.complaint', operator: 'notTriggeredWithin', value: 30, unit: 'days' },
      true,
    ],
  ],
  segments: [
    [
      'memberOfSegment, a static member',
      { field: 'segment.static-1', operator: 'memberOfSegment' },
      true,
    ],
    [
      'memberOfSegment, not a static member',
      { field: 'segment.static-2', operator: 'memberOfSegment' },
      false,
    ],
    [
      'notMemberOfSegment, static',
      { field: 'segment.static-2', operator: 'notMemberOfSegment' },
      true,
    ],
    [
      'memberOfSegment, tracked: the stored membership counts',
      { field: 'segment.tracked', operator: 'memberOfSegment' },
      false,
    ],
    [
      'memberOfSegment, untracked: its condition holds',
      { field: 'segment.pro', operator: 'memberOfSegment' },
      true,
    ],
    [
      'memberOfSegment, untracked: it does not',
      { field: 'segment.free', operator: 'memberOfSegment' },
      false,
    ],
    [
      'notMemberOfSegment, untracked',
      { field: 'segment.free', operator: 'notMemberOfSegment' },
      true,
    ],
  ],
};

describe.each(Object.entries(cases))('operators on %s fields', (_kind, table) => {
  it.each(table)('%s', (_name, filter, expected) => {
    expect(test(filter)).toBe(expected);
  });
});

describe('groups and logic', () => {
  const yes: Filter = { field: 'subscribed', operator: 'equals', value: true };
  const no: Filter = { field: 'subscribed', operator: 'equals', value: false };
  const holds = (condition: unknown): boolean => {
    const parsed = parseCondition(condition);
    const context = contextOf(segments);
    const direct = evaluateCondition(parsed, contact, context);
    const compiled = compileCondition(parsed, context);
    expect(new Query(compiled, {}).test(contact as unknown as AnyObject)).toBe(direct);
    return direct;
  };

  it('ANDs the filters of a group', () => {
    expect(holds({ logic: 'OR', groups: [{ filters: [yes, yes] }] })).toBe(true);
    expect(holds({ logic: 'OR', groups: [{ filters: [yes, no] }] })).toBe(false);
  });

  it('joins groups by the logic', () => {
    expect(holds({ logic: 'OR', groups: [{ filters: [no] }, { filters: [yes] }] })).toBe(true);
    expect(holds({ logic: 'AND', groups: [{ filters: [no] }, { filters: [yes] }] })).toBe(false);
  });

  it('ANDs a nested condition with the filters of its group', () => {
    const nested = (inner: Filter, outer: Filter[]): unknown => ({
      logic: 'OR',
      groups: [{ filters: outer, conditions: { logic: 'OR', groups: [{ filters: [inner] }] } }],
    });
    expect(holds(nested(yes, [yes]))).toBe(true);
    expect(holds(nested(no, [yes]))).toBe(false);
    expect(holds(nested(yes, [no]))).toBe(false);
    expect(holds(nested(yes, []))).toBe(true);
  });

  it('compiles to $and, $or and $nor', () => {
    const condition = parseCondition({
      logic: 'OR',
      groups: [
        { filters: [yes, { field: 'email', operator: 'notContains', value: 'x' }] },
        { filters: [{ field: 'data.seats', operator: 'greaterThan', value: 3 }] },
      ],
    });
    expect(compileCondition(condition, contextOf())).toEqual({
      $or: [
        {
          $and: [{ subscribed: true }, { $nor: [{ email: { $regex: 'x', $options: 'i' } }] }],
        },
        { 'data.seats': { $gt: 3 } },
      ],
    });
  });

  it('resolves relative times against the context, not the clock', () => {
    const condition = parseCondition(
      allOf({ field: 'createdAt', operator: 'within', value: 1, unit: 'hours' }),
    );
    expect(
      compileCondition(condition, { ...contextOf(), now: new Date('2030-01-01T01:00:00.000Z') }),
    ).toEqual({ createdAt: { $gte: '2030-01-01T00:00:00.000Z' } });
  });
});

describe('compareText', () => {
  it.each([
    ['a', 'b', -1],
    ['b', 'a', 1],
    ['a', 'a', 0],
    ['a', 'ab', -1],
    ['\uFFFD', '\u{1F600}', -1],
    ['\u{1F600}', '\uFFFD', 1],
    ['\u{1F600}', '\u{1F601}', -1],
    ['Z', 'a', -1],
  ])('orders %j and %j by code points', (a, b, sign) => {
    expect(Math.sign(compareText(a, b))).toBe(sign);
  });
});
