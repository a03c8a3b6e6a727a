import { thrownApiError } from '@stamp/testkit/api-error.ts';

import { compileCondition } from './compile.ts';
import { type Condition, MAX_EXPANDED_FILTERS, type SegmentReference } from './condition.ts';
import { evaluateCondition } from './evaluate.ts';
import { allOf, audienceDocument, contextOf } from './testing.ts';

const member = (id: string): Condition =>
  allOf({ field: `segment.${id}`, operator: 'memberOfSegment' });
const dynamic = (condition: Condition, trackMembership = false): SegmentReference => ({
  type: 'DYNAMIC',
  trackMembership,
  condition,
});

/** The `[field, code]` pairs of the 422 that compiling and evaluating both throw. */
function errorsOf(
  condition: Condition,
  segments: Record<string, SegmentReference>,
  extra: Parameters<typeof contextOf>[1] = {},
): [string, string, string][] {
  const context = contextOf(segments, extra);
  const compiled = thrownApiError(() => compileCondition(condition, context));
  const evaluated = thrownApiError(() => evaluateCondition(condition, audienceDocument(), context));
  expect(evaluated.options.errors).toEqual(compiled.options.errors);
  expect(compiled.status).toBe(422);
  return (compiled.options.errors ?? []).map((item) => [item.field, item.code, item.message]);
}

describe('segment references', () => {
  it('given an unknown segment, then 422 names the filter field', () => {
    expect(errorsOf(member('nope'), {})).toEqual([
      ['condition.groups.0.filters.0.field', 'unknown_segment', 'Unknown segment nope'],
    ]);
  });

  it('given the audienceFilter prefix, then the path starts with it', () => {
    expect(errorsOf(member('nope'), {}, { field: 'audienceFilter' })[0]?.[0]).toBe(
      'audienceFilter.groups.0.filters.0.field',
    );
  });

  it('given an unknown segment inside an inlined segment, then 422 names the outer filter', () => {
    const condition: Condition = {
      logic: 'OR',
      groups: [
        { filters: [{ field: 'subscribed', operator: 'equals', value: true }] },
        { filters: [], conditions: member('a') },
      ],
    };
    expect(errorsOf(condition, { a: dynamic(member('gone')) })).toEqual([
      [
        'condition.groups.1.conditions.groups.0.filters.0.field',
        'unknown_segment',
        'Unknown segment gone',
      ],
    ]);
  });

  it('given an unknown segment inside a tracked segment, then it is not needed', () => {
    const segments = { t: dynamic(member('gone'), true) };
    expect(compileCondition(member('t'), contextOf(segments))).toEqual({ segments: 't' });
  });

  it('given a dynamic untracked segment without condition, then 422', () => {
    expect(errorsOf(member('d'), { d: { type: 'DYNAMIC', trackMembership: false } })[0]?.[1]).toBe(
      'unknown_segment',
    );
  });

  it('given a cycle of untracked segments, then 422 segment_cycle with the chain', () => {
    const segments = { a: dynamic(member('b')), b: dynamic(member('a')) };
    expect(errorsOf(member('a'), segments)).toEqual([
      [
        'condition.groups.0.filters.0.field',
        'segment_cycle',
        'Segment references form a cycle: a → b → a',
      ],
    ]);
  });

  it('given a cycle through a tracked segment, then 422 too', () => {
    const segments = { a: dynamic(member('t')), t: dynamic(member('a'), true) };
    expect(errorsOf(member('a'), segments)[0]?.[1]).toBe('segment_cycle');
  });

  it('given the segment itself as context, then a reference back to it is a cycle', () => {
    const segments = { a: dynamic(member('self')) };
    expect(errorsOf(member('a'), segments, { segmentId: 'self' })).toEqual([
      [
        'condition.groups.0.filters.0.field',
        'segment_cycle',
        'Segment references form a cycle: self → a → self',
      ],
    ]);
    expect(
      errorsOf(
        member('self'),
        { self: { type: 'STATIC', trackMembership: false } },
        { segmentId: 'self' },
      )[0]?.[1],
    ).toBe('segment_cycle');
  });

  it('given a diamond (two paths to one segment), then it is no cycle', () => {
    const segments = {
      a: dynamic({
        logic: 'OR',
        groups: [
          {
            filters: [
              { field: 'segment.b', operator: 'memberOfSegment' },
              { field: 'segment.c', operator: 'memberOfSegment' },
            ],
          },
        ],
      }),
      b: dynamic(member('d')),
      c: dynamic(member('d')),
      d: { type: 'STATIC', trackMembership: false } as const,
    };
    const context = contextOf(segments);
    expect(compileCondition(member('a'), context)).toEqual({
      $and: [{ segments: 'd' }, { segments: 'd' }],
    });
    expect(evaluateCondition(member('a'), audienceDocument({ segments: ['d'] }), context)).toBe(
      true,
    );
  });

  it('given references that inline to too many filters, then 422 too_big', () => {
    // Each level references the one below twice: s8 inlines to 766 filters, s10 to 3,070.
    const segments: Record<string, SegmentReference> = {
      s0: dynamic(allOf({ field: 'subscribed', operator: 'equals', value: true })),
    };
    for (let level = 1; level <= 10; level += 1) {
      const previous = { field: `segment.s${level - 1}`, operator: 'memberOfSegment' } as const;
      segments[`s${level}`] = dynamic(allOf(previous, previous));
    }
    const [error] = errorsOf(member('s10'), segments);
    expect(error?.slice(0, 2)).toEqual(['condition.groups.0.filters.0.field', 'too_big']);
    expect(MAX_EXPANDED_FILTERS).toBe(1000);
    expect(() => compileCondition(member('s8'), contextOf(segments))).not.toThrow();
  });
});
