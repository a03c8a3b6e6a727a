/**
 * Public subscription routes (no API key; mounted by the gateway before authentication through
 * `ServiceModule.publicRouter`). The signed token in the path designates the contact:
 * - GET /unsubscribe/:token, GET /subscribe/:token: a page asking to confirm, with a POST button;
 * - POST /unsubscribe/:token (RFC 8058 one-click, also a `List-Unsubscribe=One-Click` form post
 *   with no cookies), POST /subscribe/:token: sets `subscribed` through the contact commands
 *   (ContactUnsubscribed / ContactSubscribed only on a flip) and answers 200 with a confirmation;
 * - GET /manage/:token: the current state with the matching button.
 * An invalid or forged token, or a deleted contact, answers a 404 HTML page.
 */
import type { AwaitViews } from '@stamp/contracts';
import { ApiError, requestIdOf } from '@stamp/http-kit';
import type { Logger, Secrets, ViewStore } from '@stamp/platform';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  Router,
} from 'express';

import type { ContactCommands } from '../contacts/commands.ts';
import { type ContactView, contactsView } from '../contacts/projection.ts';
import {
  notFoundPage,
  type PageContent,
  renderPage,
  subscribeQuestion,
  subscriptionState,
  unsubscribeQuestion,
} from './pages.ts';
import { readSubscriptionToken, type SubscriptionTarget } from '@stamp/contracts';

/** Dependencies of {@link subscriptionRouter}. */
export interface SubscriptionRouterDeps {
  commands: ContactCommands;
  views: ViewStore;
  secrets: Secrets;
  awaitViews: AwaitViews;
  logger: Logger;
}

/** A contact the page cannot show: 404 page. */
class LinkNotFound extends Error {}

/** The 4xx status of an ApiError or a body-parser error (413, 415, 400), else null. */
function clientStatus(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : null;
}

const tokenOf = (req: Request): string => String(req.params.token);

/** Sends an HTML page that is never cached, indexed or leaks its URL as a referrer. */
function sendPage(res: Response, status: number, content: PageContent, token: string): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Robots-Tag': 'noindex',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy':
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    })
    .send(renderPage(content, token));
}

/** The subscription router (see the module comment). */
export function subscriptionRouter(deps: SubscriptionRouterDeps): Router {
  const router = Router();
  const contacts = contactsView(deps.views);
  // Form posts carry `List-Unsubscribe=One-Click` (RFC 8058); the body is parsed, not required.
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  function target(req: Request): SubscriptionTarget {
    const found = readSubscriptionToken(deps.secrets, tokenOf(req));
    if (found === null) throw new LinkNotFound();
    return found;
  }

  async function contactOf(who: SubscriptionTarget): Promise<ContactView> {
    const view = await contacts.findOne({ _id: who.contactId, projectId: who.projectId });
    if (view === null) throw new LinkNotFound();
    return view;
  }

  async function setSubscribed(req: Request, res: Response, subscribed: boolean): Promise<void> {
    const who = target(req);
    await contactOf(who);
    const result = await deps.commands.updateContact(
      who.projectId,
      who.contactId,
      { subscribed },
      requestIdOf(res),
    );
    await deps.awaitViews(result.position);
    const view = await contactOf(who);
    sendPage(res, 200, subscriptionState(view.email, view.subscribed), tokenOf(req));
  }

  const page =
    (content: (view: ContactView) => PageContent): RequestHandler =>
    async (req, res) => {
      const view = await contactOf(target(req));
      sendPage(res, 200, content(view), tokenOf(req));
    };

  router.get(
    '/unsubscribe/:token',
    page((view) => unsubscribeQuestion(view.email)),
  );
  router.get(
    '/subscribe/:token',
    page((view) => subscribeQuestion(view.email)),
  );
  router.get(
    '/manage/:token',
    page((view) => subscriptionState(view.email, view.subscribed)),
  );
  router.post('/unsubscribe/:token', form, (req, res) => setSubscribed(req, res, false));
  router.post('/subscribe/:token', form, (req, res) => setSubscribed(req, res, true));

  // Errors of these routes answer HTML pages (without buttons), never the JSON envelope.
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const token = '';
    // A token that is not even URL-decodable (URIError from the router) is an invalid link too.
    if (
      error instanceof LinkNotFound ||
      error instanceof URIError ||
      (error instanceof ApiError && error.status === 404)
    ) {
      sendPage(res, 404, notFoundPage, token);
      return;
    }
    const status = clientStatus(error);
    if (status !== null) {
      const message = error instanceof ApiError ? error.message : 'The request was not understood.';
      sendPage(res, status, { title: 'Please try again', message }, token);
      return;
    }
    deps.logger.error({ err: error, requestId: requestIdOf(res) }, 'subscription page failed');
    sendPage(
      res,
      500,
      { title: 'Something went wrong', message: 'Please try again later.' },
      token,
    );
  });
  return router;
}
