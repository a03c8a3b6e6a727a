/**
 * The `tracked-events-view` projection (spec part 4, "Events"; architecture brief, "Idempotent
 * projections" and "Privacy"): fills the views of `views.ts` from
 * - `EventTracked` (topic `trackedEvent`) and the system events `segment.<slug>.entry` / `.exit`
 *   (`SegmentEntered` / `SegmentExited`, topic `segmentMembership`): inserts the event's document
 *   and counts it;
 * - `ContactDeleted` (topic `contact`): removes the contact's events and marks the contact, so a
 *   lagging event of it is never projected again;
 * - `TrackedEventsDeleted` (topic `trackedEventName`): marks the name up to the recorded log
 *   position and removes its events up to there.
 * Idempotent: an event document is inserted at most once (its id is the event id) and counted
 * only when its insertion happened; it is uncounted only by the removal that deleted it. Erased
 * events (their contact was crypto-shredded) are never projected. The markers are written before
 * removals scan, and an insertion checks them again after it, so an event handled concurrently
 * with a deletion cannot survive it. Rebuildable: dropping the five collections and replaying the
 * log yields the same views.
 */
import {
  type ContactValue,
  SEGMENT_MEMBERSHIP_CHANGES,
  SEGMENT_MEMBERSHIP_STREAM_CATEGORY,
} from '@stamp/contracts';
import {
  type BulkOperation,
  type EventStore,
  isDuplicateKey,
  type RecordedEvent,
  type Update,
  type ViewStore,
} from '@stamp/platform';

import { CONTACT_CATEGORY } from '../contacts/events.ts';
import { TRACKED_EVENT_CATEGORY } from '../track/events.ts';
import { TRACKED_EVENT_NAME_CATEGORY } from './events.ts';
import {
  bucketKey,
  bucketOf,
  contactErasureKey,
  dayKey,
  dayOf,
  nameErasureKey,
  nameKey,
  type TrackedEventView,
  type TrackedEventViews,
  trackedEventViews,
} from './views.ts';

/** Dependencies of {@link TrackedEventsProjection}. */
export interface TrackedEventsProjectionDeps {
  views: ViewStore;
  /**
   * The event log: an event of a deleted name that reaches the projection late has its stream
   * deleted too (idempotent), so the log keeps none of the deleted events.
   */
  store: EventStore;
}

/** What keeps an event out of the views. */
type Block = 'name' | 'contact' | null;

/** Lets other work run between long stretches of in-memory view writes. */
const yieldToLoop = (): Promise<void> =>
  new Promise((resolve) => {
    setImmediate(resolve);
  });

const idOf = (streamId: string): string => streamId.slice(streamId.indexOf('-') + 1);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function primitives(value: unknown): Record<string, ContactValue> {
  const data: Record<string, ContactValue> = {};
  if (!isRecord(value)) return data;
  for (const [key, item] of Object.entries(value)) {
    if (key === '__proto__') continue;
    if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') {
      data[key] = item;
    }
  }
  return data;
}

/** Counter changes of one collection, by `_id`. */
interface Tally<F> {
  fields: F;
  delta: number;
  latest: string;
}

function tallyOf<F>(map: Map<string, Tally<F>>, id: string, fields: F, createdAt: string): void {
  const tally = map.get(id);
  if (tally === undefined) {
    map.set(id, { fields, delta: 1, latest: createdAt });
    return;
  }
  tally.delta += 1;
  if (createdAt > tally.latest) tally.latest = createdAt;
}

/** The projection of tracked events; `handle` is the consumer's handler. */
export class TrackedEventsProjection {
  private readonly views: TrackedEventViews;
  private readonly store: EventStore;

  constructor(deps: TrackedEventsProjectionDeps) {
    this.views = trackedEventViews(deps.views);
    this.store = deps.store;
  }

  /** Applies one event of the topics `trackedEvent`, `contact` and `trackedEventName`. */
  handle(event: RecordedEvent): Promise<void> {
    return this.handleBatch([event]);
  }

  /**
   * Applies events in log order, as {@link handle} of each in turn would: a run of tracked
   * events is inserted together, its deletion markers read at once and its counters written
   * once with the run's sums; a deletion (of a contact, of a name) ends the run before it.
   */
  async handleBatch(events: readonly RecordedEvent[]): Promise<void> {
    let run: RecordedEvent[] = [];
    for (const event of events) {
      const category = event.streamId.slice(0, event.streamId.indexOf('-'));
      if (
        (category === TRACKED_EVENT_CATEGORY && event.type === 'EventTracked') ||
        (category === SEGMENT_MEMBERSHIP_STREAM_CATEGORY &&
          SEGMENT_MEMBERSHIP_CHANGES.has(event.type))
      ) {
        run.push(event);
      } else if (category === CONTACT_CATEGORY && event.type === 'ContactDeleted') {
        await this.tracked(run);
        run = [];
        await this.contactDeleted(event);
      } else if (
        category === TRACKED_EVENT_NAME_CATEGORY &&
        event.type === 'TrackedEventsDeleted'
      ) {
        await this.tracked(run);
        run = [];
        await this.namesDeleted(event);
      }
    }
    await this.tracked(run);
  }

  /**
   * Inserts tracked events, and system events recorded as membership changes (data
   * `{segmentId, segmentName}`), each under its event id.
   */
  private async tracked(events: readonly RecordedEvent[]): Promise<void> {
    const documents: TrackedEventView[] = [];
    for (const event of events) {
      if (event.erased === true || !isRecord(event.data)) continue;
      const projectId = event.metadata.projectId;
      const { name, contactId, segmentId, segmentName } = event.data;
      if (projectId === undefined || typeof name !== 'string' || typeof contactId !== 'string') {
        continue;
      }
      const data =
        event.type === 'EventTracked'
          ? primitives(event.data.data)
          : primitives({ segmentId, segmentName });
      documents.push({
        _id: event.id,
        projectId,
        name,
        contactId,
        data,
        createdAt: event.createdAt,
        position: event.position,
        bucket: bucketOf(event.position),
      });
    }
    if (documents.length === 0) return;
    const own = new Set(
      events.filter((event) => event.type === 'EventTracked').map((event) => event.id),
    );
    const streams = new Map(events.map((event) => [event.id, event.streamId]));
    const blocks = await this.blocksOf(documents);
    const inserted: TrackedEventView[] = [];
    for (const document of documents) {
      const block = blocks.get(document._id) ?? null;
      if (block === 'name') {
        if (own.has(document._id)) await this.store.deleteStream(streams.get(document._id) ?? '');
        continue;
      }
      if (block === 'contact') continue;
      try {
        await this.views.events.insertOne(document);
      } catch (error) {
        if (isDuplicateKey(error)) continue;
        throw error;
      }
      inserted.push(document);
    }
    await this.count(inserted, 1);
    // A deletion may have marked a name or a contact while the documents were being inserted.
    const late = await this.blocksOf(inserted);
    const removed = inserted.filter((document) => (late.get(document._id) ?? null) !== null);
    await this.remove(removed);
    for (const document of removed) {
      if (late.get(document._id) === 'name' && own.has(document._id)) {
        await this.store.deleteStream(streams.get(document._id) ?? '');
      }
    }
  }

  private async contactDeleted(event: RecordedEvent): Promise<void> {
    const contactId = idOf(event.streamId);
    await this.views.erasures.updateOne(
      { _id: contactErasureKey(contactId) },
      { $max: { upToPosition: event.position } },
      { upsert: true },
    );
    const projectId = event.metadata.projectId;
    if (projectId === undefined) return;
    await this.remove(await this.views.events.find({ projectId, contactId }));
  }

  private async namesDeleted(event: RecordedEvent): Promise<void> {
    const projectId = event.metadata.projectId;
    if (projectId === undefined || !isRecord(event.data)) return;
    const { name, upToPosition } = event.data;
    if (typeof name !== 'string' || typeof upToPosition !== 'number') return;
    await this.views.erasures.updateOne(
      { _id: nameErasureKey(projectId, name) },
      { $max: { upToPosition } },
      { upsert: true },
    );
    const buckets = await this.views.buckets.find({
      projectId,
      bucket: { $lte: bucketOf(upToPosition) },
    });
    for (const { bucket } of buckets) {
      const documents = await this.views.events.find({
        projectId,
        name,
        bucket,
        position: { $lte: upToPosition },
      });
      if (documents.length === 0) continue;
      await this.remove(documents);
      await yieldToLoop();
    }
  }

  /**
   * What keeps each document out of the views, by its id: a deletion of its name up to its
   * position, or of its contact. The markers are read at once.
   */
  private async blocksOf(documents: readonly TrackedEventView[]): Promise<Map<string, Block>> {
    const blocks = new Map<string, Block>();
    if (documents.length === 0) return blocks;
    const keys = new Set<string>();
    for (const { projectId, name, contactId } of documents) {
      keys.add(nameErasureKey(projectId, name));
      keys.add(contactErasureKey(contactId));
    }
    const markers = new Map(
      (await this.views.erasures.find({ _id: { $in: [...keys] } })).map((marker) => [
        marker._id,
        marker,
      ]),
    );
    for (const { _id, projectId, name, contactId, position } of documents) {
      const named = markers.get(nameErasureKey(projectId, name));
      if (named !== undefined && named.upToPosition >= position) blocks.set(_id, 'name');
      else if (markers.has(contactErasureKey(contactId))) blocks.set(_id, 'contact');
    }
    return blocks;
  }

  /** Deletes event documents; uncounts those this call deleted (not those already gone). */
  private async remove(documents: readonly TrackedEventView[]): Promise<void> {
    const removed: TrackedEventView[] = [];
    for (const document of documents) {
      const { deletedCount } = await this.views.events.deleteOne({ _id: document._id });
      if (deletedCount === 1) removed.push(document);
    }
    await this.count(removed, -1);
  }

  /**
   * Adds `sign` × the documents to the bucket, name and day counters (upserts). After a removal,
   * counters that reached exactly zero are deleted: an absent counter reads as zero.
   */
  private async count(documents: readonly TrackedEventView[], sign: 1 | -1): Promise<void> {
    if (documents.length === 0) return;
    const buckets = new Map<string, Tally<{ projectId: string; bucket: number }>>();
    const names = new Map<string, Tally<{ projectId: string; name: string }>>();
    const days = new Map<string, Tally<{ projectId: string; name: string; day: string }>>();
    for (const { projectId, name, bucket, createdAt } of documents) {
      const day = dayOf(createdAt);
      tallyOf(buckets, bucketKey(projectId, bucket), { projectId, bucket }, createdAt);
      tallyOf(names, nameKey(projectId, name), { projectId, name }, createdAt);
      tallyOf(days, dayKey(projectId, name, day), { projectId, name, day }, createdAt);
    }
    const operations = <F extends Record<string, unknown>>(
      tallies: Map<string, Tally<F>>,
      extra: (tally: Tally<F>) => Update,
    ): BulkOperation[] =>
      [...tallies].map(([_id, tally]) => ({
        updateOne: {
          filter: { _id },
          update: { $inc: { count: sign * tally.delta }, ...extra(tally) },
          upsert: true,
        },
      }));
    await this.views.buckets.bulkWrite(
      operations(buckets, (tally) => ({ $setOnInsert: tally.fields })),
    );
    await this.views.names.bulkWrite(
      operations(names, (tally): Update =>
        sign > 0
          ? { $setOnInsert: tally.fields, $max: { lastSeenAt: tally.latest } }
          : { $setOnInsert: { ...tally.fields, lastSeenAt: tally.latest } },
      ),
    );
    await this.views.days.bulkWrite(operations(days, (tally) => ({ $setOnInsert: tally.fields })));
    if (sign > 0) return;
    for (const _id of buckets.keys()) await this.views.buckets.deleteOne({ _id, count: 0 });
    for (const _id of names.keys()) await this.views.names.deleteOne({ _id, count: 0 });
    for (const _id of days.keys()) await this.views.days.deleteOne({ _id, count: 0 });
  }
}
