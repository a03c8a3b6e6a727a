/**
 * Public tracking routes (no API key; API reference, "Open and click tracking"):
 * - GET /t/o/:token: the open pixel, a 1×1 transparent GIF, never cached; records EmailOpened;
 * - GET /t/c/:token: 302 to the link's original URL; records EmailClicked.
 * A malformed or forged token answers 404 and redirects nowhere. A valid token of an email whose
 * recipient was deleted still answers (the pixel, the redirect) but records nothing. Recording
 * never holds the answer back on failure: a person following a link is always sent on.
 */
import type {
  AutomatedReason,
  EmailClickedEventData,
  EmailSentEventData,
  EngagementEventData,
} from '@stamp/contracts';
import { requestIdOf } from '@stamp/http-kit';
import {
  decisionAppend,
  type EventStore,
  type Logger,
  type RecordedEvent,
  type Secrets,
  type ViewStore,
  withRevisionRetry,
} from '@stamp/platform';
import { type Request, type Response, Router } from 'express';

import { type EmailEvent, emailStream } from '../delivery/events.ts';
import { EMAILS, type EmailDocument } from '../views.ts';
import { clickAutomation, openAutomation } from './automated.ts';
import { readClickToken, readOpenToken } from './links.ts';

/** Dependencies of {@link trackingRouter}. */
export interface TrackingRouterDeps {
  store: EventStore;
  views: ViewStore;
  secrets: Secrets;
  logger: Logger;
  /** The clock, ms since the epoch (tests move it). */
  now?: () => number;
}

/** A transparent 1×1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** Longest User-Agent kept in an event, in characters. */
const USER_AGENT_CHARS = 512;

/** Events read before the one the view reflects: enough to see the clicks of the last seconds. */
const RECENT_EVENTS = 16;

const NO_STORE = {
  'Cache-Control': 'no-store, max-age=0',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex',
  'X-Content-Type-Options': 'nosniff',
};

function notFound(res: Response): void {
  res.status(404).set(NO_STORE).type('text/plain').send('Not found');
}

const userAgentOf = (req: Request): string | undefined => {
  const agent = req.get('user-agent');
  return agent === undefined || agent === '' ? undefined : agent.slice(0, USER_AGENT_CHARS);
};

/** The tracking router (see the module comment). */
export function trackingRouter(deps: TrackingRouterDeps): Router {
  const router = Router();
  const now = deps.now ?? Date.now;
  const emails = deps.views.collection<EmailDocument>(EMAILS);

  /**
   * Appends the event `decide` makes from the email's view document and the stream's last
   * events (from a few before the revision the document reflects: never the EmailQueued, which
   * holds the whole message, nor a long history of opens), at the revision read (retried when
   * another request appended first).
   */
  async function record(
    emailId: string,
    res: Response,
    decide: (email: EmailDocument, events: readonly RecordedEvent[]) => EmailEvent,
  ): Promise<void> {
    const email = await emails.findOne({ _id: emailId });
    if (email === null) return;
    await withRevisionRetry(async () => {
      const from = Math.max(1, email.revision - RECENT_EVENTS);
      const events = await deps.store.readStream(emailStream(emailId), from);
      if (events.some((event) => event.erased === true)) return;
      const revision = events.at(-1)?.revision ?? 0;
      await deps.store.append([
        decisionAppend(emailStream(emailId), revision, [decide(email, events)], {
          projectId: email.projectId,
          correlationId: requestIdOf(res),
          subjectId: email.contactId,
        }),
      ]);
    });
  }

  function engagement(
    email: EmailDocument,
    req: Request,
    reason: AutomatedReason | null,
  ): EngagementEventData {
    const userAgent = userAgentOf(req);
    return {
      emailId: email._id,
      subject: email.subject,
      ...(email.templateId === null ? {} : { templateId: email.templateId }),
      ...(email.campaignId === null ? {} : { campaignId: email.campaignId }),
      ...(email.workflowId === undefined || email.workflowId === null
        ? {}
        : { workflowId: email.workflowId }),
      ...(userAgent === undefined ? {} : { userAgent }),
      automated: reason !== null,
      ...(reason === null ? {} : { automatedReason: reason }),
    };
  }

  /** Records in the background of the answer: a failure is logged, never shown. */
  async function recordSafely(
    kind: 'open' | 'click',
    emailId: string,
    req: Request,
    res: Response,
    decide: (email: EmailDocument, events: readonly RecordedEvent[]) => EmailEvent,
  ): Promise<void> {
    try {
      await record(emailId, res, decide);
    } catch (error) {
      deps.logger.error({ err: error, emailId, kind }, 'could not record an email engagement');
    }
  }

  router.get('/t/o/:token', async (req, res) => {
    const emailId = readOpenToken(deps.secrets, req.params.token);
    if (emailId === null) {
      notFound(res);
      return;
    }
    const request = { method: req.method, ...optionalAgent(req) };
    await recordSafely('open', emailId, req, res, (email) => ({
      type: 'EmailOpened',
      data: {
        ...engagement(email, req, openAutomation(request)),
        openedAt: new Date(now()).toISOString(),
      },
    }));
    res.status(200).set(NO_STORE).type('image/gif').send(PIXEL);
  });

  router.get('/t/c/:token', async (req, res) => {
    const link = readClickToken(deps.secrets, req.params.token);
    if (link === null) {
      notFound(res);
      return;
    }
    const request = { method: req.method, ...optionalAgent(req) };
    await recordSafely('click', link.emailId, req, res, (email, events) => {
      const at = now();
      const sent = events.find((event) => event.type === 'EmailSent');
      const sentText = sent === undefined ? email.sentAt : (sent.data as EmailSentEventData).sentAt;
      const sentAt = sentText === null ? null : Date.parse(sentText);
      const earlier = events
        .filter((event) => event.type === 'EmailClicked')
        .map((event) => {
          const data = event.data as EmailClickedEventData;
          return { url: data.url, at: Date.parse(data.clickedAt) };
        });
      const reason = clickAutomation(request, { url: link.url, at, sentAt }, earlier);
      return {
        type: 'EmailClicked',
        data: {
          ...engagement(email, req, reason),
          url: link.url,
          clickedAt: new Date(at).toISOString(),
        },
      };
    });
    res.status(302).set(NO_STORE).location(link.url).end();
  });

  // A token that is not even URL-decodable (URIError from the router) is an unknown link too.
  router.use(
    '/t',
    (error: unknown, _req: Request, res: Response, next: (error: unknown) => void) => {
      if (error instanceof URIError && !res.headersSent) {
        notFound(res);
        return;
      }
      next(error);
    },
  );
  return router;
}

const optionalAgent = (req: Request): { userAgent?: string } => {
  const userAgent = userAgentOf(req);
  return userAgent === undefined ? {} : { userAgent };
};
