/**
 * How every service wipes its part of a project on `ProjectReset` (spec part 4, `POST
 * /users/@me/projects/:id/reset`): a consumer group of the service reads the `project` topic,
 * waits until the service's own projections have projected every event up to the reset, then
 * wipes. It runs during a view rebuild too (list its group among the service's `views`), so a
 * rebuilt view is wiped at the same point of the log.
 */
import type { Bus, Consumer, ViewStore } from '@stamp/platform';

/** Topic (stream category) of the project streams, where `ProjectReset` is recorded. */
export const PROJECT_TOPIC = 'project';

/** Longest wait for the service's projections to reach a reset before the event is retried, ms. */
const CATCH_UP_TIMEOUT_MS = 30_000;

/** A reset as a service's wipe receives it. */
export interface ProjectResetNotice {
  projectId: string;
  /** ISO 8601 time of the reset: documents created later are not the reset's. */
  resetAt: string;
  /** Log position of the `ProjectReset` event. */
  position: number;
  /** Correlation id of the reset request, for the events a wipe appends. */
  correlationId: string;
}

/** Options of {@link consumeProjectResets}. */
export interface ProjectResetOptions {
  bus: Bus;
  /** The consumer group, `<service>-project-reset`. */
  groupId: string;
  /**
   * The service's projections that must have reached the reset before the wipe (never this
   * consumer itself).
   */
  projections: () => readonly Consumer[];
  /** Wipes the project's part of the service; must be idempotent (redeliveries, rebuilds). */
  wipe: (reset: ProjectResetNotice) => Promise<void>;
}

/**
 * Starts the consumer of `ProjectReset` events of one service (its own pass of the log, since it
 * waits on the service's projections). A projection that does not reach the reset within 30 s
 * makes the event retried.
 */
export function consumeProjectResets(options: ProjectResetOptions): Consumer {
  return options.bus.consume({
    groupId: options.groupId,
    topics: [PROJECT_TOPIC],
    ownPass: true,
    handle: async (event) => {
      if (event.type !== 'ProjectReset') return;
      for (const projection of options.projections()) {
        if (!(await projection.waitFor(event.position, CATCH_UP_TIMEOUT_MS))) {
          throw new Error(`${projection.groupId} did not reach the project reset in time`);
        }
      }
      const { resetAt } = event.data as { resetAt: string };
      await options.wipe({
        projectId: event.streamId.slice(`${PROJECT_TOPIC}-`.length),
        resetAt,
        position: event.position,
        correlationId: event.metadata.correlationId ?? event.id,
      });
    },
  });
}

/**
 * The collections a service wipes, each with the field holding the ISO 8601 time its documents
 * were created, or null for documents that sum over time (counters) and go whatever their age.
 */
export type ProjectCollections = Readonly<Record<string, string | null>>;

/**
 * Deletes the documents of the reset project (field `projectId`) from each collection: those
 * created at or before the reset (or without the time field), so documents of what was written
 * after the reset stay, also when a view rebuild has projected them before the wipe runs.
 * Counters (time field null) are deleted whole: after a rebuild they lose what was counted after
 * the reset.
 */
export async function deleteProjectDocuments(
  views: ViewStore,
  collections: ProjectCollections,
  reset: Pick<ProjectResetNotice, 'projectId' | 'resetAt'>,
): Promise<void> {
  for (const [collection, timeField] of Object.entries(collections)) {
    const filter: Record<string, unknown> = { projectId: reset.projectId };
    if (timeField !== null) {
      filter.$or = [{ [timeField]: { $lte: reset.resetAt } }, { [timeField]: { $exists: false } }];
    }
    await views.collection(collection).deleteMany(filter);
  }
}
