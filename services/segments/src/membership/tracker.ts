/**
 * Tracked membership of dynamic segments (spec part 6; API reference, "System events and
 * activity"): which contacts entered or left a segment whose `trackMembership` is on, recorded
 * as `SegmentEntered` / `SegmentExited` on the contact's membership stream of that segment.
 *
 * - Incrementally: once the audience projection has applied an event of a contact (a contact
 *   change, a tracked event, an email, a static membership, a membership of another segment),
 *   that contact alone is evaluated against the project's tracked segments.
 * - On the clock: a segment with relative-time filters (within, olderThan, triggeredWithin, ...)
 *   keeps one durable timer per contact at its next boundary (`segmentTimers`); the timer appends
 *   `SegmentMembershipDue` to the membership stream, and its projection evaluates the contact.
 * - In full ({@link MembershipTracker.compute}): every live contact of the project against one
 *   segment, in pages of contact ids, for `POST /segments/:id/compute` and when tracking starts
 *   or the condition changes.
 *
 * Every change is decided on the membership stream's state and appended with its revision as the
 * expected revision; a concurrent writer's change makes the append fail, and the decision is taken
 * again on the stream as it now is. So replays, redeliveries, a double-fired timer and a full pass
 * racing the incremental one never enter or exit a contact twice. The `segmentMembers` view
 * caches the streams' states (written at once by the tracker and by the projection of the events,
 * both guarded by the revision); a stale cache only costs a retry.
 */
import {
  entityIdOf,
  EMAIL_STREAM_CATEGORY,
  type EventTrackedEventData,
  CONTACT_STREAM_CATEGORY,
  TRACKED_EVENT_STREAM_CATEGORY,
} from '@stamp/contracts';
import {
  applyAtRevision,
  BoundedCache,
  type BulkOperation,
  decisionAppend,
  derivedId,
  type EventStore,
  type Filter,
  type Logger,
  type RecordedEvent,
  type StreamAppend,
  streamCategory,
  type ViewStore,
  WrongExpectedRevisionError,
} from '@stamp/platform';

import {
  type AudienceView,
  audienceView,
  emailActivityOf,
  liveContacts,
} from '../audience/projection.ts';
import {
  boundaryFilter,
  compileCondition,
  type Condition,
  evaluateCondition,
  nextBoundary,
  type SegmentResolver,
} from '../condition/index.ts';
import { type KnownSegment, SEGMENT_CATEGORY, type SegmentEvent } from '../segments/events.ts';
import { LIVE, type SegmentView, segmentsView } from '../segments/views.ts';
import { decideMembership } from './decide.ts';
import {
  foldMembership,
  type MembershipEvent,
  MEMBERSHIP_CATEGORY,
  type MembershipState,
  membershipStream,
  NO_MEMBERSHIP,
} from './events.ts';
import {
  memberKey,
  type MemberView,
  membersView,
  type SegmentTimer,
  segmentTimers,
} from './views.ts';

/** Contacts read per page of a full pass. */
const PAGE_SIZE = 1000;

/** Decisions taken again on a stream that changed meanwhile before giving up. */
const ATTEMPTS = 5;

/**
 * How long the tracker reuses a project's segments it read, ms: an import of thousands of
 * contacts reads them a few times, not once per event. A segment event of the project drops them.
 */
export const SEGMENTS_CACHE_MS = 250;

/** Longest wait of {@link MembershipTracker.definitionSeen} for the segments view, ms. */
const DEFINITION_WAIT_MS = 30_000;

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** A tracked dynamic segment, as the tracker evaluates it. */
interface Tracked {
  id: string;
  projectId: string;
  name: string;
  condition: Condition;
}

/** What a full pass changed. */
export interface ComputeResult {
  /** Contacts that entered the segment. */
  entered: number;
  /** Contacts that left it. */
  exited: number;
  /** Its members after the pass. */
  members: number;
  /** Log position of the last change appended; 0 when none was. */
  position: number;
  /** Whether the segment's membership is tracked (else nothing was done, and all is 0). */
  tracked: boolean;
}

/** Dependencies of {@link MembershipTracker}. */
export interface MembershipTrackerDeps {
  store: EventStore;
  views: ViewStore;
  logger: Logger;
  /** The clock of relative-time conditions (default: the system clock). */
  now?: () => Date;
}

const isTracked = (segment: SegmentView): segment is SegmentView & { condition: Condition } =>
  segment.type === 'DYNAMIC' && segment.trackMembership && segment.condition !== null;

const trackedOf = (segment: SegmentView & { condition: Condition }): Tracked => ({
  id: segment._id,
  projectId: segment.projectId,
  name: segment.name,
  condition: segment.condition,
});

/** The project's segments as references (see `SegmentMembership.resolver`). */
const resolverOf =
  (segments: readonly SegmentView[]): SegmentResolver =>
  (id) => {
    const segment = segments.find((candidate) => candidate._id === id);
    if (segment === undefined) return undefined;
    return segment.type === 'STATIC'
      ? { type: 'STATIC', trackMembership: false }
      : { type: 'DYNAMIC', condition: segment.condition ?? undefined, trackMembership: false };
  };

/** The contacts an audience event may have changed, for incremental evaluation. */
function contactsOf(event: RecordedEvent): string[] {
  const category = streamCategory(event.streamId);
  switch (category) {
    case CONTACT_STREAM_CATEGORY:
      return event.type === 'ContactDeleted' ? [] : [entityIdOf(event.streamId)];
    case TRACKED_EVENT_STREAM_CATEGORY:
      return event.type === 'EventTracked' ? [(event.data as EventTrackedEventData).contactId] : [];
    case EMAIL_STREAM_CATEGORY:
      // Only the email events the audience view records change a contact's summary.
      return event.metadata.subjectId === undefined || emailActivityOf(event) === undefined
        ? []
        : [event.metadata.subjectId];
    case SEGMENT_CATEGORY: {
      const typed = event as unknown as SegmentEvent;
      return typed.type === 'SegmentMembersAdded' || typed.type === 'SegmentMembersRemoved'
        ? typed.data.contactIds
        : [];
    }
    default:
      return [];
  }
}

const NOTHING_COMPUTED: ComputeResult = {
  entered: 0,
  exited: 0,
  members: 0,
  position: 0,
  tracked: false,
};

/** Keeps the membership of tracked segments; see the module comment. */
export class MembershipTracker {
  private readonly store: EventStore;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly segments;
  private readonly audience;
  private readonly members;
  private readonly timers;
  /** The live segments of recently seen projects, with the time they were read (ms). */
  private readonly projectSegments = new BoundedCache<
    string,
    { readAt: number; segments: SegmentView[] }
  >(1000);

  constructor(deps: MembershipTrackerDeps) {
    this.store = deps.store;
    this.logger = deps.logger;
    this.now = deps.now ?? ((): Date => new Date());
    this.segments = segmentsView(deps.views);
    this.audience = audienceView(deps.views);
    this.members = membersView(deps.views);
    this.timers = segmentTimers(deps.views);
  }

  /**
   * Projects a membership event into the members view (guarded by its revision; idempotent).
   * `ContactDeleted` forgets the contact's memberships and timers: an erased contact leaves no
   * exit, and is never evaluated again.
   */
  async project(event: RecordedEvent): Promise<void> {
    const category = streamCategory(event.streamId);
    if (category === CONTACT_STREAM_CATEGORY && event.type === 'ContactDeleted') {
      const contactId = entityIdOf(event.streamId);
      await this.members.deleteMany({ contactId });
      await this.timers.deleteMany({ contactId });
      return;
    }
    if (category !== MEMBERSHIP_CATEGORY || event.erased === true) return;
    const typed = event as unknown as MembershipEvent;
    const projectId = event.metadata.projectId ?? '';
    const { segmentId, contactId } = typed.data;
    const set: Record<string, unknown> = { projectId, segmentId, contactId };
    if (typed.type === 'SegmentEntered') set.member = true;
    if (typed.type === 'SegmentExited') set.member = false;
    if (typed.type === 'SegmentMembershipDue') {
      await applyAtRevision(
        this.members,
        memberKey(segmentId, contactId),
        event.revision,
        { $set: set, $setOnInsert: { member: false } },
        true,
      );
      return;
    }
    await applyAtRevision(
      this.members,
      memberKey(segmentId, contactId),
      event.revision,
      { $set: set },
      true,
    );
  }

  /**
   * Evaluates what `event` (already applied to the audience view) may have changed: the contacts
   * it concerns against every tracked segment of its project, or, for a timer, one contact
   * against one segment. Errors of one segment (a condition made invalid by a change of a
   * segment it references) are logged and skip that segment.
   */
  async evaluate(event: RecordedEvent): Promise<void> {
    const projectId = event.metadata.projectId;
    if (projectId === undefined || event.erased === true) return;
    if (streamCategory(event.streamId) === SEGMENT_CATEGORY) this.projectSegments.delete(projectId);
    const contactIds = contactsOf(event);
    let only: string | undefined;
    if (event.type === 'SegmentMembershipDue') {
      const data = event.data as { segmentId: string; contactId: string };
      contactIds.push(data.contactId);
      only = data.segmentId;
    }
    if (contactIds.length === 0) return;
    const segments = await this.segmentsOf(projectId);
    const tracked = segments
      .filter(isTracked)
      .filter((segment) => only === undefined || segment._id === only)
      .map(trackedOf);
    if (tracked.length === 0) return;
    const resolve = resolverOf(segments);
    for (const contactId of contactIds) {
      const document = await this.audience.findOne({ _id: contactId, ...liveContacts(projectId) });
      if (document === null) continue;
      for (const segment of tracked) await this.evaluateOne(segment, document, resolve);
    }
  }

  /**
   * Resolves once the segments view holds segment `segmentId` at `revision` or later and every
   * project's cached segments read before are out of use, so that each event applied to the
   * audience view from then on is evaluated with that definition: a full pass started after it
   * misses no contact (an event evaluated before is in the audience view the pass reads).
   * Gives up waiting for the view after 30 s.
   */
  async definitionSeen(segmentId: string, revision: number): Promise<void> {
    const deadline = Date.now() + DEFINITION_WAIT_MS;
    for (;;) {
      const found = await this.segments.findOne({ _id: segmentId });
      if ((found !== null && found.revision >= revision) || Date.now() > deadline) break;
      await sleep(10);
    }
    await sleep(SEGMENTS_CACHE_MS);
  }

  /** The live segments of a project, read at most {@link SEGMENTS_CACHE_MS} ago. */
  private async segmentsOf(projectId: string): Promise<SegmentView[]> {
    const cached = this.projectSegments.get(projectId);
    const now = Date.now();
    if (cached !== undefined && now - cached.readAt < SEGMENTS_CACHE_MS) return cached.segments;
    const segments = await this.segments.find({ projectId, ...LIVE });
    this.projectSegments.set(projectId, { readAt: now, segments });
    return segments;
  }

  /**
   * A full pass of `segment`: enters every live contact of its project that matches and is not
   * a member, exits every member that no longer matches, and sets the timers of the contacts the
   * clock may move. Memory stays bounded by one page of contacts.
   */
  async compute(known: KnownSegment): Promise<ComputeResult> {
    if (known.status !== 'active' || known.type !== 'DYNAMIC' || known.condition === null) {
      return NOTHING_COMPUTED;
    }
    if (!known.trackMembership) return NOTHING_COMPUTED;
    const segmentId = known.id;
    const segment: Tracked = { ...known, condition: known.condition };
    const siblings = await this.segments.find({ projectId: segment.projectId, ...LIVE });
    const resolve = resolverOf(siblings);
    const now = this.now();
    const compiled = compileCondition(segment.condition, {
      now,
      resolveSegment: resolve,
      segmentId,
    });
    const matching: Filter = { $and: [liveContacts(segment.projectId), compiled] };
    // The contacts the clock may still move (undefined: none can move).
    const timed = boundaryFilter(segment.condition, now, resolve);
    let entered = 0;
    let exited = 0;
    let position = 0;
    // Entries (matching contacts whose membership is not on) and timers, in one scan: of the
    // matching contacts and of those the clock may move, which the direct evaluation tells apart.
    const scanned: Filter =
      timed === undefined
        ? matching
        : { $and: [liveContacts(segment.projectId), { $or: [compiled, timed] }] };
    await this.pages(scanned, async (page) => {
      const matches =
        timed === undefined
          ? page
          : page.filter((contact) =>
              evaluateCondition(segment.condition, contact, {
                now,
                resolveSegment: resolve,
                segmentId,
              }),
            );
      const known = await this.memberStates(
        segmentId,
        matches.map((contact) => contact._id),
      );
      const joining = matches.filter((contact) => known.get(contact._id)?.member !== true);
      const done = await this.decideMany(
        segment,
        joining.map((contact) => contact._id),
        true,
        known,
      );
      entered += done.changed;
      position = Math.max(position, done.position);
      if (timed !== undefined) await this.schedule(segment, page, resolve);
    });
    // Exits: members that do not match (or are no longer live contacts).
    let after = '';
    for (;;) {
      const page = await this.members.find(
        { segmentId, member: true, contactId: { $gt: after } },
        { sort: { contactId: 1 }, limit: PAGE_SIZE },
      );
      if (page.length === 0) break;
      after = page[page.length - 1]?.contactId ?? after;
      const ids = page.map((member) => member.contactId);
      const still = new Set(
        (await this.audience.find({ $and: [matching, { _id: { $in: ids } }] })).map(
          (contact) => contact._id,
        ),
      );
      const known = new Map(page.map((member) => [member.contactId, stateOf(member)]));
      const leaving = ids.filter((id) => !still.has(id));
      const done = await this.decideMany(segment, leaving, false, known);
      exited += done.changed;
      position = Math.max(position, done.position);
    }
    const members = await this.members.countDocuments({ segmentId, member: true });
    return { entered, exited, members, position, tracked: true };
  }

  /** Calls `handle` with the documents matching `filter`, in pages in `_id` order. */
  private async pages(
    filter: Filter,
    handle: (page: AudienceView[]) => Promise<void>,
  ): Promise<void> {
    let after: string | undefined;
    for (;;) {
      const page = await this.audience.find(
        after === undefined ? filter : { $and: [filter, { _id: { $gt: after } }] },
        { sort: { _id: 1 }, limit: PAGE_SIZE },
      );
      if (page.length === 0) return;
      await handle(page);
      after = page[page.length - 1]?._id;
      if (page.length < PAGE_SIZE) return;
    }
  }

  /** The cached membership states of `contactIds` in `segmentId` (absent: none cached). */
  private async memberStates(
    segmentId: string,
    contactIds: readonly string[],
  ): Promise<Map<string, MembershipState>> {
    const found = await this.members.find({
      _id: { $in: contactIds.map((id) => memberKey(segmentId, id)) },
    });
    return new Map(found.map((member) => [member.contactId, stateOf(member)]));
  }

  /** Evaluates one contact against one segment, decides, and sets its timer. */
  private async evaluateOne(
    segment: Tracked,
    document: AudienceView,
    resolve: SegmentResolver,
  ): Promise<void> {
    let matches: boolean;
    try {
      matches = evaluateCondition(segment.condition, document, {
        now: this.now(),
        resolveSegment: resolve,
        segmentId: segment.id,
      });
    } catch (error) {
      this.logger.warn({ err: error, segmentId: segment.id }, 'tracked segment not evaluated');
      return;
    }
    const cached = await this.members.findOne({ _id: memberKey(segment.id, document._id) });
    await this.decide(
      segment,
      document._id,
      matches,
      cached === null ? NO_MEMBERSHIP : stateOf(cached),
    );
    await this.schedule(segment, [document], resolve);
  }

  /**
   * Enters (`matches`) or exits the contacts in batches of one append, each stream at the
   * revision of its cached state; when a stream changed meanwhile, the batch is decided again one
   * contact at a time on the streams themselves. Returns how many changed, and the log position
   * of the last change (0: none).
   */
  private async decideMany(
    segment: Tracked,
    contactIds: readonly string[],
    matches: boolean,
    known: ReadonlyMap<string, MembershipState>,
  ): Promise<{ changed: number; position: number }> {
    const appends: StreamAppend[] = [];
    const changes: { contactId: string; event: MembershipEvent }[] = [];
    for (const contactId of contactIds) {
      const state = known.get(contactId) ?? NO_MEMBERSHIP;
      const event = decideMembership(state, matches, segment, contactId);
      if (event === undefined) continue;
      changes.push({ contactId, event });
      appends.push(this.appendOf(segment, contactId, state, event));
    }
    if (appends.length === 0) return { changed: 0, position: 0 };
    try {
      const { revisions, position } = await this.store.append(appends);
      for (const { contactId, event } of changes) {
        const revision = revisions[membershipStream(segment.id, contactId)] ?? 0;
        await this.cache(segment, contactId, event.type === 'SegmentEntered', revision);
      }
      return { changed: changes.length, position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
    let changed = 0;
    let position = 0;
    for (const { contactId } of changes) {
      const state = known.get(contactId) ?? NO_MEMBERSHIP;
      const appended = await this.decide(segment, contactId, matches, state);
      if (appended > 0) changed += 1;
      position = Math.max(position, appended);
    }
    return { changed, position };
  }

  /**
   * Brings one membership in line with `matches`, starting from the cached `state`; on a
   * conflict, reads the stream and decides again. Returns the log position of the change it
   * appended, 0 when none was needed.
   * @throws WrongExpectedRevisionError after {@link ATTEMPTS} conflicts in a row.
   */
  private async decide(
    segment: Tracked,
    contactId: string,
    matches: boolean,
    cached: MembershipState,
  ): Promise<number> {
    let state = cached;
    for (let attempt = 1; ; attempt++) {
      const event = decideMembership(state, matches, segment, contactId);
      if (event === undefined) {
        if (state !== cached) await this.cache(segment, contactId, state.member, state.revision);
        return 0;
      }
      try {
        const { revisions, position } = await this.store.append([
          this.appendOf(segment, contactId, state, event),
        ]);
        const revision = revisions[membershipStream(segment.id, contactId)] ?? state.revision + 1;
        await this.cache(segment, contactId, matches, revision);
        return position;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= ATTEMPTS) throw error;
        state = foldMembership(
          await this.store.readStream(membershipStream(segment.id, contactId)),
        );
      }
    }
  }

  private appendOf(
    segment: Tracked,
    contactId: string,
    state: MembershipState,
    event: MembershipEvent,
  ): StreamAppend {
    return decisionAppend(membershipStream(segment.id, contactId), state.revision, [event], {
      projectId: segment.projectId,
      subjectId: contactId,
    });
  }

  /** Writes a membership state to the members view (no older revision overwrites it). */
  private async cache(
    segment: Tracked,
    contactId: string,
    member: boolean,
    revision: number,
  ): Promise<void> {
    await applyAtRevision(
      this.members,
      memberKey(segment.id, contactId),
      revision,
      { $set: { projectId: segment.projectId, segmentId: segment.id, contactId, member } },
      true,
    );
  }

  /**
   * Sets each contact's one timer of the segment at its next boundary (none when the clock can no
   * longer change its answer): a timer due at another time is replaced. One read of the pending
   * timers and one bulk write for all of `documents`.
   */
  private async schedule(
    segment: Tracked,
    documents: readonly AudienceView[],
    resolve: SegmentResolver,
  ): Promise<void> {
    const now = this.now();
    if (documents.length === 0 || boundaryFilter(segment.condition, now, resolve) === undefined) {
      return;
    }
    const pairs = documents.map((document) => memberKey(segment.id, document._id));
    const pending = new Map<string, SegmentTimer[]>();
    for (const timer of await this.timers.find({ pair: { $in: pairs } })) {
      pending.set(timer.pair, [...(pending.get(timer.pair) ?? []), timer]);
    }
    const operations: BulkOperation[] = [];
    for (const document of documents) {
      const contactId = document._id;
      const pair = memberKey(segment.id, contactId);
      const due = nextBoundary(segment.condition, document, now, resolve)?.getTime();
      const timers = pending.get(pair) ?? [];
      if (due !== undefined && timers.length === 1 && timers[0]?.dueAt === due) continue;
      for (const timer of timers) operations.push({ deleteOne: { filter: { _id: timer._id } } });
      if (due === undefined) continue;
      const timer: SegmentTimer = {
        _id: derivedId(`${pair}@${due}`),
        pair,
        contactId,
        dueAt: due,
        streamId: membershipStream(segment.id, contactId),
        event: {
          type: 'SegmentMembershipDue',
          data: { segmentId: segment.id, contactId },
          metadata: { projectId: segment.projectId, subjectId: contactId },
        },
      };
      operations.push({
        replaceOne: { filter: { _id: timer._id }, replacement: timer, upsert: true },
      });
    }
    if (operations.length > 0) await this.timers.bulkWrite(operations);
  }
}

const stateOf = (member: MemberView): MembershipState => ({
  member: member.member,
  revision: member.revision,
});
