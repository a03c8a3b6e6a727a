/**
 * Workflow emails (spec part 4 "Workflows"; API reference, "Workflow step config" SEND_EMAIL): one
 * email of a template per SEND_EMAIL step run, rendered with the contact's data and the
 * execution's context, queued through the same delivery pipeline as POST /v1/send.
 */
import {
  BILLING_CATEGORY_METADATA,
  CONTACTS_VIEW,
  type ContactViewDocument,
  type QueueWorkflowEmailInput,
  type QueueWorkflowEmailResult,
  subscriptionToken,
} from '@stamp/contracts';
import { assertEmailAddress } from '@stamp/http-kit';
import { decisionAppend, type ViewDocument, WrongExpectedRevisionError } from '@stamp/platform';

import { domainOf } from '../deps.ts';
import { emailStream, type EmailEvent } from '../delivery/events.ts';
import { parseLiquid, render, type SendDeps } from '../send/command.ts';
import { emailHeaders, resolveMessage } from '../send/decide.ts';
import { assertProjectMaySend } from '../send/project.ts';
import { stripHeaderControls } from '../send/header-text.ts';
import { findTemplate } from '../templates/api.ts';
import { assertSenderAllowed } from '../templates/commands.ts';
import { templateScope } from '../templates/render.ts';

/**
 * Queues the email of a SEND_EMAIL step (see `WorkflowEmailsApi.queueWorkflowEmail`): stream
 * `email-<input.emailId>` appended with expected `no_stream`, so a repeated call finds it
 * (`existing`) instead of queueing it again. The email counts against the project's `workflows`
 * cap, checked just before it is queued.
 * @throws ApiError 404 TEMPLATE_NOT_FOUND, 403 PROJECT_DISABLED, 403 DOMAIN_NOT_VERIFIED, 402
 *   BILLING_LIMIT_EXCEEDED (the step fails with it), 422 VALIDATION_ERROR (no sender, a template
 *   that does not render, an invalid custom address).
 */
export async function queueWorkflowEmail(
  deps: SendDeps,
  input: QueueWorkflowEmailInput,
): Promise<QueueWorkflowEmailResult> {
  const { projectId, emailId } = input;
  const template = await findTemplate(deps.views, projectId, input.templateId);
  const resolved = resolveMessage(
    { to: input.contactId },
    {
      id: template._id,
      subject: template.subject,
      body: template.body,
      type: template.type,
      ...(template.from === undefined ? {} : { from: template.from }),
      ...(template.fromName === undefined ? {} : { fromName: template.fromName }),
      ...(template.replyTo === undefined ? {} : { replyTo: template.replyTo }),
    },
  );
  await assertProjectMaySend(deps.views, projectId);
  await assertSenderAllowed(deps, projectId, resolved.from.email);
  const contact = await deps.views
    .collection<ContactViewDocument & ViewDocument>(CONTACTS_VIEW)
    .findOne({ _id: input.contactId, projectId });
  if (contact === null) return { emailId, outcome: 'skipped', reason: 'contact_deleted' };
  const custom =
    input.customEmail === undefined
      ? undefined
      : assertEmailAddress(input.customEmail, 'customEmail');
  // The subscription rule is the contact's: a custom recipient of a marketing email is still
  // sent on the contact's behalf.
  if (resolved.marketing && !contact.subscribed) {
    return { emailId, outcome: 'skipped', reason: 'unsubscribed' };
  }
  const scope: Record<string, unknown> = {
    ...templateScope(
      {
        id: contact._id,
        email: contact.email,
        subscribed: contact.subscribed,
        data: { ...contact.data, ...input.context },
      },
      deps.publicUrl,
      subscriptionToken(deps.secrets, projectId, contact._id),
    ),
    event: input.context,
  };
  const subject = stripHeaderControls(
    await render(parseLiquid(resolved.subject, 'text', 'template'), 'text', scope, 'template'),
  );
  const html = await render(
    parseLiquid(resolved.body, 'html', 'template'),
    'html',
    scope,
    'template',
  );
  const event: EmailEvent = {
    type: 'EmailQueued',
    data: {
      emailId,
      contactId: contact._id,
      to: { email: custom ?? contact.email },
      from: resolved.from,
      ...(resolved.replyTo === undefined ? {} : { replyTo: resolved.replyTo }),
      subject,
      html,
      headers: emailHeaders(undefined, resolved.marketing, String(scope.unsubscribeUrl)),
      attachments: [],
      templateId: template._id,
      workflowId: input.workflowId,
      executionId: input.executionId,
      marketing: resolved.marketing,
      sandbox: domainOf(resolved.from.email) === deps.sandboxDomain.toLowerCase(),
    },
  };
  const reservation = await deps.billing.reserve(projectId, 'workflows', 1);
  try {
    const { position } = await deps.store.append([
      decisionAppend(emailStream(emailId), -1, [event], {
        projectId,
        correlationId: input.correlationId,
        subjectId: contact._id,
        [BILLING_CATEGORY_METADATA]: 'workflows',
      }),
    ]);
    reservation.settle(position);
  } catch (error) {
    reservation.release();
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    return { emailId, outcome: 'existing', reason: null };
  }
  return { emailId, outcome: 'queued', reason: null };
}
