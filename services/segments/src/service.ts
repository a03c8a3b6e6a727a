/**
 * The segments service module: routes, the `segments` and `segmentAudience` projections.
 */
import type { ContactsApi, SegmentsApi } from '@stamp/contracts';
import type { ServiceDeps, ServiceModule } from '@stamp/http-kit';
import type { Consumer, RecordedEvent } from '@stamp/platform';
import type { Router } from 'express';

import {
  AUDIENCE_TOPICS,
  AUDIENCE_VIEW,
  AUDIENCE_VIEW_GROUP,
  createAudienceIndexes,
  projectAudience,
} from './audience/projection.ts';
import { segmentsRouter } from './segments/api.ts';
import { createAudiences } from './segments/audiences.ts';
import { createSegmentCommands } from './segments/commands.ts';
import { SEGMENT_CATEGORY } from './segments/events.ts';
import { createSegmentMembership } from './segments/membership.ts';
import { SEGMENTS_VIEW_GROUP, segmentsProjection } from './segments/projection.ts';
import { SEGMENTS_VIEW, segmentsView } from './segments/views.ts';

/** Dependencies of {@link createSegmentsService}. */
export interface SegmentsServiceDeps extends ServiceDeps {
  /** Creates the missing contacts of `POST /segments/:id/members` with `createMissing`. */
  contacts: Pick<ContactsApi, 'upsertRecipient'>;
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
  const router = segmentsRouter({
    commands,
    membership,
    contacts: deps.contacts,
    views: deps.views,
    awaitViews: deps.awaitViews,
  });
  let consumers: Consumer[] = [];

  return {
    name: 'segments',
    router,
    api: createAudiences(deps.views, commands, membership),
    views: [
      { groupId: SEGMENTS_VIEW_GROUP, collections: [SEGMENTS_VIEW] },
      { groupId: AUDIENCE_VIEW_GROUP, collections: [AUDIENCE_VIEW] },
    ],
    async start() {
      if (consumers.length > 0) return;
      await segmentsView(deps.views).createIndex({ projectId: 1 });
      await createAudienceIndexes(deps.views);
      consumers = [
        deps.bus.consume({
          groupId: SEGMENTS_VIEW_GROUP,
          topics: [SEGMENT_CATEGORY],
          handle: segmentsProjection(deps.views),
        }),
        deps.bus.consume({
          groupId: AUDIENCE_VIEW_GROUP,
          topics: AUDIENCE_TOPICS,
          handle: (event: RecordedEvent) => projectAudience(deps.views, event),
        }),
      ];
    },
    async stop() {
      const running = consumers;
      consumers = [];
      for (const consumer of running) await consumer.stop();
    },
    projections: () => consumers,
  };
}
