/**
 * Command handling of campaigns: read the stream, decide, append with the expected revision
 * (retrying a few times on a concurrent write), and return the log position of the append for
 * read-your-writes.
 */
import { decisionAppend, type EventStore, withRevisionRetry } from '@stamp/platform';

import {
  CAMPAIGN_EVENT_TYPES,
  type CampaignEvent,
  type CampaignState,
  campaignStream,
  evolve,
  initialCampaign,
} from './events.ts';

/** A campaign stream read back. */
export interface LoadedCampaign {
  state: CampaignState;
  /** Revision of the stream's last event; -1 when it has none. */
  revision: number;
}

/** Result of a command: the state after it and the log position (0: nothing appended). */
export interface CommandResult {
  state: CampaignState;
  events: CampaignEvent[];
  position: number;
}

/** The campaign command handler. */
export interface CampaignCommands {
  /** Reads a campaign stream. */
  load(campaignId: string): Promise<LoadedCampaign>;
  /**
   * Decides on the campaign's current stream and appends the events (with `projectId` and the
   * correlation id in their metadata), retried on a concurrent write.
   * @throws whatever `decide` throws (ApiError for rule violations).
   */
  execute(
    campaignId: string,
    projectId: string,
    correlationId: string,
    decide: (loaded: LoadedCampaign) => CampaignEvent[],
  ): Promise<CommandResult>;
}

/** Folds recorded campaign events into a state. */
export function foldCampaign(
  events: readonly { type: string; data: unknown }[],
  state: CampaignState = initialCampaign(),
): CampaignState {
  let folded = state;
  for (const event of events) {
    if (CAMPAIGN_EVENT_TYPES.has(event.type)) folded = evolve(folded, event as CampaignEvent);
  }
  return folded;
}

/** Builds the campaign command handler over the event store. */
export function createCampaignCommands(store: EventStore): CampaignCommands {
  async function load(campaignId: string): Promise<LoadedCampaign> {
    const events = await store.readStream(campaignStream(campaignId));
    return { state: foldCampaign(events), revision: events[events.length - 1]?.revision ?? -1 };
  }

  return {
    load,
    execute(campaignId, projectId, correlationId, decide) {
      return withRevisionRetry(async () => {
        const loaded = await load(campaignId);
        const events = decide(loaded);
        const state = foldCampaign(events, loaded.state);
        if (events.length === 0) return { state, events, position: 0 };
        const { position } = await store.append([
          decisionAppend(campaignStream(campaignId), loaded.revision, events, {
            projectId,
            correlationId,
          }),
        ]);
        return { state, events, position };
      });
    },
  };
}
