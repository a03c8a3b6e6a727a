/**
 * Command handling of contacts: loads states from the event store (through a bounded in-memory
 * cache that reads only newer events), runs the deciders, and appends the contact stream together
 * with the email claim streams in one atomic append with expected revisions, retrying on
 * WrongExpectedRevisionError (architecture brief, "Unique email per project").
 */
import type {
  ContactDataInput,
  UpsertRecipientInput,
  UpsertRecipientResult,
} from '@stamp/contracts';
import { ApiError, conflict, notFound } from '@stamp/http-kit';
import {
  BoundedCache,
  type EventMetadata,
  type EventStore,
  expectedAt,
  type Logger,
  newId,
  type StreamAppend,
  withRevisionRetry,
  WrongExpectedRevisionError,
} from '@stamp/platform';

import { type DataPatch, dataPatch } from './data.ts';
import { decide } from './decide.ts';
import { normaliseEmail } from './email.ts';
import {
  type ClaimEvent,
  type ClaimState,
  claimStreamId,
  type ContactEvent,
  type ContactState,
  contactStreamId,
  evolve,
  evolveClaim,
  initialContact,
} from './events.ts';

/** A state with the revision of the last event folded into it (-1 = no stream). */
interface Loaded<S> {
  state: S;
  revision: number;
  /** Project of the stream (metadata of its first event), null when the stream is absent. */
  projectId: string | null;
}

/** Fields of a contact update (PATCH /contacts/:id). */
export interface ContactChanges {
  email?: string;
  subscribed?: boolean;
  data?: Record<string, ContactDataInput | undefined>;
}

/** Result of an update or deletion: the log position of the append, 0 when nothing changed. */
export interface CommandResult {
  contactId: string;
  position: number;
}

/**
 * Rows of {@link ContactCommands.upsertRecipients} appended together at most: a larger append
 * commits less often but holds the event loop (and the projections behind it) longer.
 */
const BATCH_ROWS = 250;

/** Options of {@link ContactCommands}. */
export interface ContactCommandsOptions {
  store: EventStore;
  logger: Logger;
  /** Maximum cached stream states, of contacts and of claims each (default 10,000). */
  cacheSize?: number;
  /** Attempts of a command on WrongExpectedRevisionError (default 25). */
  maxAttempts?: number;
}

/** The write side of contacts. */
export class ContactCommands {
  private readonly store: EventStore;
  private readonly logger: Logger;
  private readonly maxAttempts: number;
  private readonly contacts: BoundedCache<string, Loaded<ContactState>>;
  private readonly claims: BoundedCache<string, Loaded<ClaimState>>;

  constructor(options: ContactCommandsOptions) {
    this.store = options.store;
    this.logger = options.logger;
    this.maxAttempts = options.maxAttempts ?? 25;
    this.contacts = new BoundedCache(options.cacheSize ?? 10_000);
    this.claims = new BoundedCache(options.cacheSize ?? 10_000);
  }

  /**
   * Creates or updates the contact with this email in the project (ContactsApi.upsertRecipient):
   * a new contact gets `subscribed ?? defaultSubscribed`; an existing one changes its data by the
   * rules of part 2 and its subscription only when `subscribed` is given and differs. Appends
   * nothing (position 0) when nothing changes.
   * @throws ApiError 422 VALIDATION_ERROR for an invalid email or data beyond the limits.
   * @throws ApiError 409 CONFLICT when concurrent writers keep winning (after 25 attempts).
   * @param also streams to append in the same atomic append as the contact's events (for
   *   example the tracked event that caused the upsert); when given, an append always happens.
   */
  async upsertRecipient(
    input: UpsertRecipientInput,
    also?: (contact: { contactId: string; email: string }) => StreamAppend[],
  ): Promise<UpsertRecipientResult> {
    const email = normaliseEmail(input.email);
    const patch = dataPatch(input.data);
    const claimId = claimStreamId(input.projectId, email);
    return this.retry(async (attempt) => {
      const plan = await this.planUpsert(input, email, patch, claimId, attempt > 0);
      const extra = also?.({ contactId: plan.contactId, email: plan.email }) ?? [];
      const position =
        plan.streams.length > 0 || extra.length > 0
          ? await this.append(plan.metadata, plan.streams, extra)
          : 0;
      return plan.result(position);
    });
  }

  /**
   * {@link upsertRecipient} for many recipients at once (CSV imports): rows are decided on the
   * cached or stored states of their claims and contacts, and those of distinct emails are
   * appended together, up to 250 rows per atomic append (a row repeating an email goes in a later
   * append, in order). Rows of an append that meets a concurrent change are run again one by one. Results
   * come in the order of `inputs`: an ApiError (422 for an invalid email or data) is that row's
   * result, not thrown.
   * @throws Error other than ApiError (the store failing), after which no result is known.
   */
  async upsertRecipients(
    inputs: readonly UpsertRecipientInput[],
  ): Promise<(UpsertRecipientResult | ApiError)[]> {
    const results: (UpsertRecipientResult | ApiError | undefined)[] = inputs.map(() => undefined);
    let waiting: { index: number; email: string; patch: DataPatch; claimId: string }[] = [];
    for (const [index, input] of inputs.entries()) {
      try {
        const email = normaliseEmail(input.email);
        const patch = dataPatch(input.data);
        waiting.push({ index, email, patch, claimId: claimStreamId(input.projectId, email) });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        results[index] = error;
      }
    }
    while (waiting.length > 0) {
      const claimed = new Set<string>();
      const wave: typeof waiting = [];
      const later: typeof waiting = [];
      for (const row of waiting) {
        if (claimed.has(row.claimId) || wave.length >= BATCH_ROWS) later.push(row);
        else {
          claimed.add(row.claimId);
          wave.push(row);
        }
      }
      waiting = later;
      const plans: { index: number; plan: UpsertPlan; metadata: EventMetadataOf }[] = [];
      for (const { index, email, patch, claimId } of wave) {
        const input = inputs[index];
        if (input === undefined) continue;
        try {
          const plan = await this.planUpsert(input, email, patch, claimId, false);
          plans.push({ index, plan, metadata: plan.metadata });
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          results[index] = error;
        }
      }
      const streams = plans.flatMap(({ plan }) =>
        plan.streams.map((stream) => ({ ...stream, metadata: plan.metadata })),
      );
      try {
        const position = streams.length === 0 ? 0 : await this.appendMany(streams);
        for (const { index, plan } of plans) {
          results[index] = plan.result(plan.streams.length === 0 ? 0 : position);
        }
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        // A concurrent change (a send or a track of one of these emails): one by one, retried.
        this.contacts.delete(error.streamId);
        this.claims.delete(error.streamId);
        for (const { index } of plans) {
          const input = inputs[index];
          if (input === undefined) continue;
          try {
            results[index] = await this.upsertRecipient(input);
          } catch (single) {
            if (!(single instanceof ApiError)) throw single;
            results[index] = single;
          }
        }
      }
    }
    return results.map(
      (result) => result ?? new ApiError(500, 'INTERNAL_SERVER_ERROR', 'Row not processed'),
    );
  }

  /**
   * What upserting `input` appends, decided on the claim's and contact's states (read fresh
   * with `fresh`), and its result once appended at a position.
   */
  private async planUpsert(
    input: UpsertRecipientInput,
    email: string,
    patch: DataPatch,
    claimId: string,
    fresh: boolean,
  ): Promise<UpsertPlan> {
    const claim = await this.loadClaim(claimId);
    const metadata = { projectId: input.projectId, correlationId: input.correlationId };
    const holder = claim.state.contactId;
    if (holder === null) {
      const contactId = newId();
      const subscribed = input.subscribed ?? input.defaultSubscribed;
      const events = decide(initialContact(), { type: 'CreateContact', email, subscribed, patch });
      const claimEvents: ClaimEvent[] = [{ type: 'EmailClaimed', data: { contactId } }];
      const state = events.reduce(evolve, initialContact());
      return {
        contactId,
        email,
        metadata,
        streams: [
          { kind: 'contact', streamId: contactStreamId(contactId), revision: -1, events },
          { kind: 'claim', streamId: claimId, revision: claim.revision, events: claimEvents },
        ],
        result: (position) => ({
          contactId,
          email,
          subscribed,
          data: state.data,
          isNew: true,
          position,
        }),
      };
    }
    const loaded = await this.loadContact(holder, fresh);
    const events = decide(loaded.state, {
      type: 'UpdateContact',
      subscribed: input.subscribed,
      patch,
    });
    const state = events.reduce(evolve, loaded.state);
    return {
      contactId: holder,
      email: state.email,
      metadata,
      streams:
        events.length === 0
          ? []
          : [
              {
                kind: 'contact',
                streamId: contactStreamId(holder),
                revision: loaded.revision,
                events,
              },
            ],
      result: (position) => ({
        contactId: holder,
        email: state.email,
        subscribed: state.subscribed,
        data: state.data,
        isNew: false,
        position,
      }),
    };
  }

  /**
   * Updates a contact of the project (PATCH /contacts/:id): a new email moves the claim in the
   * same append; a subscription flip emits ContactSubscribed / ContactUnsubscribed.
   * @throws ApiError 404 CONTACT_NOT_FOUND when the contact is absent, deleted or of another project.
   * @throws ApiError 409 CONFLICT when another contact of the project has the new email.
   * @throws ApiError 422 VALIDATION_ERROR for an invalid email or data beyond the limits.
   */
  async updateContact(
    projectId: string,
    contactId: string,
    changes: ContactChanges,
    correlationId: string,
  ): Promise<CommandResult> {
    const email = changes.email === undefined ? undefined : normaliseEmail(changes.email);
    const patch: DataPatch | undefined =
      changes.data === undefined ? undefined : dataPatch(changes.data);
    return this.retry(async () => {
      const loaded = await this.loadProjectContact(projectId, contactId);
      const events = decide(loaded.state, {
        type: 'UpdateContact',
        email,
        subscribed: changes.subscribed,
        patch,
      });
      if (events.length === 0) return { contactId, position: 0 };
      const streams: PendingAppend[] = [
        {
          kind: 'contact',
          streamId: contactStreamId(contactId),
          revision: loaded.revision,
          events,
        },
      ];
      if (email !== undefined && email !== loaded.state.email) {
        const newClaimId = claimStreamId(projectId, email);
        const newClaim = await this.loadClaim(newClaimId);
        if (newClaim.state.contactId !== null && newClaim.state.contactId !== contactId) {
          throw conflict('Another contact in this project has this email', {
            errors: [{ field: 'email', message: 'Email already in use', code: 'conflict' }],
          });
        }
        const oldClaimId = claimStreamId(projectId, loaded.state.email);
        const oldClaim = await this.loadClaim(oldClaimId);
        streams.push(
          {
            kind: 'claim',
            streamId: oldClaimId,
            revision: oldClaim.revision,
            events: [{ type: 'EmailReleased', data: { contactId } }],
          },
          {
            kind: 'claim',
            streamId: newClaimId,
            revision: newClaim.revision,
            events: [{ type: 'EmailClaimed', data: { contactId } }],
          },
        );
      }
      const position = await this.append({ projectId, correlationId }, streams);
      return { contactId, position };
    });
  }

  /**
   * Deletes a contact of the project: ContactDeleted and EmailReleased in one append.
   * @throws ApiError 404 CONTACT_NOT_FOUND when the contact is absent, deleted or of another project.
   */
  async deleteContact(
    projectId: string,
    contactId: string,
    correlationId: string,
  ): Promise<CommandResult> {
    return this.retry(async () => {
      const loaded = await this.loadProjectContact(projectId, contactId);
      const events = decide(loaded.state, { type: 'DeleteContact' });
      const claimId = claimStreamId(projectId, loaded.state.email);
      const claim = await this.loadClaim(claimId);
      const position = await this.append({ projectId, correlationId }, [
        {
          kind: 'contact',
          streamId: contactStreamId(contactId),
          revision: loaded.revision,
          events,
        },
        {
          kind: 'claim',
          streamId: claimId,
          revision: claim.revision,
          events: [{ type: 'EmailReleased', data: { contactId } }],
        },
      ]);
      return { contactId, position };
    });
  }

  private async loadProjectContact(
    projectId: string,
    contactId: string,
  ): Promise<Loaded<ContactState>> {
    const loaded = await this.loadContact(contactId, true);
    if (loaded.projectId !== projectId || loaded.state.status !== 'active') {
      throw notFound('CONTACT_NOT_FOUND', 'Contact not found');
    }
    return loaded;
  }

  /**
   * Runs `command` with the platform's revision retry (jittered), dropping the cached state of a
   * conflicting stream before each new attempt.
   * @throws ApiError 409 CONFLICT when the attempts run out.
   */
  private async retry<T>(command: (attempt: number) => Promise<T>): Promise<T> {
    const evict = (error: WrongExpectedRevisionError): void => {
      this.contacts.delete(error.streamId);
      this.claims.delete(error.streamId);
    };
    try {
      return await withRevisionRetry(command, {
        attempts: this.maxAttempts,
        jitterMs: 5,
        onConflict: evict,
      });
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      evict(error);
      this.logger.warn({ streamId: error.streamId }, 'contact command kept conflicting');
      throw conflict('The contact was changed concurrently; retry the request');
    }
  }

  /**
   * The contact's state. With `fresh`, events newer than the cached revision are read first;
   * without it a cached state is used as is (a stale one fails the append's revision check).
   */
  private async loadContact(contactId: string, fresh: boolean): Promise<Loaded<ContactState>> {
    const streamId = contactStreamId(contactId);
    const cached = this.contacts.get(streamId);
    if (cached !== undefined && !fresh) return cached;
    const base: Loaded<ContactState> = cached ?? {
      state: initialContact(),
      revision: -1,
      projectId: null,
    };
    const recorded = await this.store.readStream(streamId, base.revision + 1);
    if (recorded.length === 0) return base;
    let { state, projectId } = base;
    for (const event of recorded) {
      state = evolve(state, event as unknown as ContactEvent);
      projectId ??= event.metadata.projectId ?? null;
    }
    const last = recorded[recorded.length - 1];
    const loaded = { state, projectId, revision: last?.revision ?? base.revision };
    this.remember(this.contacts, streamId, loaded);
    return loaded;
  }

  /** The claim's state, reading the events newer than the cached revision. */
  private async loadClaim(streamId: string): Promise<Loaded<ClaimState>> {
    const base: Loaded<ClaimState> = this.claims.get(streamId) ?? {
      state: { contactId: null },
      revision: -1,
      projectId: null,
    };
    const recorded = await this.store.readStream(streamId, base.revision + 1);
    if (recorded.length === 0) return base;
    let { state } = base;
    for (const event of recorded) state = evolveClaim(state, event as unknown as ClaimEvent);
    const last = recorded[recorded.length - 1];
    const loaded = { state, projectId: base.projectId, revision: last?.revision ?? base.revision };
    this.remember(this.claims, streamId, loaded);
    return loaded;
  }

  private remember<S>(
    cache: BoundedCache<string, Loaded<S>>,
    streamId: string,
    loaded: Loaded<S>,
  ): void {
    const current = cache.get(streamId);
    if (current === undefined || current.revision < loaded.revision) cache.set(streamId, loaded);
  }

  /**
   * Appends all streams (and `extra`, as given) atomically and updates the caches; returns the
   * log position.
   */
  private append(
    metadata: EventMetadataOf,
    streams: PendingAppend[],
    extra: StreamAppend[] = [],
  ): Promise<number> {
    return this.appendMany(
      streams.map((stream) => ({ ...stream, metadata })),
      extra,
    );
  }

  /** {@link append} of streams that each carry their own metadata (several projects or jobs). */
  private async appendMany(
    streams: (PendingAppend & { metadata: EventMetadataOf })[],
    extra: StreamAppend[] = [],
  ): Promise<number> {
    const appends: StreamAppend[] = streams.map((stream) => ({
      streamId: stream.streamId,
      expectedRevision: expectedAt(stream.revision),
      events: stream.events.map((event) => ({
        type: event.type,
        data: event.data,
        // Contact events carry personal data sealed under the contact's key, erased once it
        // is deleted; ContactDeleted itself stays readable for every projection.
        metadata:
          stream.kind === 'contact' && event.type !== 'ContactDeleted'
            ? { ...stream.metadata, subjectId: contactIdOf(stream.streamId) }
            : stream.metadata,
      })),
    }));
    const result = await this.store.append([...appends, ...extra]);
    for (const stream of streams) {
      const revision = result.revisions[stream.streamId];
      if (revision === undefined) continue;
      const projectId = stream.metadata.projectId;
      if (stream.kind === 'claim') {
        const before = this.claims.get(stream.streamId);
        if (stream.revision !== -1 && before?.revision !== stream.revision) {
          this.claims.delete(stream.streamId);
          continue;
        }
        const state = stream.events.reduce(evolveClaim, before?.state ?? { contactId: null });
        this.remember(this.claims, stream.streamId, { state, revision, projectId });
      } else {
        const before = this.contacts.get(stream.streamId);
        if (stream.revision !== -1 && before?.revision !== stream.revision) {
          this.contacts.delete(stream.streamId);
          continue;
        }
        const state = stream.events.reduce(evolve, before?.state ?? initialContact());
        this.remember(this.contacts, stream.streamId, { state, revision, projectId });
      }
    }
    return result.position;
  }
}

/** Contact id of a contact stream id (`contact-<id>`). */
const contactIdOf = (streamId: string): string => streamId.slice(streamId.indexOf('-') + 1);

/** Metadata of the events of one command. */
interface EventMetadataOf extends EventMetadata {
  projectId: string;
  correlationId: string;
}

/** What an upsert appends (nothing when the contact does not change) and its result. */
interface UpsertPlan {
  contactId: string;
  email: string;
  metadata: EventMetadataOf;
  streams: PendingAppend[];
  result(position: number): UpsertRecipientResult;
}

/** One stream of a pending append with the revision its events were decided on. */
type PendingAppend =
  | { kind: 'contact'; streamId: string; revision: number; events: ContactEvent[] }
  | { kind: 'claim'; streamId: string; revision: number; events: ClaimEvent[] };
