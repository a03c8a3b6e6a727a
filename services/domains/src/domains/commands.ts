/**
 * Command handlers of sender domains: read the streams, decide, append with expected revisions
 * (retrying a few times on a concurrent write), and return the log position of the append for
 * read-your-writes.
 */
import {
  type EventStore,
  type NewEvent,
  type Resolver,
  type Secrets,
  withRevisionRetry,
  newId,
} from '@stamp/platform';

import {
  type RecordsConfig,
  decideAdd,
  decideCheck,
  decideRemove,
  requireDomain,
} from './decide.ts';
import { checkRecords } from './dns-check.ts';
import {
  type DomainEvent,
  type DomainState,
  type KnownDomain,
  claimStream,
  domainStream,
  evolve,
  fold,
  isClaimed,
} from './events.ts';
import { DKIM_PURPOSE, generateDkimKeys, newSelector } from './keys.ts';

/** Dependencies of {@link createDomainCommands}. */
export interface DomainCommandDeps {
  store: EventStore;
  resolver: Resolver;
  config: RecordsConfig;
  /** Seals the generated DKIM private keys (purpose `dkim`) before they are recorded. */
  secrets: Secrets;
  /** Clock (default `() => new Date()`). */
  now?: () => Date;
}

/** Result of a command: the domain's state after it and the log position (0: nothing appended). */
export interface CommandResult {
  state: KnownDomain;
  position: number;
}

const withMeta = (
  events: readonly { type: string; data: unknown }[],
  projectId: string,
  correlationId: string,
): NewEvent[] =>
  events.map((event) => ({
    type: event.type,
    data: event.data,
    metadata: { projectId, correlationId },
  }));

function applyAll(state: DomainState, events: readonly DomainEvent[]): KnownDomain {
  let next = state;
  for (const event of events) next = evolve(next, event);
  if (next.kind === 'absent') throw new Error('domain state is absent after its events');
  return next;
}

/** The domain commands. */
export interface DomainCommands {
  /**
   * Adds a normalised domain name to a project with a new RSA-2048 key pair; the private key
   * is recorded sealed with the platform secret.
   * @throws ApiError 409 CONFLICT when the project already has it.
   */
  add(projectId: string, domain: string, correlationId: string): Promise<CommandResult>;
  /**
   * Looks the records up in DNS and records the outcome; `always` false appends only when a
   * status changed (background re-check).
   * @throws ApiError 404 DOMAIN_NOT_FOUND.
   */
  verify(
    projectId: string,
    id: string,
    correlationId: string,
    always: boolean,
  ): Promise<CommandResult>;
  /**
   * Removes a domain and frees its name in the project.
   * @throws ApiError 404 DOMAIN_NOT_FOUND.
   */
  remove(projectId: string, id: string, correlationId: string): Promise<CommandResult>;
}

/** Builds the domain command handlers. */
export function createDomainCommands(deps: DomainCommandDeps): DomainCommands {
  const { store, config } = deps;
  const clock = deps.now ?? (() => new Date());

  async function load(id: string): Promise<{ state: DomainState; revision: number }> {
    const events = await store.readStream(domainStream(id));
    return { state: fold(events), revision: events[events.length - 1]?.revision ?? -1 };
  }

  return {
    async add(projectId, domain, correlationId) {
      const domainId = newId();
      const selector = newSelector();
      const claimId = claimStream(projectId, domain);
      let keys: { publicKey: string; privateKey: string } | undefined;
      return withRevisionRetry(async () => {
        const claimEvents = await store.readStream(claimId);
        const claimed = isClaimed(claimEvents);
        // The key pair (tens of ms of CPU) is made only for a name that is free; the claim's
        // expected revision still guards the race.
        if (!claimed && keys === undefined) {
          const generated = await generateDkimKeys();
          // Only the sealed key enters the event log and the views (never the plaintext PEM).
          keys = {
            publicKey: generated.publicKey,
            privateKey: deps.secrets.seal(DKIM_PURPOSE, generated.privateKey),
          };
        }
        const decided = decideAdd(claimed, {
          domainId,
          projectId,
          domain,
          selector,
          publicKey: keys?.publicKey ?? '',
          privateKey: keys?.privateKey ?? '',
          now: clock().toISOString(),
          config,
        });
        const { position } = await store.append([
          {
            streamId: claimId,
            expectedRevision: claimEvents[claimEvents.length - 1]?.revision ?? 'no_stream',
            events: withMeta(decided.claim, projectId, correlationId),
          },
          {
            streamId: domainStream(domainId),
            expectedRevision: 'no_stream',
            events: withMeta(decided.domain, projectId, correlationId),
          },
        ]);
        return { state: applyAll({ kind: 'absent' }, decided.domain), position };
      });
    },

    async verify(projectId, id, correlationId, always) {
      const first = await load(id);
      const domain = requireDomain(first.state, projectId);
      const outcome = await checkRecords(deps.resolver, domain.records, {
        publicKey: domain.publicKey,
        spfInclude: config.spfInclude,
        mxHost: config.mxHost,
      });
      let loaded: { state: DomainState; revision: number } | undefined = first;
      return withRevisionRetry(async () => {
        const { state, revision } = loaded ?? (await load(id));
        loaded = undefined;
        const events = decideCheck(state, {
          projectId,
          outcome,
          now: clock().toISOString(),
          always,
        });
        if (events.length === 0) return { state: applyAll(state, []), position: 0 };
        const { position } = await store.append([
          {
            streamId: domainStream(id),
            expectedRevision: revision,
            events: withMeta(events, projectId, correlationId),
          },
        ]);
        return { state: applyAll(state, events), position };
      });
    },

    async remove(projectId, id, correlationId) {
      return withRevisionRetry(async () => {
        const { state, revision } = await load(id);
        const decided = decideRemove(state, { projectId, now: clock().toISOString() });
        const domain = requireDomain(state, projectId);
        const claimId = claimStream(projectId, domain.domain);
        const claimEvents = await store.readStream(claimId);
        const { position } = await store.append([
          {
            streamId: claimId,
            expectedRevision: claimEvents[claimEvents.length - 1]?.revision ?? 'no_stream',
            events: withMeta(decided.claim, projectId, correlationId),
          },
          {
            streamId: domainStream(id),
            expectedRevision: revision,
            events: withMeta(decided.domain, projectId, correlationId),
          },
        ]);
        return { state: applyAll(state, decided.domain), position };
      });
    },
  };
}
