/**
 * The audiences of campaigns (`SegmentsApi` of the contracts): ALL, SEGMENT and FILTERED
 * audiences answered from the audience view, subscribed contacts only.
 */
import type { Audience, AudiencePage, SegmentsApi } from '@stamp/contracts';
import { validationError } from '@stamp/http-kit';
import type { Filter, ViewStore } from '@stamp/platform';

import { audienceView, liveContacts } from '../audience/projection.ts';
import { compileCondition, type Condition } from '../condition/index.ts';
import type { SegmentCommands } from './commands.ts';
import { requireSegment } from './decide.ts';
import type { SegmentMembership } from './membership.ts';

/** Largest page of {@link SegmentsApi.audiencePage}. */
export const MAX_AUDIENCE_PAGE = 5000;

/** Builds the audience API over the segment streams and the audience view. */
export function createAudiences(
  views: ViewStore,
  commands: SegmentCommands,
  membership: SegmentMembership,
): SegmentsApi {
  const audience = audienceView(views);

  /**
   * The filter of an audience's subscribed contacts now.
   * @throws ApiError 404 SEGMENT_NOT_FOUND, 422 VALIDATION_ERROR.
   */
  async function filterOf(projectId: string, input: Audience): Promise<Filter> {
    const subscribed = { ...liveContacts(projectId), subscribed: true };
    switch (input.audienceType) {
      case 'ALL':
        return subscribed;
      case 'SEGMENT': {
        const segment = requireSegment((await commands.load(input.segmentId)).state, projectId);
        return { $and: [subscribed, await membership.filter(segment)] };
      }
      case 'FILTERED': {
        const condition = await checkFilter(projectId, input.audienceFilter);
        // Every reference was resolved by the check: segments are inlined at this instant.
        const compiled = compileCondition(condition, {
          now: new Date(),
          resolveSegment: await membership.resolver(projectId),
          field: 'audienceFilter',
        });
        return { $and: [subscribed, compiled] };
      }
      default:
        throw validationError([
          { field: 'audienceType', message: 'Unknown audience type', code: 'invalid_value' },
        ]);
    }
  }

  const checkFilter = (projectId: string, input: unknown): Promise<Condition> =>
    membership.validate(projectId, input, undefined, 'audienceFilter');

  return {
    async checkAudience(projectId, input) {
      if (input.audienceType === 'FILTERED') return checkFilter(projectId, input.audienceFilter);
      await filterOf(projectId, input);
      return null;
    },

    async audiencePage(projectId, input, after, limit): Promise<AudiencePage> {
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIENCE_PAGE) {
        throw validationError([
          { field: 'limit', message: `From 1 to ${MAX_AUDIENCE_PAGE}`, code: 'too_big' },
        ]);
      }
      const filter = await filterOf(projectId, input);
      const page = await audience.find(
        after === null ? filter : { $and: [filter, { _id: { $gt: after } }] },
        { sort: { _id: 1 }, limit },
      );
      return { contactIds: page.map((document) => document._id) };
    },
  };
}
