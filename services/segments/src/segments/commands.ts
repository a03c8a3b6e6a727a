/**
 * Command handling of segments: read the stream, decide, append with the expected revision
 * (retrying a few times on a concurrent write), and return the log position of the append for
 * read-your-writes.
 */
import { decisionAppend, type EventStore, withRevisionRetry } from '@stamp/platform';

import {
  evolve,
  initialSegment,
  SEGMENT_EVENT_TYPES,
  type SegmentEvent,
  type SegmentState,
  segmentStream,
} from './events.ts';

/** A segment stream read back: its state, its static members (contact ids), its revision. */
export interface LoadedSegment {
  state: SegmentState;
  members: ReadonlySet<string>;
  /** Revision of the stream's last event; -1 when it has none. */
  revision: number;
}

/** Result of a command: the segment's state after it and the log position (0: nothing appended). */
export interface CommandResult {
  state: SegmentState;
  events: SegmentEvent[];
  position: number;
}

/** A decision on a loaded segment (pure; may throw ApiError). */
export type Decide = (loaded: LoadedSegment) => SegmentEvent[];

/** The segment command handler. */
export interface SegmentCommands {
  /** Reads a segment stream. */
  load(segmentId: string): Promise<LoadedSegment>;
  /**
   * Decides on the segment's current stream and appends the events (with `projectId` and the
   * correlation id in their metadata), retried on a concurrent write.
   * @throws whatever `decide` throws (ApiError for rule violations).
   */
  execute(
    segmentId: string,
    projectId: string,
    correlationId: string,
    decide: Decide,
  ): Promise<CommandResult>;
}

/** Builds the segment command handler over the event store. */
export function createSegmentCommands(store: EventStore): SegmentCommands {
  async function load(segmentId: string): Promise<LoadedSegment> {
    const events = await store.readStream(segmentStream(segmentId));
    let state = initialSegment();
    const members = new Set<string>();
    for (const event of events) {
      if (!SEGMENT_EVENT_TYPES.has(event.type)) continue;
      const typed = { type: event.type, data: event.data } as SegmentEvent;
      state = evolve(state, typed);
      if (typed.type === 'SegmentMembersAdded') {
        for (const id of typed.data.contactIds) members.add(id);
      } else if (typed.type === 'SegmentMembersRemoved') {
        for (const id of typed.data.contactIds) members.delete(id);
      }
    }
    return { state, members, revision: events[events.length - 1]?.revision ?? -1 };
  }

  return {
    load,
    execute(segmentId, projectId, correlationId, decide) {
      return withRevisionRetry(async () => {
        const loaded = await load(segmentId);
        const events = decide(loaded);
        let state = loaded.state;
        for (const event of events) state = evolve(state, event);
        if (events.length === 0) return { state, events, position: 0 };
        const { position } = await store.append([
          decisionAppend(segmentStream(segmentId), loaded.revision, events, {
            projectId,
            correlationId,
          }),
        ]);
        return { state, events, position };
      });
    },
  };
}
