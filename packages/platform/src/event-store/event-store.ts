/**
 * The EventStore port (architecture brief, "Ports"): streams of immutable events with a revision
 * per stream (0-based, as in KurrentDB) and a global position (1-based, increasing) across all
 * streams.
 */

/** Metadata carried by every event; it travels with the event to the bus and the projections. */
export interface EventMetadata {
  projectId?: string;
  correlationId?: string;
  causationId?: string;
  /** W3C trace context of the request that caused the event. */
  traceparent?: string;
  /**
   * The person the event's data is about (a contact id). The store seals the event's `data`
   * under a key of that subject; {@link EventStore.eraseSubject} destroys the key, after which
   * the event is read back with `erased: true` and empty data (crypto-shredding, architecture
   * brief "Privacy"). Type and metadata stay readable.
   */
  subjectId?: string;
  [key: string]: string | undefined;
}

/** An event to append. `id` defaults to a new UUID; a repeated id is refused as a duplicate. */
export interface NewEvent<Type extends string = string, Data = unknown> {
  id?: string;
  type: Type;
  /** Version of the event's data schema; defaults to 1. */
  schemaVersion?: number;
  data: Data;
  metadata?: EventMetadata;
}

/** An event read back from the store. */
export interface RecordedEvent<Type extends string = string, Data = unknown> {
  id: string;
  streamId: string;
  /** 0-based position of the event within its stream. */
  revision: number;
  /** 1-based position of the event in the whole log. */
  position: number;
  type: Type;
  schemaVersion: number;
  data: Data;
  metadata: EventMetadata;
  /** ISO 8601 time the event was appended. */
  createdAt: string;
  /** True when the event's subject was erased: `data` is then `{}`. */
  erased?: boolean;
}

/**
 * Optimistic concurrency check of one stream: `no_stream` (must not exist), `stream_exists`,
 * `any`, or the exact revision of the stream's last event.
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

/** One stream's part of an atomic append. */
export interface StreamAppend {
  streamId: string;
  expectedRevision: ExpectedRevision;
  events: NewEvent[];
}

/** Result of an append: the new revision of every stream written and the last event's position. */
export interface AppendResult {
  revisions: Record<string, number>;
  position: number;
}

/** What an append in this process wrote, as told to {@link EventStore.onAppend} listeners. */
export interface AppendNotice {
  /** Position of the first and of the last event appended. */
  first: number;
  last: number;
  /** Categories of the streams written. */
  categories: ReadonlySet<string>;
}

/** Listener of {@link EventStore.onAppend}. */
export type AppendListener = (notice: AppendNotice) => void;

/** Options of {@link EventStore.readAll}. */
export interface ReadAllOptions {
  /** Read events with a position strictly greater than this; 0 reads from the start. */
  after: number;
  /** Stream categories (the part of the stream id before the first `-`); all when omitted. */
  categories?: readonly string[];
  /** At most this many events (default 500). */
  limit?: number;
}

/** The event store port. Adapters: embedded SQLite (`SqliteEventStore`), KurrentDB. */
export interface EventStore {
  /**
   * Appends events to one or more streams, all or nothing.
   * @throws WrongExpectedRevisionError when a stream's revision does not match.
   * @throws DuplicateEventError when an event id was already appended.
   */
  append(streams: readonly StreamAppend[]): Promise<AppendResult>;
  /**
   * Events of one stream in revision order, from `fromRevision` (default 0), at most `maxCount`
   * (default all); [] when absent.
   */
  readStream(streamId: string, fromRevision?: number, maxCount?: number): Promise<RecordedEvent[]>;
  /** Events across streams in position order. */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Position of the last appended event (0 when empty). */
  headPosition(): Promise<number>;
  /**
   * Crypto-shredding: destroys the key of `subjectId` (see {@link EventMetadata.subjectId}), so
   * the data of its events can never be read again; later appends for it store no data.
   * Idempotent.
   */
  eraseSubject(subjectId: string): Promise<void>;
  /**
   * Removes every event of `streamId` from the log (absent afterwards from readStream and
   * readAll); the stream keeps its revision, so an append continues after it. Idempotent.
   */
  deleteStream(streamId: string): Promise<void>;
  /**
   * Calls `listener` after every append in this process; returns the function that unsubscribes.
   * Readers in other processes poll {@link readAll}.
   */
  onAppend(listener: AppendListener): () => void;
  /** Releases resources; pending reads finish first. */
  close(): Promise<void>;
}

/** Thrown by {@link EventStore.append} when a stream's revision is not the expected one. */
export class WrongExpectedRevisionError extends Error {
  readonly streamId: string;
  readonly expected: ExpectedRevision;
  /** Current revision, -1 when the stream does not exist. */
  readonly actual: number;
  constructor(streamId: string, expected: ExpectedRevision, actual: number) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${actual}`);
    this.name = 'WrongExpectedRevisionError';
    this.streamId = streamId;
    this.expected = expected;
    this.actual = actual;
  }
}

/** Thrown by {@link EventStore.append} when an event id already exists in the log. */
export class DuplicateEventError extends Error {
  readonly eventId: string;
  constructor(eventId: string) {
    super(`event ${eventId} was already appended`);
    this.name = 'DuplicateEventError';
    this.eventId = eventId;
  }
}

/** Category of a stream id: the text before the first `-` (`contact-123` → `contact`). */
export function streamCategory(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash === -1 ? streamId : streamId.slice(0, dash);
}

/**
 * The expected revision of an append decided on a stream read at `revision` (its last event's;
 * -1 when it had none, so it must still not exist).
 */
export const expectedAt = (revision: number): ExpectedRevision =>
  revision < 0 ? 'no_stream' : revision;

/**
 * The append of a decision: `events` (type and data) to `streamId` at the `revision` the stream
 * was read at when deciding (-1: it had no events), each with `metadata`.
 */
export const decisionAppend = (
  streamId: string,
  revision: number,
  events: readonly { type: string; data: unknown }[],
  metadata: EventMetadata,
): StreamAppend => ({
  streamId,
  expectedRevision: expectedAt(revision),
  events: events.map((event) => ({ type: event.type, data: event.data, metadata })),
});

/** Whether `actual` (-1 = no stream) satisfies `expected`. */
export function revisionMatches(expected: ExpectedRevision, actual: number): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return actual === -1;
  if (expected === 'stream_exists') return actual >= 0;
  return expected === actual;
}
