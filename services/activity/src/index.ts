/**
 * The activity service: the cross-resource activity feed (spec part 4, "GET /activity",
 * "/activity/stats", "/activity/recent-count", "/activity/types", "/activity/upcoming") and the
 * webhook endpoints that receive the integration events (API reference, "Webhook endpoints").
 * Its `activity-view` projection reads the contact, tracked-event and email streams (contracts
 * in `@stamp/contracts`, "integration events") into the `activity` feed and its `activityStats`
 * counters; it owns the `webhookEndpoint` streams, and its dispatch (`activity-webhooks`) reads
 * the same topics into deliveries that its delivery worker posts.
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
import {
  consumeProjectResets,
  deleteProjectDocuments,
  type ServiceDeps,
  type ServiceModule,
} from '@stamp/http-kit';
import type { Consumer, LeaseStore, RecordedEvent, Resolver, Secrets } from '@stamp/platform';
import { Router } from 'express';

import { analyticsRouter } from './analytics/api.ts';
import { activityRouter } from './feed/api.ts';
import {
  ACTIVITY_COLLECTIONS,
  ACTIVITY_STATS_VIEW,
  ACTIVITY_VIEW,
  createActivityIndexes,
} from './feed/items.ts';
import { ACTIVITY_VIEW_GROUP, projectActivity, projectActivityBatch } from './feed/projection.ts';
import { createUpcomingIndexes, upcomingRouter } from './upcoming/api.ts';
import { webhookEndpointsRouter } from './webhooks/api.ts';
import {
  createDeliveryIndexes,
  dispatchWebhooks,
  WEBHOOK_DELIVERIES,
  WEBHOOK_DISPATCH_GROUP,
} from './webhooks/deliveries.ts';
import {
  createWebhookEndpointIndexes,
  projectWebhookEndpoint,
  WEBHOOK_ENDPOINTS,
  webhookEndpointCommands,
} from './webhooks/endpoints.ts';
import { WEBHOOK_ENDPOINT_CATEGORY } from './webhooks/events.ts';
import { type DeliveryWorkerOptions, WebhookDeliveryWorker } from './webhooks/worker.ts';

export {
  ACTIVITY_COLLECTIONS,
  ACTIVITY_TYPES,
  type ActivityType,
  dropActivityViews,
} from './feed/items.ts';
export { ACTIVITY_VIEW_GROUP, projectActivity } from './feed/projection.ts';
export type { ActivityItem } from './feed/query.ts';
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhooks/payloads.ts';

/** Consumer group wiping a reset project's feed, counters and webhook deliveries. */
const ACTIVITY_RESET_GROUP = 'activity-project-reset';

/** Consumer group of the `webhookEndpoints` view. */
export const WEBHOOK_ENDPOINTS_VIEW_GROUP = 'activity-webhook-endpoints';

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
  /** Settings of the webhook delivery worker (tests, benchmarks); `enabled: false` stops it. */
  deliveries?: Partial<
    Pick<
      DeliveryWorkerOptions,
      | 'now'
      | 'intervalMs'
      | 'timeoutMs'
      | 'retryDelaysMs'
      | 'disableAfterMs'
      | 'maxInFlight'
      | 'perEndpoint'
    >
  > & { enabled?: boolean };
}

/** What the activity service needs beyond the platform's ports: for webhook endpoints. */
export interface ActivityDeps extends ServiceDeps {
  /** Leases of the delivery worker. */
  leases: LeaseStore;
  /** Seals the endpoints' signing keys. */
  secrets: Secrets;
  /** Resolves endpoint host names (STAMP_DNS_SERVERS). */
  resolver: Resolver;
  /** STAMP_ALLOW_PRIVATE_TARGETS. */
  allowPrivateTargets: boolean;
}

/**
 * Creates the activity service. `router` serves GET /activity, /activity/stats,
 * /activity/recent-count, /activity/types, /activity/upcoming and /webhook-endpoints (secret
 * key); `start()` creates the view indexes and starts the consumers: `activity-view` (topics
 * `contact`, `trackedEvent`, `email`, `campaign`, `segmentMembership`, `workflowExecution`,
 * `inboundEmail`), `activity-webhook-endpoints` (topic `webhookEndpoint`) and the dispatch
 * `activity-webhooks` (the feed's topics), and the delivery worker; `stop()` stops them after the
 * work in progress; `projections()` returns the two view consumers for read-your-writes; `views`
 * names their groups and the collections a view rebuild drops and replays (deliveries are not
 * among them: a replay would post every event again).
 */
export function createActivityService(
  deps: ActivityDeps,
  options: ActivityOptions = {},
): ServiceModule & { router: Router; projections(): Consumer[]; worker: WebhookDeliveryWorker } {
  const router = Router();
  const now = options.now ?? (() => new Date());
  const commands = webhookEndpointCommands(deps.store, deps.secrets);
  const { enabled: deliveriesEnabled = true, ...settings } = options.deliveries ?? {};
  const worker = new WebhookDeliveryWorker({
    ...settings,
    views: deps.views,
    leases: deps.leases,
    secrets: deps.secrets,
    resolver: deps.resolver,
    allowPrivateTargets: deps.allowPrivateTargets,
    commands,
    logger: deps.logger,
  });
  router.use(upcomingRouter({ views: deps.views, now }));
  router.use(activityRouter({ views: deps.views, now }));
  router.use(analyticsRouter({ views: deps.views, now }));
  router.use(
    webhookEndpointsRouter({
      views: deps.views,
      commands,
      secrets: deps.secrets,
      awaitViews: deps.awaitViews,
      allowPrivateTargets: deps.allowPrivateTargets,
      nudge: () => {
        worker.nudge();
      },
      now: Date.now,
    }),
  );

  let consumers: Consumer[] = [];
  let dispatch: Consumer | undefined;
  let reset: Consumer | undefined;
  const handle = (event: RecordedEvent): Promise<void> => projectActivity(deps.views, event);
  const handleBatch = (events: readonly RecordedEvent[]): Promise<void> =>
    projectActivityBatch(deps.views, events);

  return {
    name: 'activity',
    router,
    worker,
    views: [
      { groupId: ACTIVITY_VIEW_GROUP, collections: ACTIVITY_COLLECTIONS },
      { groupId: WEBHOOK_ENDPOINTS_VIEW_GROUP, collections: [WEBHOOK_ENDPOINTS] },
      { groupId: ACTIVITY_RESET_GROUP, collections: [] },
    ],
    async start() {
      if (consumers.length > 0) return;
      await createActivityIndexes(deps.views);
      await createUpcomingIndexes(deps.views);
      await createWebhookEndpointIndexes(deps.views);
      await createDeliveryIndexes(deps.views);
      const concurrency = options.concurrency ?? 8;
      consumers = [
        deps.bus.consume({
          groupId: ACTIVITY_VIEW_GROUP,
          topics: ACTIVITY_TOPICS,
          handle,
          handleBatch,
          concurrency,
        }),
        deps.bus.consume({
          groupId: WEBHOOK_ENDPOINTS_VIEW_GROUP,
          topics: [WEBHOOK_ENDPOINT_CATEGORY],
          handle: (event) => projectWebhookEndpoint(deps.views, event),
        }),
      ];
      const views = consumers.slice();
      reset = consumeProjectResets({
        bus: deps.bus,
        groupId: ACTIVITY_RESET_GROUP,
        projections: () => (dispatch === undefined ? views : [...views, dispatch]),
        wipe: (notice) =>
          deleteProjectDocuments(
            deps.views,
            {
              [ACTIVITY_VIEW]: 'at',
              [ACTIVITY_STATS_VIEW]: null,
              [WEBHOOK_DELIVERIES]: 'createdAt',
            },
            notice,
          ),
      });
      dispatch = deps.bus.consume({
        groupId: WEBHOOK_DISPATCH_GROUP,
        topics: ACTIVITY_TOPICS,
        handle: async (event) => {
          if ((await dispatchWebhooks(deps.views, event, Date.now())) > 0) worker.nudge();
        },
        concurrency,
      });
      if (deliveriesEnabled) worker.start();
    },
    async stop() {
      const running = [...consumers, ...[dispatch, reset].filter((c) => c !== undefined)];
      consumers = [];
      dispatch = undefined;
      reset = undefined;
      await worker.stop();
      await Promise.all(running.map((consumer) => consumer.stop()));
    },
    projections: () => (reset === undefined ? consumers : [...consumers, reset]),
  };
}
