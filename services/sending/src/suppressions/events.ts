/**
 * The suppression list of a project (API reference, "Suppressions"): addresses Stamp never hands
 * to SMTP again, after a hard bounce, a complaint, or by hand. One stream per project and address,
 * `suppression-<derived id>`, where SuppressionAdded and SuppressionRemoved alternate.
 */
import { derivedId, type StreamModel } from '@stamp/platform';

/** Why an address is suppressed. */
export type SuppressionReason = 'HARD_BOUNCE' | 'COMPLAINT' | 'MANUAL';

/** The suppression reasons. */
export const SUPPRESSION_REASONS = ['HARD_BOUNCE', 'COMPLAINT', 'MANUAL'] as const;

/** Stream category of suppressions. */
export const SUPPRESSION_CATEGORY = 'suppression';

/** The events of a suppression stream. */
export type SuppressionEvent =
  | {
      type: 'SuppressionAdded';
      data: {
        /** The address, lower-cased. */
        email: string;
        reason: SuppressionReason;
        /** The email whose bounce or complaint caused it. */
        emailId?: string;
        /** The contact the address belonged to then. */
        contactId?: string;
      };
    }
  | { type: 'SuppressionRemoved'; data: { email: string } };

/** The key of `email` in `projectId`'s list (the id of its stream and view document). */
export const suppressionId = (projectId: string, email: string): string =>
  derivedId(`${projectId}:suppression:${email.trim().toLowerCase()}`);

/** Stream id of a suppression. */
export const suppressionStream = (id: string): string => `${SUPPRESSION_CATEGORY}-${id}`;

/** State of a suppression stream: whether the address is suppressed now. */
export interface SuppressionState {
  suppressed: boolean;
}

/** The suppression streams (see `streamCommands`). */
export const suppressionModel: StreamModel<SuppressionState, SuppressionEvent> = {
  stream: suppressionStream,
  initial: () => ({ suppressed: false }),
  evolve: (_state, event) => ({ suppressed: event.type === 'SuppressionAdded' }),
  types: new Set(['SuppressionAdded', 'SuppressionRemoved']),
};

/** The data of SuppressionAdded. */
export type SuppressionAddedData = Extract<SuppressionEvent, { type: 'SuppressionAdded' }>['data'];

/** The events that suppress an address: none when it already is (the first reason stays). Pure. */
export function decideSuppress(
  state: SuppressionState,
  added: SuppressionAddedData,
): SuppressionEvent[] {
  return state.suppressed ? [] : [{ type: 'SuppressionAdded', data: added }];
}

/** The events that lift a suppression: none when there is none. Pure. */
export function decideRemove(state: SuppressionState, email: string): SuppressionEvent[] {
  return state.suppressed ? [{ type: 'SuppressionRemoved', data: { email } }] : [];
}
