/** A campaign's audience in words, and as a condition whose matches can be counted. */
import type { AudienceType, Condition } from './draft';

/** Each audience type in a few words. */
export const AUDIENCE_LABELS: Readonly<Record<AudienceType, string>> = {
  ALL: 'All subscribed contacts',
  SEGMENT: 'A segment',
  FILTERED: 'Contacts matching filters',
};

/**
 * The recipients of a SEGMENT or FILTERED audience as one condition: subscribed contacts (a
 * campaign never goes to the others) that are members of the segment, or match the filters.
 * Undefined for ALL, or for SEGMENT before a segment is chosen.
 */
export function recipientsCondition(
  audienceType: AudienceType,
  segmentId: string | null,
  audienceFilter: Condition,
): Condition | undefined {
  const subscribed = { field: 'subscribed', operator: 'equals' as const, value: true };
  switch (audienceType) {
    case 'ALL':
      return undefined;
    case 'SEGMENT':
      return segmentId === null
        ? undefined
        : {
            logic: 'AND',
            groups: [
              {
                filters: [
                  subscribed,
                  { field: `segment.${segmentId}`, operator: 'memberOfSegment' },
                ],
              },
            ],
          };
    case 'FILTERED':
      return { logic: 'AND', groups: [{ filters: [subscribed], conditions: audienceFilter }] };
  }
}
