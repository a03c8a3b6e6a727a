/**
 * Event tracking routes (spec part 4, POST /v1/track; API reference, "POST /v1/track"):
 * `POST /v1/track` and its dashboard alias `POST /events/track`, either key.
 */
import type { AwaitViews } from '@stamp/contracts';
import { caller, parse } from '@stamp/http-kit';
import { newId } from '@stamp/platform';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';

import type { ContactCommands } from '../contacts/commands.ts';
import { dataSchema } from '../contacts/data.ts';
import { assertTrackableName, eventData } from './decide.ts';
import { type EventTracked, trackedEventStreamId } from './events.ts';

/** Dependencies of {@link trackRouter}. */
export interface TrackRouterDeps {
  commands: ContactCommands;
  awaitViews: AwaitViews;
}

/** Body of POST /v1/track and POST /events/track. */
export const trackBody = z.object({
  event: z.string().min(1).max(255),
  email: z.string(),
  subscribed: z.boolean().optional(),
  data: dataSchema.optional(),
});

/**
 * The tracking router: upserts the contact (a new one is subscribed unless `subscribed` says
 * otherwise; data stored by the rules of part 2) and appends EventTracked to
 * `trackedEvent-<eventId>` in the same atomic append, waits for the views, and answers 200
 * `{success: true, data: {contact, event, timestamp}}`.
 * Errors: 422 VALIDATION_ERROR for a bad body or email, or a reserved event name (field `event`,
 * code `reserved_event`).
 */
export function trackRouter(deps: TrackRouterDeps): Router {
  const router = Router();
  const handler = async (req: Request, res: Response): Promise<void> => {
    const who = caller(res);
    const body = parse(trackBody, req.body);
    assertTrackableName(body.event);
    const eventId = newId();
    const metadata = { projectId: who.projectId, correlationId: who.requestId };
    // The contact's changes and the tracked event are one atomic append.
    const contact = await deps.commands.upsertRecipient(
      {
        projectId: who.projectId,
        email: body.email,
        // A public key lives in browsers: it may unsubscribe, but never resubscribe a contact.
        subscribed:
          who.keyKind === 'public' && body.subscribed === true ? undefined : body.subscribed,
        defaultSubscribed: true,
        data: body.data,
        correlationId: who.requestId,
      },
      ({ contactId, email }) => {
        const event: EventTracked = {
          type: 'EventTracked',
          data: { name: body.event, contactId, email, data: eventData(body.data) },
        };
        return [
          {
            streamId: trackedEventStreamId(eventId),
            expectedRevision: 'no_stream',
            events: [
              {
                id: eventId,
                type: event.type,
                data: event.data,
                metadata: { ...metadata, subjectId: contactId },
              },
            ],
          },
        ];
      },
    );
    const { position } = contact;
    await deps.awaitViews(position);
    res.json({
      success: true,
      data: { contact: contact.contactId, event: eventId, timestamp: new Date().toISOString() },
    });
  };
  router.post('/v1/track', handler);
  router.post('/events/track', handler);
  return router;
}
