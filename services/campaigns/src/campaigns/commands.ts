/**
 * Command handling of campaigns: read the stream, decide, append with the expected revision
 * (retrying a few times on a concurrent write), and return the log position of the append for
 * read-your-writes (the platform's `streamCommands` over campaign streams).
 */
import {
  type DecidedCommand,
  type EventStore,
  foldStream,
  type LoadedStream,
  type StreamModel,
  streamCommands,
} from '@stamp/platform';

import {
  CAMPAIGN_EVENT_TYPES,
  type CampaignEvent,
  type CampaignState,
  campaignStream,
  evolve,
  initialCampaign,
} from './events.ts';

/** A campaign stream read back: its state and the revision of its last event (-1: none). */
export type LoadedCampaign = LoadedStream<CampaignState>;

/** Result of a command: the state after it and the log position (0: nothing appended). */
export type CommandResult = DecidedCommand<CampaignState, CampaignEvent>;

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

/** How campaign streams fold. */
const campaignModel: StreamModel<CampaignState, CampaignEvent> = {
  stream: campaignStream,
  initial: initialCampaign,
  evolve,
  types: CAMPAIGN_EVENT_TYPES,
};

/** Folds recorded campaign events into a state. */
export function foldCampaign(
  events: readonly { type: string; data: unknown }[],
  state: CampaignState = initialCampaign(),
): CampaignState {
  return foldStream(campaignModel, events, state);
}

/** Builds the campaign command handler over the event store. */
export function createCampaignCommands(store: EventStore): CampaignCommands {
  const commands = streamCommands(store, campaignModel);
  return {
    load: (campaignId) => commands.load(campaignId),
    execute: (campaignId, projectId, correlationId, decide) =>
      commands.execute(campaignId, { projectId, correlationId }, decide),
  };
}
