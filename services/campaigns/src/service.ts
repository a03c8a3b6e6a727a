/**
 * The campaigns service module: routes, the `campaigns` view projection, the dispatcher that
 * sends campaigns, and the scheduler of their timers.
 */
import type { CampaignEmailsApi, SegmentsApi } from '@stamp/contracts';
import {
  ApiError,
  consumeProjectResets,
  deleteProjectDocuments,
  type ServiceDeps,
  type ServiceModule,
} from '@stamp/http-kit';
import {
  type Consumer,
  type LeaseStore,
  startTimerScheduler,
  type TimerScheduler,
  type TimerSettings,
} from '@stamp/platform';

import { campaignsRouter } from './campaigns/api.ts';
import { type CampaignCommands, createCampaignCommands } from './campaigns/commands.ts';
import { decideCancel } from './campaigns/decide.ts';
import {
  CAMPAIGNS_DISPATCH_GROUP,
  type CampaignThrottle,
  campaignDispatcher,
  DEFAULT_THROTTLE,
} from './campaigns/dispatch.ts';
import { CAMPAIGN_CATEGORY } from './campaigns/events.ts';
import { CAMPAIGNS_VIEW_GROUP, campaignsProjection } from './campaigns/projection.ts';
import { CAMPAIGN_TIMERS_VIEW, CAMPAIGNS_VIEW, campaignsView } from './campaigns/views.ts';

/** Consumer group cancelling and wiping a reset project's campaigns. */
const CAMPAIGNS_RESET_GROUP = 'campaigns-project-reset';

/**
 * Cancels the project's SCHEDULED and SENDING campaigns (reason "The project was reset"); the
 * log position of the last cancellation, 0 when none. A campaign that moved on meanwhile is
 * left as it is.
 */
async function cancelActiveCampaigns(
  deps: Pick<CampaignsServiceDeps, 'views'>,
  commands: CampaignCommands,
  reset: { projectId: string; correlationId: string },
): Promise<number> {
  const active = await campaignsView(deps.views).find({
    projectId: reset.projectId,
    status: { $in: ['SCHEDULED', 'SENDING'] },
  });
  let position = 0;
  for (const campaign of active) {
    try {
      const result = await commands.execute(
        campaign._id,
        reset.projectId,
        reset.correlationId,
        (loaded) =>
          decideCancel(loaded.state, reset.projectId, new Date(), 'The project was reset'),
      );
      position = Math.max(position, result.position);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 409)) throw error;
    }
  }
  return position;
}

/** Dependencies of {@link createCampaignsService}. */
export interface CampaignsServiceDeps extends ServiceDeps {
  leases: LeaseStore;
  /** Audiences (the segments service). */
  segments: SegmentsApi;
  /** Sender checks, campaign emails and test sends (the sending service). */
  sending: CampaignEmailsApi;
  throttle?: Partial<CampaignThrottle>;
  /** Whether start() runs the scheduler of campaign timers (default true); its poll interval, ms. */
  timers?: TimerSettings;
}

/**
 * Creates the campaigns service (spec part 4 "Campaigns"). `start()` creates the view indexes
 * and starts the `campaigns-view` projection, the `campaigns-dispatch` process manager (both on
 * topic `campaign`) and a TimerScheduler over the `campaignTimers` view; `stop()` stops them
 * after the work in progress.
 */
export function createCampaignsService(deps: CampaignsServiceDeps): ServiceModule {
  const commands = createCampaignCommands(deps.store);
  const throttle = { ...DEFAULT_THROTTLE, ...deps.throttle };
  const router = campaignsRouter({
    commands,
    views: deps.views,
    segments: deps.segments,
    sending: deps.sending,
    awaitViews: deps.awaitViews,
  });
  let consumers: Consumer[] = [];
  let reset: Consumer | undefined;
  let scheduler: TimerScheduler | undefined;

  return {
    name: 'campaigns',
    router,
    views: [
      { groupId: CAMPAIGNS_VIEW_GROUP, collections: [CAMPAIGNS_VIEW, CAMPAIGN_TIMERS_VIEW] },
      { groupId: CAMPAIGNS_RESET_GROUP, collections: [] },
    ],
    async start(options) {
      if (consumers.length > 0) return;
      await campaignsView(deps.views).createIndex({ projectId: 1 });
      await deps.views.collection(CAMPAIGN_TIMERS_VIEW).createIndex({ dueAt: 1 });
      await deps.views.collection(CAMPAIGN_TIMERS_VIEW).createIndex({ campaignId: 1 });
      consumers = [
        deps.bus.consume({
          groupId: CAMPAIGNS_VIEW_GROUP,
          topics: [CAMPAIGN_CATEGORY],
          handle: campaignsProjection(deps.views),
        }),
      ];
      const [projection] = consumers;
      reset = consumeProjectResets({
        bus: deps.bus,
        groupId: CAMPAIGNS_RESET_GROUP,
        projections: () => consumers.slice(0, 1),
        wipe: async (notice) => {
          const cancelled = await cancelActiveCampaigns(deps, commands, notice);
          if (cancelled > 0 && !(await projection?.waitFor(cancelled, 30_000))) {
            throw new Error('the campaigns view did not reach the cancellations in time');
          }
          await deleteProjectDocuments(deps.views, { [CAMPAIGNS_VIEW]: 'createdAt' }, notice);
        },
      });
      // A rebuild replays the log into the views alone: nothing is sent or fired meanwhile.
      if (options?.replay === true) return;
      consumers.push(
        deps.bus.consume({
          groupId: CAMPAIGNS_DISPATCH_GROUP,
          topics: [CAMPAIGN_CATEGORY],
          concurrency: 4,
          // A process manager: its handler waits on the throttle and on delivery.
          ownPass: true,
          handle: campaignDispatcher({
            store: deps.store,
            views: deps.views,
            logger: deps.logger,
            commands,
            segments: deps.segments,
            sending: deps.sending,
            throttle,
          }),
        }),
      );
      scheduler = startTimerScheduler(
        {
          store: deps.store,
          views: deps.views,
          leases: deps.leases,
          logger: deps.logger,
          collection: CAMPAIGN_TIMERS_VIEW,
        },
        deps.timers,
      );
    },
    async stop() {
      await scheduler?.stop();
      scheduler = undefined;
      const running = [...consumers, ...(reset === undefined ? [] : [reset])];
      consumers = [];
      reset = undefined;
      for (const consumer of running) await consumer.stop();
    },
    // The dispatcher is a worker, not a view: read-your-writes waits on the projection (and on
    // the wipe of a project reset) only.
    projections: () => [...consumers.slice(0, 1), ...(reset === undefined ? [] : [reset])],
  };
}
