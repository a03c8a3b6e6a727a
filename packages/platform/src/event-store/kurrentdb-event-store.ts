/**
 * The EventStore port on KurrentDB 25.1+ (architecture brief, "Ports"), through
 * `@kurrent/kurrentdb-client`.
 *
 * Layout in KurrentDB (every stream name below is prefixed with `streamPrefix`):
 * - a port stream `contact-1` is the KurrentDB stream `contact-1`; events are JSON records whose
 *   metadata is the port's {@link EventMetadata} plus `schemaVersion` and `createdAt` (strings:
 *   the multi-stream append of this client version takes string values only);
 * - `subjectkey-<subjectId>` holds one `SubjectKeyCreated` event with the subject's 32-byte
 *   AES-256-GCM key (base64), created with expected revision `no_stream` in the same atomic
 *   append as the first event about the subject; erasing the subject tombstones that stream;
 * - `eventid-<id, lower case>` holds one `EventIdClaimed` event per caller-chosen event id,
 *   appended with expected revision `no_stream` in the same atomic append as the event: a
 *   repeated id fails that check and is reported as {@link DuplicateEventError}. KurrentDB itself
 *   treats a repeated record id as an idempotent retry and answers success without writing, which
 *   the port must not do; ids the store generates need no claim.
 * The categories `subjectkey` and `eventid` are reserved: appends to them are refused and
 * {@link EventStore.readAll} never returns their events.
 *
 * Positions: a port position is KurrentDB's commit position + 1 (events written by this store are
 * committed implicitly, so commit = prepare = the record's byte offset in the log), so the first
 * possible position is 1 and positions increase but are sparse. They are exact up to 2^53 - 2
 * bytes of log (8 PiB); beyond that the store throws a RangeError rather than lose precision.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';

import {
  type AppendStreamRequest,
  BACKWARDS,
  type CurrentStreamState,
  END,
  type EventData,
  excludeSystemEvents,
  type Filter,
  FORWARDS,
  type JSONType,
  KurrentDBClient,
  type MetadataType,
  type MultiAppendResult,
  type Position as KurrentPosition,
  type ReadPosition,
  type RecordedEvent as KurrentRecordedEvent,
  START,
  StreamDeletedError,
  streamNameFilter,
  StreamNotFoundError,
  StreamTombstonedError,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';

import { BoundedCache } from '../bounded-cache.ts';
import { newId } from '../ids.ts';
import { openWith, sealWith, type SubjectKey } from './subject-keys.ts';
import {
  type AppendListener,
  type AppendNotice,
  type AppendResult,
  DuplicateEventError,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type RecordedEvent,
  type StreamAppend,
  streamCategory,
  WrongExpectedRevisionError,
} from './event-store.ts';

/** Category of the streams holding subject keys. */
const KEY_CATEGORY = 'subjectkey';
/** Category of the streams claiming caller-chosen event ids. */
const ID_CATEGORY = 'eventid';
const RESERVED_CATEGORIES: ReadonlySet<string> = new Set([KEY_CATEGORY, ID_CATEGORY]);

/** Metadata keys the store writes itself and removes again on read. */
const SCHEMA_VERSION = 'schemaVersion';
const CREATED_AT = 'createdAt';

/** Largest page read from `$all` at once. */
const MAX_PAGE = 1000;
/** Page read backwards by {@link KurrentDbEventStore.headPosition}. */
const HEAD_PAGE = 32;
/** Subject keys kept in memory (about 100 bytes each). */
const KEY_CACHE_SIZE = 100_000;
/** Default time an opened subject key is trusted before it is read again, ms. */
const KEY_CACHE_MS = 60_000;
/** Stream deletion states kept in memory, and how long each is trusted, ms. */
const TRUNCATION_CACHE_SIZE = 10_000;
const TRUNCATION_CACHE_MS = 2_000;
/** Attempts of an append whose only conflict was a concurrent creation of a subject key. */
const APPEND_ATTEMPTS = 3;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Options of {@link KurrentDbEventStore}. */
export interface KurrentDbEventStoreOptions {
  /** KurrentDB connection string, for example `kurrentdb://127.0.0.1:2113?tls=false`. */
  connectionString: string;
  /**
   * Text put before every stream name in KurrentDB, so that several independent stores share one
   * server (tests, environments). `readAll` and `headPosition` then see only this store's streams.
   * Default: none.
   */
  streamPrefix?: string;
  /**
   * How long an opened subject key is used from memory before it is read from KurrentDB again,
   * in ms (default 60 000). An erasure made by another process takes effect in this process
   * within this delay; erasures made here take effect at once.
   */
  keyCacheMs?: number;
}

/** A bounded cache ({@link BoundedCache}) whose entries also expire. */
class ExpiringCache<Value> {
  private readonly entries: BoundedCache<string, { value: Value; expires: number }>;

  constructor(size: number) {
    this.entries = new BoundedCache(size);
  }

  get(key: string): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > Date.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Stores `value` for `ttlMs` (Infinity: until evicted). */
  set(key: string, value: Value, ttlMs: number): void {
    this.entries.set(key, { value, expires: Date.now() + ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** Port position of a KurrentDB position: commit + 1. */
function toPosition(position: KurrentPosition | undefined): number {
  if (position === undefined) {
    throw new Error('KurrentDB returned an event without its log position (server before 22.6?)');
  }
  if (position.commit >= BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`log position ${position.commit} exceeds 2^53; it cannot be a number`);
  }
  return Number(position.commit) + 1;
}

/** Where a forward read of the events after port position `after` starts (inclusive). */
function readFrom(after: number): ReadPosition {
  if (after <= 0) return START;
  const offset = BigInt(after - 1);
  return { commit: offset, prepare: offset };
}

/** Port revision of KurrentDB's current stream state (-1: no stream, or a deleted one). */
function revisionOf(state: CurrentStreamState): number {
  return typeof state === 'bigint' && state >= 0n ? Number(state) : -1;
}

/** JSON value of an event's data: parsed by the client for JSON records, bytes otherwise. */
function jsonOf(data: JSONType | Uint8Array): unknown {
  return data instanceof Uint8Array ? JSON.parse(Buffer.from(data).toString('utf8')) : data;
}

/**
 * The port's metadata and schema version from a record's JSON metadata: keys starting with `$`
 * (KurrentDB's `$schema.*`) and the store's own keys are removed.
 */
function metadataOf(raw: MetadataType | undefined): {
  metadata: EventMetadata;
  schemaVersion: number;
} {
  let parsed: unknown = raw;
  if (raw instanceof Uint8Array) {
    try {
      parsed = JSON.parse(Buffer.from(raw).toString('utf8'));
    } catch {
      parsed = undefined;
    }
  }
  const metadata: EventMetadata = {};
  let schemaVersion = 1;
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    for (const [key, value] of Object.entries(parsed)) {
      if (key === SCHEMA_VERSION) schemaVersion = Number(value);
      else if (key !== CREATED_AT && !key.startsWith('$') && typeof value === 'string') {
        metadata[key] = value;
      }
    }
  }
  return { metadata, schemaVersion };
}

/** A JSON record to append. */
function jsonRecord(
  id: string,
  type: string,
  data: JSONType,
  metadata?: Record<string, string>,
): EventData {
  return { id, contentType: 'application/json', type, data, metadata };
}

/**
 * EventStore on KurrentDB 25.1+. Appends use the client's `multiStreamAppend` (one atomic
 * append across streams, an expected revision per stream); reads use `readStream` and `readAll`
 * of `$all` with a server-side stream-name prefix filter.
 *
 * Subject data (`metadata.subjectId`) is sealed with the embedded store's functions
 * (`sealWith`/`openWith`) under a per-subject key kept in KurrentDB (see the module comment);
 * opened keys are cached in memory (100 000 keys, `keyCacheMs`).
 *
 * Deleted streams: `deleteStream` is KurrentDB's soft delete, which hides the events from
 * `readStream` at once, but `$all` keeps them until a scavenge. `readAll` therefore drops events
 * below their stream's `truncateBefore` (read from the stream's metadata, cached for 2 s), at the
 * cost of one metadata read per stream and page.
 *
 * {@link AppendNotice.first} is the append's last position: KurrentDB's append reply carries only
 * the position of the last record, so `first` is not the first event's position here.
 */
export class KurrentDbEventStore implements EventStore {
  private readonly client: KurrentDBClient;
  private readonly prefix: string;
  private readonly keyCacheMs: number;
  /** Subject keys; `null` is never cached (a key may be created by another process). */
  private readonly keys = new ExpiringCache<SubjectKey>(KEY_CACHE_SIZE);
  /** `truncateBefore` of streams by KurrentDB stream name (0: not deleted). */
  private readonly truncation = new ExpiringCache<number>(TRUNCATION_CACHE_SIZE);
  private readonly emitter = new EventEmitter();
  private readonly pending = new Set<Promise<unknown>>();

  /** Creates the client; no request is made before the first operation. */
  constructor(options: KurrentDbEventStoreOptions) {
    this.client = KurrentDBClient.connectionString(options.connectionString);
    this.prefix = options.streamPrefix ?? '';
    this.keyCacheMs = options.keyCacheMs ?? KEY_CACHE_MS;
    this.emitter.setMaxListeners(0);
  }

  /** Runs `operation`, remembered until it settles so that {@link close} can wait for it. */
  private track<T>(operation: Promise<T>): Promise<T> {
    this.pending.add(operation);
    const forget = (): void => {
      this.pending.delete(operation);
    };
    operation.then(forget, forget);
    return operation;
  }

  /** KurrentDB stream name of a port stream id. */
  private stored(streamId: string): string {
    return this.prefix + streamId;
  }

  /** Port stream id of a KurrentDB stream name; undefined for streams outside the prefix. */
  private portId(streamName: string): string | undefined {
    return streamName.startsWith(this.prefix) ? streamName.slice(this.prefix.length) : undefined;
  }

  private keyStream(subjectId: string): string {
    return this.stored(`${KEY_CATEGORY}-${subjectId}`);
  }

  /** Whether a record read from `$all` is a port event (of one of `categories` when given). */
  private visible(event: KurrentRecordedEvent, categories?: ReadonlySet<string>): boolean {
    if (event.type.startsWith('$')) return false;
    const id = this.portId(event.streamId);
    if (id === undefined || id.startsWith('$')) return false;
    const category = streamCategory(id);
    if (RESERVED_CATEGORIES.has(category)) return false;
    return categories === undefined || categories.has(category);
  }

  /**
   * The key of `subjectId`: its bytes, `erased` when its key stream is tombstoned, null when it
   * has none yet.
   */
  private async subjectKey(subjectId: string): Promise<SubjectKey | null> {
    const cached = this.keys.get(subjectId);
    if (cached !== undefined) return cached;
    let key: SubjectKey | null = null;
    try {
      for await (const resolved of this.client.readStream(this.keyStream(subjectId), {
        maxCount: 1,
      })) {
        const data = resolved.event === undefined ? undefined : jsonOf(resolved.event.data);
        if (typeof data === 'object' && data !== null && 'key' in data) {
          if (typeof data.key === 'string') key = Buffer.from(data.key, 'base64');
        }
      }
    } catch (error) {
      if (error instanceof StreamDeletedError) key = 'erased';
      else if (!(error instanceof StreamNotFoundError)) throw error;
    }
    if (key !== null) this.keys.set(subjectId, key, key === 'erased' ? Infinity : this.keyCacheMs);
    return key;
  }

  /** Port events of KurrentDB records: subject data opened, or `{}` with `erased: true`. */
  private async decode(events: readonly KurrentRecordedEvent[]): Promise<RecordedEvent[]> {
    const parsed = events.map((event) => ({ event, ...metadataOf(event.metadata) }));
    const subjects = new Set<string>();
    for (const { metadata } of parsed) {
      if (metadata.subjectId !== undefined) subjects.add(metadata.subjectId);
    }
    const keys = new Map(
      await Promise.all(
        [...subjects].map(
          async (subjectId) => [subjectId, await this.subjectKey(subjectId)] as const,
        ),
      ),
    );
    return parsed.map(({ event, metadata, schemaVersion }) => {
      let data = jsonOf(event.data);
      let erased = false;
      if (metadata.subjectId !== undefined) {
        const key = keys.get(metadata.subjectId);
        if (key !== undefined && key !== null && key !== 'erased' && typeof data === 'string') {
          data = JSON.parse(openWith(key, data));
        } else {
          data = {};
          erased = true;
        }
      }
      return {
        id: event.id,
        streamId: this.portId(event.streamId) ?? event.streamId,
        revision: Number(event.revision),
        position: toPosition(event.position),
        type: event.type,
        schemaVersion,
        data,
        metadata,
        createdAt: event.created.toISOString(),
        ...(erased ? { erased } : {}),
      };
    });
  }

  /**
   * Checks what needs no server: no reserved or system stream, caller-chosen ids are UUIDs
   * (KurrentDB record ids are) and unique within the append.
   * @throws DuplicateEventError when an id appears twice in the append.
   * @throws Error for a reserved category, a `$` stream or an id that is not a UUID.
   */
  private validate(streams: readonly StreamAppend[]): void {
    const ids = new Set<string>();
    for (const { streamId, events } of streams) {
      if (streamId.startsWith('$') || RESERVED_CATEGORIES.has(streamCategory(streamId))) {
        throw new Error(`stream ${streamId}: the category is reserved by the event store`);
      }
      for (const { id } of events) {
        if (id === undefined) continue;
        if (!UUID.test(id)) throw new Error(`event id ${id} is not a UUID, as KurrentDB requires`);
        if (ids.has(id.toLowerCase())) throw new DuplicateEventError(id);
        ids.add(id.toLowerCase());
      }
    }
  }

  /**
   * The requests of one atomic append: key streams to create, id claims, then the port streams,
   * so that the append's last record (whose position KurrentDB returns) is a port event.
   */
  private async plan(
    streams: readonly StreamAppend[],
  ): Promise<{ requests: AppendStreamRequest[]; created: Map<string, Uint8Array> }> {
    const now = Date.now();
    const createdAt = new Date(now).toISOString();
    const subjects = new Set<string>();
    for (const { events } of streams) {
      for (const { metadata } of events) {
        if (metadata?.subjectId !== undefined) subjects.add(metadata.subjectId);
      }
    }
    const keys = new Map<string, SubjectKey>();
    const created = new Map<string, Uint8Array>();
    const keyRequests: AppendStreamRequest[] = [];
    const found = await Promise.all(
      [...subjects].map(
        async (subjectId) => [subjectId, await this.subjectKey(subjectId)] as const,
      ),
    );
    for (const [subjectId, key] of found) {
      if (key !== null) {
        keys.set(subjectId, key);
        continue;
      }
      const raw = randomBytes(32);
      keys.set(subjectId, raw);
      created.set(subjectId, raw);
      keyRequests.push({
        streamName: this.keyStream(subjectId),
        expectedState: 'no_stream',
        events: [jsonRecord(newId(now), 'SubjectKeyCreated', { key: raw.toString('base64') })],
      });
    }
    const claims: AppendStreamRequest[] = [];
    const writes: AppendStreamRequest[] = [];
    for (const { streamId, expectedRevision, events } of streams) {
      const records = events.map((event) => {
        if (event.id !== undefined) {
          claims.push({
            streamName: this.stored(`${ID_CATEGORY}-${event.id.toLowerCase()}`),
            expectedState: 'no_stream',
            events: [jsonRecord(newId(now), 'EventIdClaimed', {})],
          });
        }
        let data = event.data as JSONType;
        const subjectId = event.metadata?.subjectId;
        if (subjectId !== undefined) {
          const key = keys.get(subjectId);
          data = key === undefined || key === 'erased' ? {} : sealWith(key, JSON.stringify(data));
        }
        const metadata: Record<string, string> = {};
        for (const [name, value] of Object.entries(event.metadata ?? {})) {
          if (value !== undefined) metadata[name] = value;
        }
        metadata[SCHEMA_VERSION] = String(event.schemaVersion ?? 1);
        metadata[CREATED_AT] = createdAt;
        return jsonRecord(event.id ?? newId(now), event.type, data, metadata);
      });
      writes.push({
        streamName: this.stored(streamId),
        expectedState:
          typeof expectedRevision === 'number' ? BigInt(expectedRevision) : expectedRevision,
        events: records,
      });
    }
    return { requests: [...keyRequests, ...claims, ...writes], created };
  }

  /** Port stream id and category of the stream named in an append error, if it names one. */
  private failedStream(error: unknown): { id: string; category: string } | undefined {
    let name: string | undefined;
    if (error instanceof WrongExpectedVersionError) name = error.streamName;
    else if (error instanceof StreamTombstonedError) name = error.stream;
    else if (error instanceof StreamDeletedError) name = error.streamName;
    const id = name === undefined ? undefined : this.portId(name);
    return id === undefined ? undefined : { id, category: streamCategory(id) };
  }

  /** The port's error for an append error of the client. */
  private translate(error: unknown, streams: readonly StreamAppend[]): unknown {
    const failed = this.failedStream(error);
    if (failed === undefined || !(error instanceof WrongExpectedVersionError)) return error;
    if (failed.category === ID_CATEGORY) {
      return new DuplicateEventError(failed.id.slice(ID_CATEGORY.length + 1));
    }
    const expected: ExpectedRevision | undefined = streams.find(
      ({ streamId }) => streamId === failed.id,
    )?.expectedRevision;
    if (expected === undefined) return error;
    return new WrongExpectedRevisionError(failed.id, expected, revisionOf(error.actualState));
  }

  append(streams: readonly StreamAppend[]): Promise<AppendResult> {
    return this.track(this.appendNow(streams));
  }

  private async appendNow(streams: readonly StreamAppend[]): Promise<AppendResult> {
    this.validate(streams);
    for (let attempt = 1; ; attempt += 1) {
      const { requests, created } = await this.plan(streams);
      let result: MultiAppendResult;
      try {
        result = await this.client.multiStreamAppend(requests);
      } catch (error) {
        // Another append created (or an erasure tombstoned) one of the subject keys meanwhile:
        // plan again with the key as it now is.
        const failed = this.failedStream(error);
        if (failed?.category === KEY_CATEGORY && attempt < APPEND_ATTEMPTS) {
          this.keys.delete(failed.id.slice(KEY_CATEGORY.length + 1));
          continue;
        }
        throw this.translate(error, streams);
      }
      for (const [subjectId, key] of created) this.keys.set(subjectId, key, this.keyCacheMs);
      const ports = new Map(streams.map(({ streamId }) => [this.stored(streamId), streamId]));
      const revisions: Record<string, number> = {};
      for (const { streamName, revision } of result.responses) {
        const streamId = ports.get(streamName);
        if (streamId !== undefined) revisions[streamId] = Number(revision);
      }
      for (const name of ports.keys()) this.truncation.delete(name);
      const position = toPosition({ commit: result.position, prepare: result.position });
      if (streams.some(({ events }) => events.length > 0)) {
        const categories = new Set(streams.map(({ streamId }) => streamCategory(streamId)));
        const notice: AppendNotice = { first: position, last: position, categories };
        this.emitter.emit('append', notice);
      }
      return { revisions, position };
    }
  }

  readStream(streamId: string, fromRevision = 0, maxCount?: number): Promise<RecordedEvent[]> {
    return this.track(this.readStreamNow(streamId, fromRevision, maxCount));
  }

  private async readStreamNow(
    streamId: string,
    fromRevision: number,
    maxCount: number | undefined,
  ): Promise<RecordedEvent[]> {
    const events: KurrentRecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(this.stored(streamId), {
        fromRevision: BigInt(fromRevision),
        ...(maxCount === undefined ? {} : { maxCount }),
      })) {
        if (resolved.event !== undefined && !resolved.event.type.startsWith('$')) {
          events.push(resolved.event);
        }
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError || error instanceof StreamDeletedError)) {
        throw error;
      }
    }
    return this.decode(events);
  }

  /** Records of one read of `$all` (at most `maxCount` matching `filter`). */
  private async readPage(
    direction: typeof FORWARDS | typeof BACKWARDS,
    fromPosition: ReadPosition,
    maxCount: number,
    filter: Filter,
  ): Promise<KurrentRecordedEvent[]> {
    const events: KurrentRecordedEvent[] = [];
    for await (const resolved of this.client.readAll({
      direction,
      fromPosition,
      maxCount,
      filter,
    })) {
      if (resolved.event !== undefined) events.push(resolved.event);
    }
    return events;
  }

  /** The server-side filter of `$all` reads: the prefix (and categories), else no `$` types. */
  private filter(categories?: readonly string[]): Filter {
    if (categories !== undefined) {
      return streamNameFilter({ prefixes: categories.map((category) => this.prefix + category) });
    }
    return this.prefix === ''
      ? excludeSystemEvents()
      : streamNameFilter({ prefixes: [this.prefix] });
  }

  /** `truncateBefore` of a KurrentDB stream: 0 when never deleted, Infinity when tombstoned. */
  private async truncatedBefore(streamName: string): Promise<number> {
    const cached = this.truncation.get(streamName);
    if (cached !== undefined) return cached;
    let before = 0;
    try {
      const { metadata } = await this.client.getStreamMetadata(streamName);
      const value = metadata?.truncateBefore;
      if (typeof value === 'number') before = value;
      else if (value === END) before = Infinity;
    } catch (error) {
      if (!(error instanceof StreamDeletedError)) throw error;
      before = Infinity;
    }
    this.truncation.set(streamName, before, TRUNCATION_CACHE_MS);
    return before;
  }

  /** `events` without those of deleted streams, which `$all` keeps until a scavenge. */
  private async withoutDeleted(
    events: readonly KurrentRecordedEvent[],
  ): Promise<KurrentRecordedEvent[]> {
    const names = [...new Set(events.map(({ streamId }) => streamId))];
    const before = new Map(
      await Promise.all(
        names.map(async (name) => [name, await this.truncatedBefore(name)] as const),
      ),
    );
    return events.filter(
      ({ streamId, revision }) => Number(revision) >= (before.get(streamId) ?? 0),
    );
  }

  /**
   * Reads `$all` from the position after `after`, with the server-side prefix filter of the
   * categories (coarse: `contact` also matches `contacts-…`), then keeps only port events of
   * exactly those categories, of streams not deleted; reads on until `limit` events or the end.
   * `after` must be 0 or a position this store returned.
   */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.track(this.readAllNow(options));
  }

  private async readAllNow({
    after,
    categories,
    limit = 500,
  }: ReadAllOptions): Promise<RecordedEvent[]> {
    if (categories?.length === 0 || limit <= 0) return [];
    const wanted = categories === undefined ? undefined : new Set(categories);
    const filter = this.filter(categories);
    // One more than `limit`: the read starts at `after`'s own record, which is skipped.
    const page = Math.min(limit + 1, MAX_PAGE);
    const found: RecordedEvent[] = [];
    let cursor = after;
    for (;;) {
      const start = cursor;
      const records = await this.readPage(FORWARDS, readFrom(cursor), page, filter);
      const candidates: KurrentRecordedEvent[] = [];
      for (const record of records) {
        const position = toPosition(record.position);
        if (position <= cursor) continue;
        cursor = position;
        if (this.visible(record, wanted)) candidates.push(record);
      }
      const live = await this.withoutDeleted(candidates);
      found.push(...(await this.decode(live.slice(0, limit - found.length))));
      if (found.length >= limit || records.length < page || cursor === start) return found;
    }
  }

  /** Reads `$all` backwards (one page of 32 at a time) to the last port event; 0 when none. */
  headPosition(): Promise<number> {
    return this.track(this.headPositionNow());
  }

  private async headPositionNow(): Promise<number> {
    const filter = this.filter();
    let from: ReadPosition = END;
    let seen = Infinity;
    for (;;) {
      const records = await this.readPage(BACKWARDS, from, HEAD_PAGE, filter);
      let last: KurrentPosition | undefined;
      for (const record of records) {
        const position = toPosition(record.position);
        if (position >= seen) continue;
        seen = position;
        last = record.position;
        if (this.visible(record)) return position;
      }
      if (records.length < HEAD_PAGE || last === undefined) return 0;
      from = last;
    }
  }

  /**
   * Tombstones `subjectkey-<subjectId>` (a hard delete: KurrentDB never lets the stream be written
   * again, so no key can be created for the subject later). Idempotent.
   */
  eraseSubject(subjectId: string): Promise<void> {
    return this.track(this.eraseSubjectNow(subjectId));
  }

  private async eraseSubjectNow(subjectId: string): Promise<void> {
    try {
      await this.client.tombstoneStream(this.keyStream(subjectId));
    } catch (error) {
      if (!(error instanceof StreamDeletedError || error instanceof StreamTombstonedError)) {
        throw error;
      }
    }
    this.keys.set(subjectId, 'erased', Infinity);
  }

  /**
   * KurrentDB soft delete: reads of the stream find nothing, the next append continues after the
   * last revision. Idempotent (deleting an absent stream does nothing).
   */
  deleteStream(streamId: string): Promise<void> {
    return this.track(this.deleteStreamNow(streamId));
  }

  private async deleteStreamNow(streamId: string): Promise<void> {
    const name = this.stored(streamId);
    try {
      await this.client.deleteStream(name);
    } catch (error) {
      const absent =
        error instanceof WrongExpectedVersionError ||
        error instanceof StreamNotFoundError ||
        error instanceof StreamDeletedError;
      if (!absent) throw error;
    }
    this.truncation.delete(name);
  }

  onAppend(listener: AppendListener): () => void {
    this.emitter.on('append', listener);
    return () => this.emitter.off('append', listener);
  }

  /** Waits for the operations under way, then disposes the client. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.pending]);
    this.emitter.removeAllListeners();
    await this.client.dispose();
  }
}
