import {
  ACCOUNT_EMAIL_CATEGORY,
  type CampaignEmailsApi,
  type WorkflowEmailsApi,
} from '@stamp/contracts';
import { consumeProjectResets, deleteProjectDocuments, type ServiceModule } from '@stamp/http-kit';
import {
  type Consumer,
  type DeliveryReceipt,
  type Mailer,
  OutboxMailer,
  streamCategory,
  TIMERS_COLLECTION,
  startTimerScheduler,
  type TimerScheduler,
} from '@stamp/platform';
import { Router } from 'express';

import { DEFAULT_LIMITS, DEFAULT_RETRY, DEFAULT_SANDBOX_DOMAIN, type SendingDeps } from './deps.ts';
import { ACCOUNT_MAIL_GROUP, deliverAccountEmail, parseMailbox } from './account-mail/deliver.ts';
import { createBillingGuard } from './billing/guard.ts';
import {
  BILLING_TOPICS,
  BILLING_COUNTED_VIEW,
  BILLING_VIEWS,
  billingProjection,
  SENDING_BILLING_GROUP,
} from './billing/projection.ts';
import { queueCampaignEmails, sendCampaignTest } from './campaign/command.ts';
import { queueWorkflowEmail } from './workflow/command.ts';
import { deliveryRouter } from './delivery/api.ts';
import { forgetContactEmails, projectEmail } from './delivery/projection.ts';
import { handleDelivery } from './delivery/worker.ts';
import { sendRouter } from './send/api.ts';
import { send, type SendResult } from './send/command.ts';
import { assertProjectMaySend } from './send/project.ts';
import type { SendBody } from './send/schema.ts';
import { templatesRouter } from './templates/api.ts';
import { trackingRouter } from './tracking/api.ts';
import { trackingModes } from './tracking/modes.ts';
import { DEFAULT_SNS_CERT_URL_PATTERN } from './config.ts';
import { snsRouter } from './sns/api.ts';
import { SnsVerifier } from './sns/verify.ts';
import { suppressionsRouter } from './suppressions/api.ts';
import { suppressionCommands } from './suppressions/commands.ts';
import { suppressionId } from './suppressions/events.ts';
import { FEEDBACK_GROUP, suppressOnFeedback } from './suppressions/feedback.ts';
import { type InboundListener, startInboundListener } from './inbound/listener.ts';
import { inboundRouter } from './inbound/api.ts';
import { INBOUND_EMAILS, projectReceived } from './inbound/received.ts';
import {
  createSuppressionIndexes,
  projectSuppression,
  SUPPRESSIONS,
  type SuppressionDocument,
} from './suppressions/projection.ts';
import { assertSenderAllowed } from './templates/commands.ts';
import { imagesRouter, uploadsRouter } from './uploads/api.ts';
import { DEFAULT_UPLOAD_MAX_BYTES } from './uploads/settings.ts';
import { EMAILS, TEMPLATES } from './views.ts';

/** Consumer group of the templates, emails and timers views. */
const SENDING_PROJECTION_GROUP = 'sending-projection';
/** Consumer group wiping a reset project's templates, emails, inbound mail and images. */
const SENDING_RESET_GROUP = 'sending-project-reset';
import { projectTemplate } from './templates/projection.ts';

export type { SendingDeps, SendingLimits, RetryPolicy } from './deps.ts';
export { DEFAULT_SANDBOX_DOMAIN } from './deps.ts';
export { sendingEnv } from './config.ts';
export { uploadStoreOf, type UploadEnv } from './uploads/settings.ts';
export type { StoredObject, UploadStore } from './uploads/store.ts';
export type { UploadedImage } from './uploads/api.ts';
export type { TrackingMode } from '@stamp/contracts';
export { sendBody, type SendBody } from './send/schema.ts';
export { type SendResult } from './send/command.ts';
export { type SubscriptionLinks, subscriptionLinks } from './templates/render.ts';

/** The sending service's command API (used by workflows and campaigns). */
export interface SendingApi extends CampaignEmailsApi, WorkflowEmailsApi {
  /**
   * Sends like POST /v1/send with an already parsed body (see `sendBody`); returns the emails
   * and the log position of the last append.
   * @throws ApiError as POST /v1/send.
   */
  send(context: { projectId: string; requestId: string }, body: SendBody): Promise<SendResult>;
}

/** Emails of one delivery lane handled at once. */
const DELIVERY_CONCURRENCY = 256;

/**
 * The sending service (spec part 4 "POST /v1/send", "Templates"; architecture "Delivery"):
 * routes POST /v1/send, /templates…, GET /outbox…, GET /emails/:id, /suppressions…, /inbound…,
 * POST /uploads/image (when `uploads` is given), and the
 * public routes /t/o/:token and /t/c/:token (open pixel, click redirect), POST /webhooks/sns
 * (Amazon SES notifications) and GET /images/:projectId/:file (uploaded images); projections of
 * the `templates`, `emails`, `timers`, `suppressions` and `inboundEmails` views (group
 * `sending-projection`); the
 * delivery worker (groups `sending-delivery` for transactional and `sending-campaign-delivery`
 * for campaign email, topic `email`, 256 emails at a time each); the suppression of hard-bounced and
 * complaining addresses (group `sending-feedback`); the billing caps and consumption (group
 * `sending-billing`: views `billingLimits`, `billingUsage`, `billingCounted`), which every
 * accepted email is checked against (402 BILLING_LIMIT_EXCEEDED); the inbound SMTP listener of bounce and
 * complaint reports (when `inbound` names a port); the delivery of account mail (group
 * `sending-account-mail`, topic `accountEmail`); and a TimerScheduler for retries.
 */
export function createSendingService(deps: SendingDeps): ServiceModule & { api: SendingApi } {
  const sandboxDomain = deps.sandboxDomain ?? DEFAULT_SANDBOX_DOMAIN;
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const retry = { ...DEFAULT_RETRY, ...deps.retry };
  const localOutbox = new OutboxMailer(deps.views);
  const outbox: Mailer = deps.outbox ?? localOutbox;
  const accepted = new Map<string, DeliveryReceipt & { transport: 'smtp' | 'outbox' }>();
  let billingView: Consumer | undefined;
  const billing = createBillingGuard({ views: deps.views, projection: () => billingView });
  const sendDeps = {
    store: deps.store,
    views: deps.views,
    contacts: deps.contacts,
    domains: deps.domains,
    sandboxDomain,
    publicUrl: deps.publicUrl,
    secrets: deps.secrets,
    limits,
    billing,
  };

  const router = Router();
  router.use(sendRouter({ ...sendDeps, awaitViews: deps.awaitViews }));
  router.use(
    templatesRouter({
      store: deps.store,
      views: deps.views,
      domains: deps.domains,
      sandboxDomain,
      awaitViews: deps.awaitViews,
    }),
  );
  router.use(deliveryRouter({ views: deps.views }));
  router.use(inboundRouter({ store: deps.store, views: deps.views }));
  const suppressions = suppressionCommands(deps.store);
  router.use(
    suppressionsRouter({ views: deps.views, commands: suppressions, awaitViews: deps.awaitViews }),
  );
  const publicRouter = Router();
  publicRouter.use(
    trackingRouter({
      store: deps.store,
      views: deps.views,
      secrets: deps.secrets,
      logger: deps.logger,
    }),
  );
  publicRouter.use(
    snsRouter({
      store: deps.store,
      views: deps.views,
      logger: deps.logger,
      verifier: new SnsVerifier(new RegExp(deps.snsCertUrlPattern ?? DEFAULT_SNS_CERT_URL_PATTERN)),
    }),
  );

  if (deps.uploads !== undefined) {
    const uploads = {
      store: deps.uploads.store,
      publicUrl: deps.publicUrl,
      maxBytes: deps.uploads.maxBytes ?? DEFAULT_UPLOAD_MAX_BYTES,
      logger: deps.logger,
    };
    router.use(uploadsRouter(uploads));
    publicRouter.use(imagesRouter(uploads));
  }

  let projection: Consumer | undefined;
  let reset: Consumer | undefined;
  let feedback: Consumer | undefined;
  let accountMail: Consumer | undefined;
  let listener: InboundListener | undefined;
  let workers: Consumer[] = [];
  let scheduler: TimerScheduler | undefined;

  return {
    name: 'sending',
    views: [
      {
        groupId: SENDING_PROJECTION_GROUP,
        collections: [TEMPLATES, EMAILS, TIMERS_COLLECTION, SUPPRESSIONS, INBOUND_EMAILS],
      },
      { groupId: SENDING_RESET_GROUP, collections: [] },
      { groupId: SENDING_BILLING_GROUP, collections: [...BILLING_VIEWS] },
    ],
    router,
    publicRouter,
    api: {
      send: (context, body) => send(sendDeps, context, body),
      checkSender: async (projectId, from) => {
        await assertProjectMaySend(deps.views, projectId);
        await assertSenderAllowed(sendDeps, projectId, from);
        return null;
      },
      queueCampaignEmails: (input) => queueCampaignEmails(sendDeps, input),
      sendCampaignTest: (input) => sendCampaignTest(sendDeps, input),
      templateExists: async (projectId, templateId) =>
        (await deps.views
          .collection(TEMPLATES)
          .findOne({ _id: templateId, projectId, deleted: false })) !== null,
      queueWorkflowEmail: (input) => queueWorkflowEmail(sendDeps, input),
    },
    async start() {
      if (projection !== undefined) return;
      await deps.views.collection(EMAILS).createIndex({ contactId: 1 });
      await deps.views.collection(EMAILS).createIndex({ campaignId: 1, status: 1 });
      // SES notifications name the email by its Message-ID.
      await deps.views.collection(EMAILS).createIndex({ messageId: 1 });
      await createSuppressionIndexes(deps.views);
      await deps.views.collection(INBOUND_EMAILS).createIndex({ projectId: 1 });
      await deps.views.collection(INBOUND_EMAILS).createIndex({ contactId: 1 });
      await deps.views.collection(BILLING_COUNTED_VIEW).createIndex({ period: 1 });
      // Messages captured by an earlier version kept their content in the list documents.
      if (deps.outbox === undefined) await localOutbox.upgrade();
      projection = deps.bus.consume({
        groupId: SENDING_PROJECTION_GROUP,
        topics: ['template', 'email', 'contact', 'suppression', 'inboundEmail'],
        concurrency: 8,
        handle: (event) => {
          const category = streamCategory(event.streamId);
          if (category === 'template') return projectTemplate(deps.views, event);
          if (category === 'suppression') return projectSuppression(deps.views, event);
          if (category === 'inboundEmail') return projectReceived(deps.views, event);
          if (category === 'contact') return forgetContactEmails(deps.views, event);
          return projectEmail(deps.views, event);
        },
      });
      billingView = deps.bus.consume({
        groupId: SENDING_BILLING_GROUP,
        topics: BILLING_TOPICS,
        concurrency: 8,
        handle: billingProjection(deps.views),
      });
      reset = consumeProjectResets({
        bus: deps.bus,
        groupId: SENDING_RESET_GROUP,
        projections: () => (projection === undefined ? [] : [projection]),
        wipe: async (notice) => {
          await deleteProjectDocuments(
            deps.views,
            { [TEMPLATES]: 'createdAt', [EMAILS]: 'createdAt', [INBOUND_EMAILS]: 'receivedAt' },
            notice,
          );
          await deps.uploads?.store.deleteProject(notice.projectId, new Date(notice.resetAt));
        },
      });
      const deliveryDeps = {
        store: deps.store,
        domains: deps.domains,
        logger: deps.logger,
        ...(deps.relay === undefined ? {} : { relay: deps.relay }),
        outbox,
        retry,
        secrets: deps.secrets,
        tracking: {
          modeOf: trackingModes(deps.views, deps.tracking ?? 'ENABLED'),
          links: { publicUrl: deps.publicUrl, secrets: deps.secrets },
        },
        accepted,
        suppressionOf: async (projectId: string, email: string) => {
          const found = await deps.views
            .collection<SuppressionDocument>(SUPPRESSIONS)
            .findOne({ _id: suppressionId(projectId, email), active: true });
          return found?.reason ?? null;
        },
      };
      // Two lanes on one SMTP pool: campaign email never holds transactional email back.
      workers = (['transactional', 'campaign'] as const).map((lane) =>
        deps.bus.consume({
          groupId: lane === 'transactional' ? 'sending-delivery' : 'sending-campaign-delivery',
          topics: ['email'],
          // Emails in flight: enough to keep the composer threads and every connection of the
          // pool busy while others are recorded (campaign mail waits behind other mail there).
          concurrency: DELIVERY_CONCURRENCY,
          batchSize: 1024,
          // A worker: its handler waits on SMTP.
          ownPass: true,
          handle: (event) => handleDelivery(deliveryDeps, event, lane),
        }),
      );
      accountMail = deps.bus.consume({
        groupId: ACCOUNT_MAIL_GROUP,
        topics: [ACCOUNT_EMAIL_CATEGORY],
        // A worker: its handler waits on SMTP.
        ownPass: true,
        handle: (event) =>
          deliverAccountEmail(
            {
              store: deps.store,
              secrets: deps.secrets,
              logger: deps.logger,
              ...(deps.relay === undefined ? {} : { relay: deps.relay }),
              outbox,
              from: parseMailbox(
                deps.systemFrom ?? `Stamp <no-reply@${new URL(deps.publicUrl).hostname}>`,
              ),
            },
            event,
          ),
      });
      feedback = deps.bus.consume({
        groupId: FEEDBACK_GROUP,
        topics: ['email'],
        concurrency: 8,
        handle: (event) => suppressOnFeedback(suppressions, event),
      });
      if (deps.inbound !== undefined && deps.inbound.port !== 0) {
        listener = await startInboundListener({
          store: deps.store,
          views: deps.views,
          secrets: deps.secrets,
          logger: deps.logger,
          contacts: deps.contacts,
          billing,
          receivingDomain: (domain) => deps.domains.receivingDomain(domain),
          host: deps.inbound.host,
          port: deps.inbound.port,
        });
      }
      scheduler = startTimerScheduler(
        { store: deps.store, views: deps.views, leases: deps.leases, logger: deps.logger },
        deps.timers,
      );
    },
    async stop() {
      await listener?.close();
      listener = undefined;
      await scheduler?.stop();
      for (const worker of workers) await worker.stop();
      await accountMail?.stop();
      accountMail = undefined;
      await feedback?.stop();
      feedback = undefined;
      await reset?.stop();
      reset = undefined;
      await billingView?.stop();
      billingView = undefined;
      billing.stop();
      await projection?.stop();
      scheduler = undefined;
      workers = [];
      projection = undefined;
    },
    projections: () =>
      [projection, reset, billingView].filter((consumer) => consumer !== undefined),
  };
}
