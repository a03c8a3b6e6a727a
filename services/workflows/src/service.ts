/**
 * The workflows service module: routes, the `workflows` and `workflowExecutions` projections, the
 * trigger consumer, the execution engine and the scheduler of wait timers.
 */
import type { ContactsApi, WorkflowEmailsApi } from '@stamp/contracts';
import {
  consumeProjectResets,
  deleteProjectDocuments,
  type ServiceDeps,
  type ServiceModule,
} from '@stamp/http-kit';
import {
  type Consumer,
  type LeaseStore,
  startTimerScheduler,
  streamCommands,
  type TimerScheduler,
  type TimerSettings,
} from '@stamp/platform';

import { workflowsRouter } from './api.ts';
import {
  executionEngine,
  type WebhookCaller,
  WORKFLOWS_ENGINE_GROUP,
} from './executions/engine.ts';
import { EXECUTION_CATEGORY } from './executions/events.ts';
import { TRIGGER_TOPICS, triggerHandler, WORKFLOWS_TRIGGER_GROUP } from './executions/start.ts';
import {
  EXECUTIONS_VIEW_GROUP,
  EXECUTIONS_VIEW_TOPICS,
  executionsProjection,
  executionsView,
  WORKFLOW_EXECUTIONS_VIEW,
  WORKFLOW_TIMERS_VIEW,
} from './executions/views.ts';
import { WORKFLOW_CATEGORY, workflowModel } from './workflows/events.ts';
import {
  WORKFLOWS_VIEW,
  WORKFLOWS_VIEW_GROUP,
  workflowsProjection,
  workflowsView,
} from './workflows/views.ts';

/** Consumer group wiping a reset project's workflows and executions. */
const WORKFLOWS_RESET_GROUP = 'workflows-project-reset';

/** Dependencies of {@link createWorkflowsService}. */
export interface WorkflowsServiceDeps extends ServiceDeps {
  leases: LeaseStore;
  /** Templates and workflow emails (the sending service). */
  sending: WorkflowEmailsApi;
  /** UPDATE_CONTACT steps (the contacts service). */
  contacts: ContactsApi;
  /** WEBHOOK steps' requests. */
  webhook: WebhookCaller;
  /** Whether start() runs the scheduler of wait timers (default true); its poll interval, ms. */
  timers?: TimerSettings;
  /** The clock (tests set it). */
  now?: () => Date;
}

/**
 * Creates the workflows service (spec part 4 "Workflows"). `start()` creates the view indexes and
 * starts the projections (`workflows-view`, `workflow-executions-view`), the trigger consumer
 * (`workflows-trigger`), the engine (`workflows-engine`) and a TimerScheduler over
 * `workflowTimers`; `stop()` stops them after the work in progress.
 */
export function createWorkflowsService(deps: WorkflowsServiceDeps): ServiceModule {
  const now = deps.now ?? (() => new Date());
  const workflows = streamCommands(deps.store, workflowModel);
  const router = workflowsRouter({
    store: deps.store,
    views: deps.views,
    workflows,
    sending: deps.sending,
    awaitViews: deps.awaitViews,
    now,
  });
  let consumers: Consumer[] = [];
  let reset: Consumer | undefined;
  let scheduler: TimerScheduler | undefined;

  return {
    name: 'workflows',
    router,
    views: [
      { groupId: WORKFLOWS_VIEW_GROUP, collections: [WORKFLOWS_VIEW] },
      {
        groupId: EXECUTIONS_VIEW_GROUP,
        collections: [WORKFLOW_EXECUTIONS_VIEW, WORKFLOW_TIMERS_VIEW],
      },
      { groupId: WORKFLOWS_RESET_GROUP, collections: [] },
    ],
    async start(options) {
      if (consumers.length > 0) return;
      await workflowsView(deps.views).createIndex({ projectId: 1, eventName: 1 });
      await workflowsView(deps.views).createIndex({ projectId: 1, waitEventNames: 1 });
      const executions = executionsView(deps.views);
      await executions.createIndex({ workflowId: 1, status: 1 });
      await executions.createIndex({ projectId: 1, contactId: 1, status: 1 });
      await executions.createIndex({ contactId: 1 });
      await deps.views.collection(WORKFLOW_TIMERS_VIEW).createIndex({ dueAt: 1 });
      await deps.views.collection(WORKFLOW_TIMERS_VIEW).createIndex({ executionId: 1 });
      const executionsConsumer = deps.bus.consume({
        groupId: EXECUTIONS_VIEW_GROUP,
        topics: EXECUTIONS_VIEW_TOPICS,
        handle: executionsProjection(deps.views),
      });
      consumers = [
        deps.bus.consume({
          groupId: WORKFLOWS_VIEW_GROUP,
          topics: [WORKFLOW_CATEGORY],
          handle: workflowsProjection(deps.views),
        }),
        executionsConsumer,
      ];
      const views = consumers.slice();
      reset = consumeProjectResets({
        bus: deps.bus,
        groupId: WORKFLOWS_RESET_GROUP,
        projections: () => views,
        // Running executions stop as their contacts are erased (ContactDeleted).
        wipe: (notice) =>
          deleteProjectDocuments(
            deps.views,
            { [WORKFLOWS_VIEW]: 'createdAt', [WORKFLOW_EXECUTIONS_VIEW]: 'startedAt' },
            notice,
          ),
      });
      // A rebuild replays the log into the views alone: nothing starts, runs or fires meanwhile.
      if (options?.replay === true) return;
      consumers.push(
        deps.bus.consume({
          groupId: WORKFLOWS_TRIGGER_GROUP,
          topics: TRIGGER_TOPICS,
          handle: triggerHandler({
            store: deps.store,
            views: deps.views,
            workflows,
            executionsReached: (position) => executionsConsumer.waitFor(position, 10_000),
            now,
          }),
        }),
        deps.bus.consume({
          groupId: WORKFLOWS_ENGINE_GROUP,
          topics: [EXECUTION_CATEGORY],
          concurrency: 8,
          // A process manager: its steps wait on other services and on webhooks.
          ownPass: true,
          handle: executionEngine({
            store: deps.store,
            views: deps.views,
            logger: deps.logger,
            workflows,
            sending: deps.sending,
            contacts: deps.contacts,
            webhook: deps.webhook,
            now,
          }),
        }),
      );
      scheduler = startTimerScheduler(
        {
          store: deps.store,
          views: deps.views,
          leases: deps.leases,
          logger: deps.logger,
          collection: WORKFLOW_TIMERS_VIEW,
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
    // The trigger consumer and the engine are workers: read-your-writes waits on the views (and
    // on the wipe of a project reset) only.
    projections: () => [...consumers.slice(0, 2), ...(reset === undefined ? [] : [reset])],
  };
}
