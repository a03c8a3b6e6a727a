/**
 * The segments service module: routes, the `segments` and `segmentAudience` projections, tracked
 * membership and the scheduler of its timers.
 */
import type { ContactsApi, SegmentsApi } from '@stamp/contracts';
import {
  consumeProjectResets,
  deleteProjectDocuments,
  type ServiceDeps,
  type ServiceModule,
} from '@stamp/http-kit';
import {
  type Consumer,
  type LeaseStore,
  type RecordedEvent,
  startTimerScheduler,
  type TimerScheduler,
  type TimerSettings,
} from '@stamp/platform';
import type { Router } from 'express';

import {
  AUDIENCE_TOPICS,
  AUDIENCE_VIEW,
  AUDIENCE_VIEW_GROUP,
  createAudienceIndexes,
  prefetchAudience,
  projectAudience,
} from './audience/projection.ts';
import { segmentsRouter } from './segments/api.ts';
import { createAudiences } from './segments/audiences.ts';
import { createSegmentCommands } from './segments/commands.ts';
import { SEGMENT_CATEGORY } from './segments/events.ts';
import { createSegmentMembership } from './segments/membership.ts';
import { SEGMENTS_VIEW_GROUP, segmentsProjection } from './segments/projection.ts';
import { SEGMENTS_VIEW, segmentsView } from './segments/views.ts';
import { MEMBERSHIP_GROUP, membershipStarter } from './membership/starter.ts';
import { MembershipTracker } from './membership/tracker.ts';
import { createMembershipIndexes, MEMBERS_VIEW, SEGMENT_TIMERS } from './membership/views.ts';

/** Consumer group wiping a reset project's segments, memberships and summaries. */
const SEGMENTS_RESET_GROUP = 'segments-project-reset';

/** Dependencies of {@link createSegmentsService}. */
export interface SegmentsServiceDeps extends ServiceDeps {
  /** Creates the missing contacts of `POST /segments/:id/members` with `createMissing`. */
  contacts: Pick<ContactsApi, 'upsertRecipient'>;
  /** Leases of the membership timers' scheduler (one firing process at a time). */
  leases: LeaseStore;
  /** Whether start() runs the scheduler of membership timers (default true); its poll, ms. */
  timers?: TimerSettings;
  /** The clock of relative-time conditions in tracked membership (default: the system clock). */
  now?: () => Date;
}

/**
 * Creates the segments service. `router` serves the routes of spec part 4 "Segments", `api` the
 * audiences of campaigns;
 * `start()` creates the view indexes and starts the `segments-view` projection (topic `segment`)
 * and the `segments-audience` projection (topics `contact`, `trackedEvent`, `email`, `segment`);
 * `stop()` stops both after the work in progress.
 */
export function createSegmentsService(
  deps: SegmentsServiceDeps,
): ServiceModule & { router: Router; api: SegmentsApi } {
  const commands = createSegmentCommands(deps.store);
  const membership = createSegmentMembership(deps.views);
  const tracker = new MembershipTracker({
    store: deps.store,
    views: deps.views,
    logger: deps.logger,
    ...(deps.now === undefined ? {} : { now: deps.now }),
  });
  const router = segmentsRouter({
    commands,
    membership,
    tracker,
    contacts: deps.contacts,
    views: deps.views,
    awaitViews: deps.awaitViews,
  });
  let consumers: Consumer[] = [];
  let workers: Consumer[] = [];
  let reset: Consumer | undefined;
  let scheduler: TimerScheduler | undefined;

  return {
    name: 'segments',
    router,
    api: createAudiences(deps.views, commands, membership),
    views: [
      { groupId: SEGMENTS_VIEW_GROUP, collections: [SEGMENTS_VIEW] },
      { groupId: AUDIENCE_VIEW_GROUP, collections: [AUDIENCE_VIEW, MEMBERS_VIEW] },
      { groupId: SEGMENTS_RESET_GROUP, collections: [] },
    ],
    async start(options) {
      if (consumers.length > 0) return;
      // A rebuild replays the log into the views alone: evaluating memberships on half-built
      // views would enter and exit contacts at random.
      const live = options?.replay !== true;
      const audienceHandler = async (event: RecordedEvent): Promise<void> => {
        await projectAudience(deps.views, event);
        await tracker.project(event);
        if (live) await tracker.evaluate(event);
      };
      await segmentsView(deps.views).createIndex({ projectId: 1 });
      await createAudienceIndexes(deps.views);
      await createMembershipIndexes(deps.views);
      consumers = [
        deps.bus.consume({
          groupId: SEGMENTS_VIEW_GROUP,
          topics: [SEGMENT_CATEGORY],
          handle: segmentsProjection(deps.views),
        }),
        deps.bus.consume({
          groupId: AUDIENCE_VIEW_GROUP,
          topics: AUDIENCE_TOPICS,
          handle: audienceHandler,
          handleBatch: async (events) => {
            await prefetchAudience(deps.views, events);
            for (const event of events) await audienceHandler(event);
          },
        }),
      ];
      const views = consumers.slice();
      reset = consumeProjectResets({
        bus: deps.bus,
        groupId: SEGMENTS_RESET_GROUP,
        projections: () => views,
        wipe: (notice) =>
          deleteProjectDocuments(
            deps.views,
            {
              [SEGMENTS_VIEW]: 'createdAt',
              [MEMBERS_VIEW]: null,
              [AUDIENCE_VIEW]: 'createdAt',
              [SEGMENT_TIMERS]: null,
            },
            notice,
          ),
      });
      if (!live) return;
      workers = [
        deps.bus.consume({
          groupId: MEMBERSHIP_GROUP,
          topics: [SEGMENT_CATEGORY],
          // A process manager: a full pass of a segment takes seconds.
          ownPass: true,
          handle: membershipStarter({ commands, tracker, logger: deps.logger }),
        }),
      ];
      scheduler = startTimerScheduler(
        {
          store: deps.store,
          views: deps.views,
          leases: deps.leases,
          logger: deps.logger,
          collection: SEGMENT_TIMERS,
        },
        deps.timers,
      );
    },
    async stop() {
      await scheduler?.stop();
      scheduler = undefined;
      const running = [...workers, ...consumers, ...(reset === undefined ? [] : [reset])];
      consumers = [];
      reset = undefined;
      workers = [];
      for (const consumer of running) await consumer.stop();
    },
    projections: () => (reset === undefined ? consumers : [...consumers, reset]),
  };
}
