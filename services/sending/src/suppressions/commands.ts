import { type EventStore, streamCommands } from '@stamp/platform';

import {
  decideRemove,
  decideSuppress,
  type SuppressionAddedData,
  suppressionId,
  suppressionModel,
} from './events.ts';

/** Who asks for a suppression change: the project, and the request or event that causes it. */
export interface SuppressionContext {
  projectId: string;
  correlationId: string;
  causationId?: string;
}

/**
 * The suppression commands (API reference, "Suppressions"): each reads the address's stream,
 * decides, and appends at the revision read. An address is kept lower-cased. When a contact is
 * named, the event is that contact's personal data (erased with it).
 */
export function suppressionCommands(store: EventStore) {
  const streams = streamCommands(store, suppressionModel);
  return {
    /**
     * Suppresses `added.email` unless it already is (the first reason stays).
     * @returns whether it changed, and the log position of the append (0: none).
     */
    async suppress(
      context: SuppressionContext,
      added: SuppressionAddedData,
    ): Promise<{ changed: boolean; position: number }> {
      const email = added.email.trim().toLowerCase();
      const result = await streams.execute(
        suppressionId(context.projectId, email),
        {
          projectId: context.projectId,
          correlationId: context.correlationId,
          ...(context.causationId === undefined ? {} : { causationId: context.causationId }),
          ...(added.contactId === undefined ? {} : { subjectId: added.contactId }),
        },
        (loaded) => decideSuppress(loaded.state, { ...added, email }),
      );
      return { changed: result.events.length > 0, position: result.position };
    },

    /**
     * Lifts the suppression of `email`.
     * @returns whether there was one, and the log position of the append (0: none).
     */
    async remove(
      context: SuppressionContext,
      email: string,
    ): Promise<{ changed: boolean; position: number }> {
      const address = email.trim().toLowerCase();
      const result = await streams.execute(
        suppressionId(context.projectId, address),
        { projectId: context.projectId, correlationId: context.correlationId },
        (loaded) => decideRemove(loaded.state, address),
      );
      return { changed: result.events.length > 0, position: result.position };
    },
  };
}

/** The suppression commands of a store. */
export type SuppressionCommands = ReturnType<typeof suppressionCommands>;
