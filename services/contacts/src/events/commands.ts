/**
 * Commands of tracked events (spec part 4, DELETE /events/:eventName): deletion by name, as
 * events. The deletion is recorded by `TrackedEventsDeleted` on the name's stream (appended with
 * its expected revision, retried on conflict), then the streams of the deleted events are removed
 * from the log. The projection removes them from the views and keeps later-arriving events of the
 * name up to the recorded position out.
 */
import type { AwaitViews } from '@stamp/contracts';
import {
  decisionAppend,
  type EventStore,
  type Logger,
  type ViewStore,
  withRevisionRetry,
} from '@stamp/platform';

import { trackedEventStreamId } from '../track/events.ts';
import { decideDeleteTrackedEvents } from './decide.ts';
import {
  evolveName,
  initialNameState,
  type TrackedEventNameEvent,
  trackedEventNameStreamId,
} from './events.ts';
import { nameKey, type TrackedEventViews, trackedEventViews } from './views.ts';

/** Dependencies of {@link TrackedEventCommands}. */
export interface TrackedEventCommandsDeps {
  store: EventStore;
  views: ViewStore;
  awaitViews: AwaitViews;
  logger: Logger;
}

/** Result of a deletion by name. */
export interface DeleteByNameResult {
  /** Events deleted. */
  deleted: number;
  /** Log position of the recorded deletion. */
  position: number;
}

/** Streams deleted between two yields to other work. */
const DELETE_BATCH = 512;

const yieldToLoop = (): Promise<void> =>
  new Promise((resolve) => {
    setImmediate(resolve);
  });

/** Command handling of tracked events. */
export class TrackedEventCommands {
  private readonly store: EventStore;
  private readonly views: TrackedEventViews;
  private readonly awaitViews: AwaitViews;
  private readonly logger: Logger;

  constructor(deps: TrackedEventCommandsDeps) {
    this.store = deps.store;
    this.views = trackedEventViews(deps.views);
    this.awaitViews = deps.awaitViews;
    this.logger = deps.logger;
  }

  /**
   * Deletes every event named `name` of the project recorded so far: waits until the views reflect
   * the log's head, collects the name's events from the view, records `TrackedEventsDeleted`
   * {name, upToPosition} (the head, or the newest collected event when the view is further),
   * deletes each event's stream, and waits for the views to reflect the deletion.
   * @throws ApiError 404 RESOURCE_NOT_FOUND when the project has no event of that name.
   */
  async deleteByName(
    projectId: string,
    name: string,
    correlationId: string,
  ): Promise<DeleteByNameResult> {
    const head = await this.store.headPosition();
    await this.awaitViews(head);
    const { ids, newest } = await this.collect(projectId, name);
    const upToPosition = Math.max(head, newest);
    const streamId = trackedEventNameStreamId(projectId, name);
    const { position } = await withRevisionRetry(
      async () => {
        const history = await this.store.readStream(streamId);
        const state = history.reduce(
          (current, event) => evolveName(current, event as unknown as TrackedEventNameEvent),
          initialNameState(),
        );
        const events = decideDeleteTrackedEvents(state, {
          type: 'DeleteTrackedEvents',
          name,
          upToPosition,
          found: ids.length,
        });
        const last = history[history.length - 1];
        return this.store.append([
          decisionAppend(streamId, last?.revision ?? -1, events, { projectId, correlationId }),
        ]);
      },
      { jitterMs: 10 },
    );
    for (let start = 0; start < ids.length; start += DELETE_BATCH) {
      for (const id of ids.slice(start, start + DELETE_BATCH)) {
        await this.store.deleteStream(trackedEventStreamId(id));
      }
      await yieldToLoop();
    }
    this.logger.info({ projectId, deleted: ids.length, position }, 'tracked events deleted');
    await this.awaitViews(position);
    return { deleted: ids.length, position };
  }

  /** Ids of the project's events named `name` in the view, and the newest one's log position. */
  private async collect(
    projectId: string,
    name: string,
  ): Promise<{ ids: string[]; newest: number }> {
    const ids: string[] = [];
    let newest = 0;
    const counter = await this.views.names.findOne({ _id: nameKey(projectId, name) });
    if (counter === null || counter.count <= 0) return { ids, newest };
    for (const { bucket } of await this.views.buckets.find({ projectId })) {
      const documents = await this.views.events.find({ projectId, name, bucket });
      for (const document of documents) {
        ids.push(document._id);
        newest = Math.max(newest, document.position);
      }
      if (documents.length > 0) await yieldToLoop();
    }
    return { ids, newest };
  }
}
