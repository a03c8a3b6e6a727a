/**
 * Campaign emails (spec part 4 "Campaigns"): one marketing email per recipient of a batch,
 * rendered with the recipient's contact data, queued through the same delivery pipeline as
 * POST /v1/send.
 */
import {
  BILLING_CATEGORY_METADATA,
  type CampaignContent,
  CONTACTS_VIEW,
  type ContactViewDocument,
  type QueueCampaignEmailsInput,
  type QueueCampaignEmailsResult,
  subscriptionToken,
} from '@stamp/contracts';
import { validationError } from '@stamp/http-kit';
import {
  decisionAppend,
  derivedId,
  type StreamAppend,
  type ViewDocument,
  WrongExpectedRevisionError,
} from '@stamp/platform';

import { domainOf } from '../deps.ts';
import { emailStream, type EmailEvent, type EventMailbox } from '../delivery/events.ts';
import { parseLiquid, render, send, type SendDeps } from '../send/command.ts';
import { emailHeaders } from '../send/decide.ts';
import { stripHeaderControls } from '../send/header-text.ts';
import { assertSenderAllowed } from '../templates/commands.ts';
import { templateScope } from '../templates/render.ts';

/** Recipients of one call of {@link queueCampaignEmails}. */
export const MAX_CAMPAIGN_BATCH = 1000;

/** The id of the email of `contactId` in campaign `campaignId`: the same on every attempt. */
export const campaignEmailId = (campaignId: string, contactId: string): string =>
  derivedId(`campaign:${campaignId}:${contactId}`);

function sender(content: CampaignContent): EventMailbox {
  return content.fromName === undefined || content.fromName === ''
    ? { email: content.from }
    : { email: content.from, name: content.fromName };
}

/**
 * Queues the emails of one batch of a campaign (see `CampaignEmailsApi.queueCampaignEmails`):
 * reads the recipients from the contacts view, skips the deleted and the unsubscribed, renders
 * subject and body for each, and appends every EmailQueued (stream `email-<derived id>`,
 * expected `no_stream`) in one atomic append. When some of them exist (the batch was queued
 * before a crash), each one is appended alone and the existing ones are counted, not queued again.
 * The emails count against the project's `campaigns` cap: when it leaves fewer than the batch,
 * the first ones up to the cap are queued, then 402 is thrown (the campaign stops there, with the
 * reason).
 * @throws ApiError 403 DOMAIN_NOT_VERIFIED, 422 VALIDATION_ERROR (too many recipients, content
 *   that does not render), 402 BILLING_LIMIT_EXCEEDED (the cap reached; those within it queued).
 */
export async function queueCampaignEmails(
  deps: SendDeps,
  input: QueueCampaignEmailsInput,
): Promise<QueueCampaignEmailsResult> {
  const { projectId, campaignId, content } = input;
  if (input.contactIds.length > MAX_CAMPAIGN_BATCH) {
    throw validationError([
      { field: 'contactIds', message: `At most ${MAX_CAMPAIGN_BATCH} recipients`, code: 'too_big' },
    ]);
  }
  await assertSenderAllowed(deps, projectId, content.from);
  const subjectTemplate = parseLiquid(content.subject, 'text', 'subject');
  const bodyTemplate = parseLiquid(content.body, 'html', 'body');
  const sandbox = domainOf(content.from) === deps.sandboxDomain.toLowerCase();
  const from = sender(content);
  const contacts = await deps.views
    .collection<ContactViewDocument & ViewDocument>(CONTACTS_VIEW)
    .find({ _id: { $in: input.contactIds }, projectId });

  const appends: StreamAppend[] = [];
  for (const contact of contacts) {
    if (!contact.subscribed) continue;
    const scope = templateScope(
      { id: contact._id, email: contact.email, subscribed: true, data: contact.data },
      deps.publicUrl,
      subscriptionToken(deps.secrets, projectId, contact._id),
    );
    const subject = stripHeaderControls(await render(subjectTemplate, 'text', scope, 'subject'));
    const html = await render(bodyTemplate, 'html', scope, 'body');
    const emailId = campaignEmailId(campaignId, contact._id);
    const event: EmailEvent = {
      type: 'EmailQueued',
      data: {
        emailId,
        contactId: contact._id,
        to: { email: contact.email },
        from,
        ...(content.replyTo === undefined ? {} : { replyTo: content.replyTo }),
        subject,
        html,
        headers: emailHeaders(undefined, true, String(scope.unsubscribeUrl)),
        attachments: [],
        campaignId,
        marketing: true,
        sandbox,
      },
    };
    appends.push(
      decisionAppend(emailStream(emailId), -1, [event], {
        projectId,
        correlationId: input.correlationId,
        subjectId: contact._id,
        [BILLING_CATEGORY_METADATA]: 'campaigns',
      }),
    );
  }
  const skipped = input.contactIds.length - appends.length;
  if (appends.length === 0) return { queued: 0, existing: 0, skipped };
  const reservation = await deps.billing.reserve(projectId, 'campaigns', appends.length, {
    partial: true,
  });
  let result: QueueCampaignEmailsResult & { position: number };
  try {
    result = await appendBatch(deps, appends.slice(0, reservation.granted), skipped);
  } catch (error) {
    reservation.release();
    throw error;
  }
  reservation.settle(result.position, result.queued);
  // The cap is reached within this batch: the emails within it are queued, the rest never.
  if (reservation.shortfall !== null) throw reservation.shortfall;
  return { queued: result.queued, existing: result.existing, skipped: result.skipped };
}

/**
 * Appends `appends` in one atomic append; when some of them exist (the batch was queued before a
 * crash), each one alone, counting the existing ones. Answers the counts and the log position of
 * the last append (0: none).
 */
async function appendBatch(
  deps: SendDeps,
  appends: readonly StreamAppend[],
  skipped: number,
): Promise<QueueCampaignEmailsResult & { position: number }> {
  try {
    const { position } = await deps.store.append(appends);
    return { queued: appends.length, existing: 0, skipped, position };
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
  }
  // Part of the batch was queued before: queue the rest one by one.
  let queued = 0;
  let position = 0;
  for (const append of appends) {
    try {
      position = Math.max(position, (await deps.store.append([append])).position);
      queued += 1;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
  return { queued, existing: appends.length - queued, skipped, position };
}

/**
 * Sends one test email of a campaign's content to `email` through POST /v1/send's path: subject
 * prefixed `[Test] `, header `X-Stamp-Campaign-Test: <campaignId>`, no `campaignId` (so no stats).
 * @throws ApiError as POST /v1/send.
 */
export async function sendCampaignTest(
  deps: SendDeps,
  input: {
    projectId: string;
    campaignId: string;
    correlationId: string;
    content: CampaignContent;
    email: string;
  },
): Promise<{ emailId: string }> {
  const { content } = input;
  const result = await send(
    deps,
    { projectId: input.projectId, requestId: input.correlationId },
    {
      to: input.email,
      subject: `[Test] ${content.subject}`,
      body: content.body,
      from: sender(content),
      ...(content.replyTo === undefined ? {} : { reply: content.replyTo }),
      headers: { 'X-Stamp-Campaign-Test': input.campaignId },
    },
  );
  return { emailId: result.emails[0]?.email ?? '' };
}
