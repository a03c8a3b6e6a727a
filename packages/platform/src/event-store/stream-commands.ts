import { decisionAppend, type EventMetadata, type EventStore } from './event-store.ts';
import { withRevisionRetry } from './retry.ts';

/** An event of a decided command: its type and data. */
export interface DecidedEvent {
  type: string;
  data: unknown;
}

/** How the events of one kind of stream fold into its state. */
export interface StreamModel<S, E extends DecidedEvent> {
  /** The stream of entity `id`, for example `workflow-<id>`. */
  stream(id: string): string;
  /** State of a stream with no events. */
  initial(): S;
  /** Applies one event. Pure. */
  evolve(state: S, event: E): S;
  /** The event types `evolve` takes; other recorded types are skipped. */
  types: ReadonlySet<string>;
}

/** A stream read back: its state and the revision of its last event (-1: no events). */
export interface LoadedStream<S> {
  state: S;
  revision: number;
}

/** Result of a command: the state after it, its events and their log position (0: none). */
export interface DecidedCommand<S, E> {
  state: S;
  events: E[];
  position: number;
}

/** The command handler of one kind of stream. */
export interface StreamCommands<S, E> {
  /** Reads and folds the stream of `id`. */
  load(id: string): Promise<LoadedStream<S>>;
  /**
   * Reads the stream of `id`, decides, and appends the events at the revision read with
   * `metadata`, deciding again on a concurrent write (withRevisionRetry).
   * @throws whatever `decide` throws (ApiError for rule violations); WrongExpectedRevisionError
   *   when concurrent writers keep winning.
   */
  execute(
    id: string,
    metadata: EventMetadata,
    decide: (loaded: LoadedStream<S>) => E[],
  ): Promise<DecidedCommand<S, E>>;
}

/** Folds recorded events into a state with `model`. */
export function foldStream<S, E extends DecidedEvent>(
  model: StreamModel<S, E>,
  events: readonly DecidedEvent[],
  state: S = model.initial(),
): S {
  let folded = state;
  for (const event of events) {
    if (model.types.has(event.type)) folded = model.evolve(folded, event as E);
  }
  return folded;
}

/**
 * The read → decide → append-at-revision command handler of a kind of stream (architecture
 * brief, "Optimistic concurrency").
 */
export function streamCommands<S, E extends DecidedEvent>(
  store: EventStore,
  model: StreamModel<S, E>,
): StreamCommands<S, E> {
  async function load(id: string): Promise<LoadedStream<S>> {
    const events = await store.readStream(model.stream(id));
    return {
      state: foldStream(model, events),
      revision: events[events.length - 1]?.revision ?? -1,
    };
  }
  return {
    load,
    execute(id, metadata, decide) {
      return withRevisionRetry(async () => {
        const loaded = await load(id);
        const events = decide(loaded);
        const state = foldStream(model, events, loaded.state);
        if (events.length === 0) return { state, events, position: 0 };
        const { position } = await store.append([
          decisionAppend(model.stream(id), loaded.revision, events, metadata),
        ]);
        return { state, events, position };
      });
    },
  };
}
