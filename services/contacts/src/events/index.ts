/**
 * Tracked events of the contacts service (spec part 4, "Events"): the read routes and deletion by
 * name over the views that the `tracked-events-view` projection fills from the event log.
 */
import { SEGMENT_MEMBERSHIP_STREAM_CATEGORY } from '@stamp/contracts';
import type { ProjectionViews, ServiceDeps } from '@stamp/http-kit';
import type { Consumer } from '@stamp/platform';
import type { Router } from 'express';

import { CONTACT_CATEGORY } from '../contacts/events.ts';
import { TRACKED_EVENT_CATEGORY } from '../track/events.ts';
import { trackedEventsRouter } from './api.ts';
import { TrackedEventCommands } from './commands.ts';
import { TRACKED_EVENT_NAME_CATEGORY } from './events.ts';
import { TrackedEventsProjection } from './projection.ts';
import { TrackedEventQueries } from './queries.ts';
import {
  createTrackedEventIndexes,
  TRACKED_EVENT_BUCKETS_VIEW,
  TRACKED_EVENT_DAYS_VIEW,
  TRACKED_EVENT_ERASURES_VIEW,
  TRACKED_EVENT_NAMES_VIEW,
  TRACKED_EVENTS_VIEW,
} from './views.ts';

export { TRACKED_EVENT_NAME_CATEGORY, type TrackedEventsDeleted } from './events.ts';
export {
  TRACKED_EVENTS_VIEW,
  TRACKED_EVENT_NAMES_VIEW,
  TRACKED_EVENT_DAYS_VIEW,
  type TrackedEventView,
  type TrackedEventNameView,
  type TrackedEventDayView,
} from './views.ts';

/** Consumer group of the tracked-events projection. */
export const TRACKED_EVENTS_VIEW_GROUP = 'tracked-events-view';

/** Dependencies of {@link createTrackedEvents}. */
export interface TrackedEventsDeps extends ServiceDeps {
  /** Clock of the stats window, epoch ms (default `Date.now`). */
  now?: () => number;
}

/** The tracked-events part of the contacts service. */
export interface TrackedEvents {
  /** GET /events, /events/stats, /events/names, /events/contact/:contactId,
   * /events/:eventName/usage and DELETE /events/:eventName. */
  router: Router;
  /** The projection's consumer group and the collections it fills (for view rebuilds). */
  views: readonly ProjectionViews[];
  /** Creates the view indexes and starts the projection. Idempotent. */
  start(): Promise<void>;
  /** Stops the projection after the batch in progress. */
  stop(): Promise<void>;
  /** The running projection consumer, for read-your-writes. */
  projections(): Consumer[];
}

/**
 * Creates the tracked-events part: `router` (see {@link trackedEventsRouter}); `start()` runs the
 * `tracked-events-view` consumer on topics `trackedEvent`, `contact`, `trackedEventName` and
 * `segmentMembership`.
 */
export function createTrackedEvents(deps: TrackedEventsDeps): TrackedEvents {
  const projection = new TrackedEventsProjection({ views: deps.views, store: deps.store });
  const commands = new TrackedEventCommands({
    store: deps.store,
    views: deps.views,
    awaitViews: deps.awaitViews,
    logger: deps.logger,
  });
  const queries = new TrackedEventQueries(deps.views, deps.now);
  const router = trackedEventsRouter({ commands, queries, views: deps.views });
  let consumers: Consumer[] = [];
  return {
    router,
    views: [
      {
        groupId: TRACKED_EVENTS_VIEW_GROUP,
        collections: [
          TRACKED_EVENTS_VIEW,
          TRACKED_EVENT_BUCKETS_VIEW,
          TRACKED_EVENT_NAMES_VIEW,
          TRACKED_EVENT_DAYS_VIEW,
          TRACKED_EVENT_ERASURES_VIEW,
        ],
      },
    ],
    async start() {
      if (consumers.length > 0) return;
      await createTrackedEventIndexes(deps.views);
      consumers = [
        deps.bus.consume({
          groupId: TRACKED_EVENTS_VIEW_GROUP,
          topics: [
            TRACKED_EVENT_CATEGORY,
            CONTACT_CATEGORY,
            TRACKED_EVENT_NAME_CATEGORY,
            SEGMENT_MEMBERSHIP_STREAM_CATEGORY,
          ],
          handle: (event) => projection.handle(event),
          handleBatch: (events) => projection.handleBatch(events),
          concurrency: 16,
        }),
      ];
    },
    async stop() {
      const running = consumers;
      consumers = [];
      await Promise.all(running.map((consumer) => consumer.stop()));
    },
    projections: () => consumers,
  };
}
