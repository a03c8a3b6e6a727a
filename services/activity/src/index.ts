/**
 * The activity service: the cross-resource activity feed (spec part 4, "GET /activity",
 * "/activity/stats", "/activity/recent-count", "/activity/types", "/activity/upcoming"). It owns
 * no events: its `activity-view` projection reads the contact, tracked-event and email streams
 * (contracts in `@stamp/contracts`, "integration events") into the `activity` feed and its
 * `activityStats` counters.
 */
import {
  CONTACT_STREAM_CATEGORY,
  CAMPAIGN_STREAM_CATEGORY,
  EMAIL_STREAM_CATEGORY,
  SEGMENT_MEMBERSHIP_STREAM_CATEGORY,
  TRACKED_EVENT_STREAM_CATEGORY,
  WORKFLOW_EXECUTION_STREAM_CATEGORY,
  INBOUND_EMAIL_STREAM_CATEGORY,
} from '@stamp/contracts';
import type { ServiceDeps, ServiceModule } from '@stamp/http-kit';
import type { Consumer, RecordedEvent } from '@stamp/platform';
import { Router } from 'express';

import { activityRouter } from './feed/api.ts';
import { ACTIVITY_COLLECTIONS, createActivityIndexes } from './feed/items.ts';
import { ACTIVITY_VIEW_GROUP, projectActivity } from './feed/projection.ts';
import { createUpcomingIndexes, upcomingRouter } from './upcoming/api.ts';

export {
  ACTIVITY_COLLECTIONS,
  ACTIVITY_TYPES,
  type ActivityType,
  dropActivityViews,
} from './feed/items.ts';
export { ACTIVITY_VIEW_GROUP, projectActivity } from './feed/projection.ts';
export type { ActivityItem } from './feed/query.ts';

/** Topics (stream categories) the projection reads. */
export const ACTIVITY_TOPICS = [
  CONTACT_STREAM_CATEGORY,
  TRACKED_EVENT_STREAM_CATEGORY,
  EMAIL_STREAM_CATEGORY,
  CAMPAIGN_STREAM_CATEGORY,
  SEGMENT_MEMBERSHIP_STREAM_CATEGORY,
  WORKFLOW_EXECUTION_STREAM_CATEGORY,
  INBOUND_EMAIL_STREAM_CATEGORY,
] as const;

/** Options of {@link createActivityService}. */
export interface ActivityOptions {
  /** Clock of the time windows (default days of stats, recent counts, upcoming); tests. */
  now?: () => Date;
  /** Streams projected in parallel (default 8); events of one stream stay in order. */
  concurrency?: number;
}

/**
 * Creates the activity service. `router` serves GET /activity, /activity/stats,
 * /activity/recent-count, /activity/types and /activity/upcoming (secret key); `start()` creates
 * the view indexes and starts the `activity-view` consumer (topics `contact`, `trackedEvent`,
 * `email`, `campaign`, `segmentMembership`, `workflowExecution`); `stop()` stops it after the batch
 * in progress; `projections()` returns it for read-your-writes; `views` names the group and the
 * collections a view rebuild drops and replays.
 */
export function createActivityService(
  deps: ServiceDeps,
  options: ActivityOptions = {},
): ServiceModule & { router: Router; projections(): Consumer[] } {
  const router = Router();
  const now = options.now ?? (() => new Date());
  router.use(upcomingRouter({ views: deps.views, now }));
  router.use(activityRouter({ views: deps.views, now }));

  let consumer: Consumer | undefined;
  const handle = (event: RecordedEvent): Promise<void> => projectActivity(deps.views, event);

  return {
    name: 'activity',
    router,
    views: [{ groupId: ACTIVITY_VIEW_GROUP, collections: ACTIVITY_COLLECTIONS }],
    async start() {
      if (consumer !== undefined) return;
      await createActivityIndexes(deps.views);
      await createUpcomingIndexes(deps.views);
      consumer = deps.bus.consume({
        groupId: ACTIVITY_VIEW_GROUP,
        topics: ACTIVITY_TOPICS,
        handle,
        concurrency: options.concurrency ?? 8,
      });
    },
    async stop() {
      const running = consumer;
      consumer = undefined;
      await running?.stop();
    },
    projections: () => (consumer === undefined ? [] : [consumer]),
  };
}
