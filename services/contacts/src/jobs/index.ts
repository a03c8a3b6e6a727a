/**
 * Contact jobs (spec part 4, "Contacts"): CSV import and bulk subscribe, unsubscribe and delete,
 * queued as events, run by the `contact-jobs` worker and read from the `contactJobs` view.
 */
import type { AwaitViews } from '@stamp/contracts';
import type { Bus, Consumer, EventStore, Logger, RecordedEvent, ViewStore } from '@stamp/platform';
import type { Router } from 'express';

import type { ContactCommands } from '../contacts/commands.ts';
import { contactJobsRouter } from './api.ts';
import { JOB_CATEGORY } from './events.ts';
import { createContactJobIndexes, projectJobEvent } from './projection.ts';
import { ContactJobWorker } from './worker.ts';

export { CONTACT_JOBS_VIEW, type ContactJobView } from './projection.ts';
export { JOB_WORKER_GROUP } from './worker.ts';

/** Consumer group of the jobs projection. */
export const CONTACT_JOBS_VIEW_GROUP = 'contact-jobs-view';

/** Dependencies of {@link createContactJobs}. */
export interface ContactJobsDeps {
  /** The contact commands the rows run through (the same instance as the contact routes). */
  commands: ContactCommands;
  store: EventStore;
  bus: Bus;
  views: ViewStore;
  logger: Logger;
  awaitViews: AwaitViews;
  /** Rows of one chunk in flight at once (default 64). */
  rowConcurrency?: number;
  /** Jobs run in parallel (default 4). */
  jobConcurrency?: number;
}

/** Contact jobs as the contacts service hosts them. */
export interface ContactJobs {
  /**
   * POST /contacts/import, GET /contacts/import/:jobId, POST /contacts/bulk-subscribe,
   * /contacts/bulk-unsubscribe, /contacts/bulk-delete, GET /contacts/bulk/:jobId. Mount it before
   * the routes of /contacts/:id.
   */
  router: Router;
  /** Creates the view index and starts the projection (`contact-jobs-view`) and the worker. */
  start(): Promise<void>;
  /**
   * Stops the worker (rows in flight finish and their progress is recorded; interrupted jobs
   * resume on the next start), then the projection.
   */
  stop(): Promise<void>;
  /** The projection consumer, for read-your-writes (the worker is not one). */
  projections(): Consumer[];
}

/** Creates the contact jobs: routes, worker and projection. */
export function createContactJobs(deps: ContactJobsDeps): ContactJobs {
  const worker = new ContactJobWorker({
    commands: deps.commands,
    store: deps.store,
    bus: deps.bus,
    logger: deps.logger,
    awaitViews: deps.awaitViews,
    rowConcurrency: deps.rowConcurrency,
    jobConcurrency: deps.jobConcurrency,
  });
  const router = contactJobsRouter({
    store: deps.store,
    views: deps.views,
    awaitViews: deps.awaitViews,
  });
  let projection: Consumer | undefined;
  const handle = (event: RecordedEvent): Promise<void> => projectJobEvent(deps.views, event);

  return {
    router,
    async start() {
      if (projection !== undefined) return;
      await createContactJobIndexes(deps.views);
      projection = deps.bus.consume({
        groupId: CONTACT_JOBS_VIEW_GROUP,
        topics: [JOB_CATEGORY],
        handle,
        concurrency: 8,
      });
      worker.start();
    },
    async stop() {
      await worker.stop();
      const running = projection;
      projection = undefined;
      await running?.stop();
    },
    projections: () => (projection === undefined ? [] : [projection]),
  };
}
