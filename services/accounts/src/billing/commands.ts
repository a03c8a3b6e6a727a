/**
 * Commands of a project's billing on its stream: the caps set by hand, and the payment
 * provider's reports, each recorded once (the ids of its events are derived from the provider's
 * event id, so a redelivered notification is refused by the event store as a duplicate).
 */
import type { BillingLimits } from '@stamp/contracts';
import {
  derivedId,
  DuplicateEventError,
  type EventStore,
  expectedAt,
  streamCommands,
  type ViewStore,
  withRevisionRetry,
} from '@stamp/platform';

import { projectModel, projectStreamId, type ProjectState } from '../projects/events.ts';
import { applySubscription, setLimits } from './decide.ts';
import { projectOfCustomer } from './projection.ts';
import type { StripeNotice } from './stripe.ts';

/** What recording a notification did. */
export interface NoticeOutcome {
  /**
   * `recorded`: its events were appended; `duplicate`: the same provider event was recorded
   * before; `ignored`: it changes nothing of a known project (unknown project or customer, an
   * older report, another subscription ending).
   */
  outcome: 'recorded' | 'duplicate' | 'ignored';
  /** The project it was recorded on, when recorded. */
  projectId?: string;
  /** Log position of the append (0 when nothing was appended). */
  position: number;
}

/** The billing commands (see the module comment). */
export interface BillingCommands {
  /** The project folded from its stream (authoritative) and its last revision (-1: none). */
  load(projectId: string): Promise<{ state: ProjectState; revision: number }>;
  /**
   * Sets caps by hand (`setLimits`); answers the log position of the append (0: no change).
   * @throws ApiError 404 RESOURCE_NOT_FOUND for an unknown or deleted project.
   */
  setLimits(
    projectId: string,
    change: Partial<BillingLimits>,
    correlationId: string,
  ): Promise<{ state: ProjectState; position: number }>;
  /** Records a payment provider's notification about a subscription (see {@link NoticeOutcome}). */
  recordNotice(
    notice: StripeNotice,
    plans: Readonly<Record<string, BillingLimits>>,
    correlationId: string,
  ): Promise<NoticeOutcome>;
}

/** A project id as Stamp makes them (a UUID): anything else names no project. */
const PROJECT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The billing commands over the event store (and the customers view, to find projects). */
export function billingCommands(deps: { store: EventStore; views: ViewStore }): BillingCommands {
  const projects = streamCommands(deps.store, projectModel);
  return {
    load: (projectId) => projects.load(projectId),
    async setLimits(projectId, change, correlationId) {
      const result = await projects.execute(projectId, { projectId, correlationId }, ({ state }) =>
        setLimits(state, change, new Date()),
      );
      return { state: result.state, position: result.position };
    },
    async recordNotice(notice, plans, correlationId) {
      const named = notice.projectId !== null && PROJECT_ID.test(notice.projectId);
      const projectId = named
        ? notice.projectId
        : await projectOfCustomer(deps.views, notice.report.customerId);
      if (projectId === null) return { outcome: 'ignored', position: 0 };
      return withRevisionRetry(async (): Promise<NoticeOutcome> => {
        const { state, revision } = await projects.load(projectId);
        if (state.billing.subscription?.eventId === notice.report.eventId) {
          return { outcome: 'duplicate', position: 0 };
        }
        const events = applySubscription(state, notice.report, plans, new Date());
        if (events.length === 0) return { outcome: 'ignored', position: 0 };
        const metadata = { projectId, correlationId };
        try {
          const { position } = await deps.store.append([
            {
              streamId: projectStreamId(projectId),
              expectedRevision: expectedAt(revision),
              events: events.map((event, index) => ({
                id: derivedId(`stripe-event:${notice.report.eventId}:${index}`),
                type: event.type,
                data: event.data,
                metadata,
              })),
            },
          ]);
          return { outcome: 'recorded', projectId, position };
        } catch (error) {
          if (error instanceof DuplicateEventError) return { outcome: 'duplicate', position: 0 };
          throw error;
        }
      });
    },
  };
}
