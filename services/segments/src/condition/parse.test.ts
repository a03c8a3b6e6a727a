import { thrownApiError } from '@stamp/testkit/api-error.ts';

import { MAX_DEPTH, MAX_FILTERS, MAX_GROUPS } from './condition.ts';
import { parseCondition } from './parse.ts';

/** A condition with `filter` as its only filter. */
const withFilter = (filter: unknown): unknown => ({
  logic: 'AND',
  groups: [{ filters: [filter] }],
});

/** The `[field, code]` pairs of the 422 that parsing `input` throws. */
function errorsOf(input: unknown, field?: string): [string, string][] {
  const error = thrownApiError(() => parseCondition(input, field));
  expect(error.status).toBe(422);
  expect(error.code).toBe('VALIDATION_ERROR');
  return (error.options.errors ?? []).map((item) => [item.field, item.code]);
}

describe('parseCondition accepts the filter language', () => {
  it('given a nested condition of every field kind, when parsed, then it is returned as given', () => {
    const condition = {
      logic: 'OR',
      groups: [
        {
          filters: [
            { field: 'email', operator: 'contains', value: '@example.org' },
            { field: 'subscribed', operator: 'equals', value: true },
            { field: 'createdAt', operator: 'within', value: 7, unit: 'days' },
            { field: 'updatedAt', operator: 'lessThan', value: '2025-01-31' },
            { field: 'data.plan', operator: 'equals', value: 'pro' },
            { field: 'data.seats', operator: 'greaterThan', value: 3 },
            { field: 'data.a.b', operator: 'exists' },
          ],
          conditions: {
            logic: 'AND',
            groups: [
              {
                filters: [
                  { field: 'event.segment.vip.entry', operator: 'triggered' },
                  { field: 'email.open', operator: 'notTriggeredWithin', value: 30, unit: 'days' },
                  { field: 'segment.s1', operator: 'memberOfSegment' },
                ],
              },
            ],
          },
        },
        {
          filters: [],
          conditions: {
            logic: 'AND',
            groups: [
              {
                filters: [],
                conditions: {
                  logic: 'OR',
                  groups: [
                    {
                      filters: [
                        {
                          field: 'createdAt',
                          operator: 'equals',
                          value: '2025-01-31T09:30:00+02:00',
                        },
                      ],
                    },
                  ],
                },
              },
            ],
          },
        },
      ],
    };
    expect(parseCondition(condition)).toEqual(condition);
  });

  it('given null value and unit on an operator without them, when parsed, then they are dropped', () => {
    expect(
      parseCondition(withFilter({ field: 'data.x', operator: 'exists', value: null, unit: null })),
    ).toEqual({ logic: 'AND', groups: [{ filters: [{ field: 'data.x', operator: 'exists' }] }] });
  });

  it('given -0, when parsed, then it is 0', () => {
    const parsed = parseCondition(withFilter({ field: 'data.x', operator: 'equals', value: -0 }));
    expect(Object.is(parsed.groups[0]?.filters[0]?.value, 0)).toBe(true);
  });

  it('given exactly the limits, when parsed, then it is accepted', () => {
    let nested: unknown = withFilter({ field: 'email', operator: 'equals', value: 'a@b.c' });
    for (let depth = 1; depth < MAX_DEPTH; depth += 1) {
      nested = { logic: 'AND', groups: [{ filters: [], conditions: nested }] };
    }
    expect(() => parseCondition(nested)).not.toThrow();
    const filters = Array.from({ length: MAX_FILTERS }, () => ({
      field: 'subscribed',
      operator: 'equals',
      value: true,
    }));
    expect(() => parseCondition({ logic: 'AND', groups: [{ filters }] })).not.toThrow();
  });
});

describe('parseCondition refuses bad conditions with 422 naming the exact path', () => {
  const f = 'condition.groups.0.filters.0';
  const cases: [string, unknown, [string, string][]][] = [
    ['a non-object', 'x', [['condition', 'invalid_type']]],
    [
      'an unknown logic and a bad nested filter',
      {
        logic: 'XOR',
        groups: [{ filters: [], conditions: withFilter({ field: 'email', operator: 'exists' }) }],
      },
      [
        ['condition.logic', 'invalid_value'],
        ['condition.groups.0.conditions.groups.0.filters.0.operator', 'operator_not_allowed'],
      ],
    ],
    ['missing groups', { logic: 'AND' }, [['condition.groups', 'invalid_type']]],
    ['no groups', { logic: 'AND', groups: [] }, [['condition.groups', 'too_small']]],
    [
      'an unknown key of a condition',
      { logic: 'AND', groups: [{ filters: [{ field: 'data.x', operator: 'exists' }] }], extra: 1 },
      [['condition.extra', 'unrecognized_keys']],
    ],
    [
      'an empty group',
      { logic: 'OR', groups: [{ filters: [] }] },
      [['condition.groups.0.filters', 'too_small']],
    ],
    [
      'a group that is no object',
      { logic: 'OR', groups: [[]] },
      [['condition.groups.0', 'invalid_type']],
    ],
    [
      'an unknown key of a group',
      { logic: 'OR', groups: [{ filters: [{ field: 'data.x', operator: 'exists' }], id: 'g' }] },
      [['condition.groups.0.id', 'unrecognized_keys']],
    ],
    ['a filter that is no object', withFilter(null), [[f, 'invalid_type']]],
    [
      'an unknown filter key',
      withFilter({ field: 'data.x', operator: 'exists', negate: true }),
      [[`${f}.negate`, 'unrecognized_keys']],
    ],
    [
      'a field that is no string',
      withFilter({ field: 1, operator: 'exists' }),
      [[`${f}.field`, 'invalid_type']],
    ],
    [
      'an unknown field',
      withFilter({ field: 'name', operator: 'equals', value: 'x' }),
      [[`${f}.field`, 'invalid_value']],
    ],
    [
      'an unknown email activity',
      withFilter({ field: 'email.opened', operator: 'triggered' }),
      [[`${f}.field`, 'invalid_value']],
    ],
    [
      'an empty data key',
      withFilter({ field: 'data.', operator: 'exists' }),
      [[`${f}.field`, 'invalid_value']],
    ],
    [
      'a data key of 256 characters',
      withFilter({ field: `data.${'k'.repeat(256)}`, operator: 'exists' }),
      [[`${f}.field`, 'invalid_value']],
    ],
    [
      'an unknown operator',
      withFilter({ field: 'email', operator: 'like', value: 'x' }),
      [[`${f}.operator`, 'invalid_value']],
    ],
    [
      'a missing operator',
      withFilter({ field: 'email', value: 'x' }),
      [[`${f}.operator`, 'invalid_value']],
    ],
    [
      'contains on subscribed',
      withFilter({ field: 'subscribed', operator: 'contains', value: 'x' }),
      [[`${f}.operator`, 'operator_not_allowed']],
    ],
    [
      'within on email',
      withFilter({ field: 'email', operator: 'within', value: 1, unit: 'days' }),
      [[`${f}.operator`, 'operator_not_allowed']],
    ],
    [
      'triggered on data',
      withFilter({ field: 'data.x', operator: 'triggered' }),
      [[`${f}.operator`, 'operator_not_allowed']],
    ],
    [
      'memberOfSegment on an event',
      withFilter({ field: 'event.x', operator: 'memberOfSegment' }),
      [[`${f}.operator`, 'operator_not_allowed']],
    ],
    [
      'exists on a segment',
      withFilter({ field: 'segment.s', operator: 'exists' }),
      [[`${f}.operator`, 'operator_not_allowed']],
    ],
    [
      'a missing value',
      withFilter({ field: 'email', operator: 'equals' }),
      [[`${f}.value`, 'invalid_type']],
    ],
    [
      'a value where none is taken',
      withFilter({ field: 'event.x', operator: 'triggered', value: '' }),
      [[`${f}.value`, 'unrecognized_keys']],
    ],
    [
      'an empty text',
      withFilter({ field: 'email', operator: 'contains', value: '' }),
      [[`${f}.value`, 'too_small']],
    ],
    [
      'a text of 2,001 characters',
      withFilter({ field: 'data.x', operator: 'equals', value: 'a'.repeat(2001) }),
      [[`${f}.value`, 'too_big']],
    ],
    [
      'a number for email',
      withFilter({ field: 'email', operator: 'equals', value: 1 }),
      [[`${f}.value`, 'invalid_type']],
    ],
    [
      'text for subscribed',
      withFilter({ field: 'subscribed', operator: 'equals', value: 'true' }),
      [[`${f}.value`, 'invalid_type']],
    ],
    [
      'an object for data',
      withFilter({ field: 'data.x', operator: 'equals', value: { a: 1 } }),
      [[`${f}.value`, 'invalid_type']],
    ],
    [
      'a boolean to order by',
      withFilter({ field: 'data.x', operator: 'greaterThan', value: true }),
      [[`${f}.value`, 'invalid_type']],
    ],
    [
      'an impossible day',
      withFilter({ field: 'createdAt', operator: 'equals', value: '2025-02-30' }),
      [[`${f}.value`, 'invalid_value']],
    ],
    [
      'a timestamp without zone',
      withFilter({ field: 'createdAt', operator: 'lessThan', value: '2025-01-01T10:00' }),
      [[`${f}.value`, 'invalid_value']],
    ],
    [
      'the last day of year 9999',
      withFilter({ field: 'createdAt', operator: 'equals', value: '9999-12-31' }),
      [[`${f}.value`, 'invalid_value']],
    ],
    [
      'a number for a date',
      withFilter({ field: 'updatedAt', operator: 'equals', value: 1 }),
      [[`${f}.value`, 'invalid_type']],
    ],
    [
      'a unit on equals',
      withFilter({ field: 'data.x', operator: 'equals', value: 1, unit: 'days' }),
      [[`${f}.unit`, 'unrecognized_keys']],
    ],
    [
      'a missing unit',
      withFilter({ field: 'createdAt', operator: 'within', value: 7 }),
      [[`${f}.unit`, 'invalid_type']],
    ],
    [
      'an unknown unit',
      withFilter({ field: 'createdAt', operator: 'within', value: 7, unit: 'weeks' }),
      [[`${f}.unit`, 'invalid_value']],
    ],
    [
      'a duration of 0',
      withFilter({ field: 'event.x', operator: 'triggeredWithin', value: 0, unit: 'days' }),
      [[`${f}.value`, 'too_small']],
    ],
    [
      'a fractional duration',
      withFilter({ field: 'event.x', operator: 'triggeredWithin', value: 1.5, unit: 'days' }),
      [[`${f}.value`, 'invalid_type']],
    ],
    [
      'a duration as text',
      withFilter({ field: 'event.x', operator: 'triggeredWithin', value: '7', unit: 'days' }),
      [[`${f}.value`, 'invalid_type']],
    ],
    [
      'a duration above 100 years',
      withFilter({
        field: 'email.open',
        operator: 'triggeredOlderThan',
        value: 36_501,
        unit: 'days',
      }),
      [[`${f}.value`, 'too_big']],
    ],
    [
      'several problems at once',
      {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'email', operator: 'equals', value: 'a@b.c' },
              { field: 'email', operator: 'nope' },
            ],
          },
          { filters: [{ field: 'x', operator: 'exists' }] },
        ],
      },
      [
        ['condition.groups.0.filters.1.operator', 'invalid_value'],
        ['condition.groups.1.filters.0.field', 'invalid_value'],
      ],
    ],
  ];
  it.each(cases)('given %s', (_name, input, expected) => {
    expect(errorsOf(input)).toEqual(expected);
  });

  it('given the prefix audienceFilter, then paths start with it', () => {
    const input = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'data.x', operator: 'exists' },
            { field: 'email', operator: 'exists' },
          ],
        },
      ],
    };
    expect(errorsOf(input, 'audienceFilter')).toEqual([
      ['audienceFilter.groups.0.filters.1.operator', 'operator_not_allowed'],
    ]);
  });

  it('given conditions nested one level too deep, then the deepest is named', () => {
    let nested: unknown = withFilter({ field: 'data.x', operator: 'exists' });
    for (let depth = 1; depth <= MAX_DEPTH; depth += 1) {
      nested = { logic: 'AND', groups: [{ filters: [], conditions: nested }] };
    }
    const path = `condition${'.groups.0.conditions'.repeat(MAX_DEPTH)}`;
    expect(errorsOf(nested)).toEqual([[path, 'too_big']]);
  });

  it('given one filter too many, then the first one over the limit is named and the walk stops', () => {
    const filters = Array.from({ length: MAX_FILTERS + 50 }, () => ({ field: 'bad' }));
    filters.splice(
      0,
      MAX_FILTERS,
      ...Array.from({ length: MAX_FILTERS }, () => ({ field: 'data.x', operator: 'exists' })),
    );
    expect(errorsOf({ logic: 'AND', groups: [{ filters }] })).toEqual([
      [`condition.groups.0.filters.${MAX_FILTERS}`, 'too_big'],
    ]);
  });

  it('given one group too many, then it is named', () => {
    const groups = Array.from({ length: MAX_GROUPS + 1 }, () => ({
      filters: [{ field: 'data.x', operator: 'exists' }],
    }));
    expect(errorsOf({ logic: 'OR', groups })).toEqual([
      [`condition.groups.${MAX_GROUPS}`, 'too_big'],
    ]);
  });

  it('given many bad filters, then at most 20 errors are reported', () => {
    const filters = Array.from({ length: 60 }, () => ({ field: 'bad', operator: 'exists' }));
    expect(errorsOf({ logic: 'AND', groups: [{ filters }] })).toHaveLength(20);
  });
});
