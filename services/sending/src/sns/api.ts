/**
 * `POST /webhooks/sns` (public; issue "Bounces and complaints"): Amazon SES bounce, complaint
 * and delivery notifications through an SNS HTTP(S) subscription. Every message is verified
 * first (see SnsVerifier): a malformed one answers 400, an unverified one 403, and nothing is
 * recorded. A SubscriptionConfirmation is confirmed by fetching its SubscribeURL (trusted by the
 * same pattern). A notification about an email of Stamp's (found by its Message-ID) records a
 * hard bounce or a complaint on it, as a report to the return path would; anything else is
 * acknowledged with 200 and ignored.
 */
import { ApiError, parse, requestIdOf } from '@stamp/http-kit';
import type { EventStore, Logger, ViewStore } from '@stamp/platform';
import express, { Router } from 'express';

import { recordReport } from '../inbound/record.ts';
import { EMAILS, type EmailDocument } from '../views.ts';
import { readSesNotification } from './notifications.ts';
import { snsMessage, SnsRefused, type SnsVerifier } from './verify.ts';

/** Dependencies of {@link snsRouter}. */
export interface SnsRouterDeps {
  store: EventStore;
  views: ViewStore;
  logger: Logger;
  verifier: SnsVerifier;
}

/** The SNS receiver (see the module comment). */
export function snsRouter(deps: SnsRouterDeps): Router {
  const router = Router();
  // SNS posts JSON as text/plain; 256 KiB is its largest message.
  const body = express.text({ type: () => true, limit: '300kb' });

  router.post('/webhooks/sns', body, async (req, res) => {
    let json: unknown;
    try {
      json = JSON.parse(typeof req.body === 'string' ? req.body : '');
    } catch {
      throw new ApiError(400, 'BAD_REQUEST', 'The body is not an SNS message (JSON expected)');
    }
    const message = parse(snsMessage, json);
    try {
      await deps.verifier.verify(message);
    } catch (error) {
      if (!(error instanceof SnsRefused)) throw error;
      throw new ApiError(403, 'FORBIDDEN', `The SNS message is not verified: ${error.message}`);
    }

    if (message.Type === 'SubscriptionConfirmation') {
      const url = message.SubscribeURL ?? '';
      if (!deps.verifier.trusts(url)) {
        throw new ApiError(403, 'FORBIDDEN', 'The SubscribeURL is not a trusted SNS URL');
      }
      const confirmed = await fetch(url, {
        redirect: 'error',
        signal: AbortSignal.timeout(10_000),
      });
      if (!confirmed.ok) {
        throw new ApiError(
          502,
          'BAD_GATEWAY',
          `SNS refused the confirmation (${confirmed.status})`,
        );
      }
      deps.logger.info({ topicArn: message.TopicArn }, 'SNS subscription confirmed');
      res.json({ success: true, confirmed: true });
      return;
    }
    if (message.Type === 'UnsubscribeConfirmation') {
      res.json({ success: true, recorded: false });
      return;
    }

    const notification = readSesNotification(message.Message);
    const email =
      notification === null
        ? null
        : await deps.views.collection<EmailDocument>(EMAILS).findOne({
            messageId: { $in: [`<${notification.messageId}>`, notification.messageId] },
          });
    if (notification === null || email === null) {
      res.json({ success: true, recorded: false });
      return;
    }
    await recordReport(deps, email._id, notification.report, 'sns', requestIdOf(res));
    res.json({ success: true, recorded: true, emailId: email._id });
  });
  return router;
}
