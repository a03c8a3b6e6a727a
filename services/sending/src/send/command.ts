import {
  BILLING_CATEGORY_METADATA,
  type ContactsApi,
  type DomainsApi,
  subscriptionToken,
} from '@stamp/contracts';
import { ApiError, validationError } from '@stamp/http-kit';
import {
  decisionAppend,
  describeSyntaxError,
  type EventStore,
  newId,
  type ParsedTemplate,
  parseTemplate,
  renderTemplate,
  type Secrets,
  type StreamAppend,
  TemplateSyntaxError,
  type ViewStore,
} from '@stamp/platform';

import type { BillingGuard } from '../billing/guard.ts';
import { domainOf, type SendingLimits } from '../deps.ts';
import { emailStream, type EmailEvent } from '../delivery/events.ts';
import { findTemplate } from '../templates/api.ts';
import { assertSenderAllowed } from '../templates/commands.ts';
import { templateScope } from '../templates/render.ts';
import {
  assertMayReceive,
  checkSize,
  emailHeaders,
  recipientsOf,
  resolveMessage,
  splitData,
  type TemplateDefaults,
} from './decide.ts';
import { stripHeaderControls } from './header-text.ts';
import { assertProjectMaySend } from './project.ts';
import type { SendBody } from './schema.ts';

/** What a send needs. */
export interface SendDeps {
  store: EventStore;
  views: ViewStore;
  contacts: ContactsApi;
  domains: DomainsApi;
  sandboxDomain: string;
  publicUrl: string;
  /** Signs the recipients' subscription tokens. */
  secrets: Secrets;
  limits: SendingLimits;
  /** The check of the projects' billing caps. */
  billing: BillingGuard;
}

/** Result of a send: one entry per recipient in request order, and the last log position. */
export interface SendResult {
  emails: { contact: { id: string; email: string }; email: string }[];
  timestamp: string;
  position: number;
}

/** Bytes an HTML body (encoded, about 4/3) and a subject add to a message. */
function contentBytes(html: string, subject: string): number {
  return Math.ceil((Buffer.byteLength(html) * 4) / 3) + Buffer.byteLength(subject);
}

/**
 * Renders one template text for one recipient.
 * @throws ApiError 422 VALIDATION_ERROR on `field` when rendering fails (unknown filter, a limit
 *   of the template engine reached).
 */
export async function render(
  source: ParsedTemplate,
  kind: 'html' | 'text',
  scope: Record<string, unknown>,
  field: string,
): Promise<string> {
  try {
    return await renderTemplate(source, kind, scope);
  } catch (error) {
    if (!(error instanceof TemplateSyntaxError)) throw error;
    throw validationError([
      {
        field,
        message: `The template could not be rendered: ${error.message}`,
        code: 'invalid_template',
      },
    ]);
  }
}

/**
 * Parses one template text once for every recipient of the send.
 * @throws ApiError 422 VALIDATION_ERROR on `field` for invalid Liquid.
 */
export function parseLiquid(source: string, kind: 'html' | 'text', field: string): ParsedTemplate {
  try {
    return parseTemplate(source, kind);
  } catch (error) {
    if (!(error instanceof TemplateSyntaxError)) throw error;
    throw validationError([
      { field, message: describeSyntaxError(error), code: 'invalid_template' },
    ]);
  }
}

/**
 * POST /v1/send (spec part 4): resolves content and sender, checks the sender domain, reserves
 * the emails under the project's `transactional` cap, then for each recipient in order upserts
 * the contact, renders subject and body, and appends EmailQueued to `email-<newId()>`.
 * @throws ApiError 403 PROJECT_DISABLED (a suspended project), 404 TEMPLATE_NOT_FOUND, 403
 * DOMAIN_NOT_VERIFIED, 402 BILLING_LIMIT_EXCEEDED (before anything is stored), 400 (marketing to
 * an unsubscribed contact), 413 PAYLOAD_TOO_LARGE, 422 VALIDATION_ERROR.
 */
export async function send(
  deps: SendDeps,
  context: { projectId: string; requestId: string },
  body: SendBody,
): Promise<SendResult> {
  const { projectId } = context;
  await assertProjectMaySend(deps.views, projectId);
  let template: TemplateDefaults | null = null;
  if (body.template !== undefined) {
    const document = await findTemplate(deps.views, projectId, body.template);
    template = {
      id: document._id,
      subject: document.subject,
      body: document.body,
      type: document.type,
      ...(document.from === undefined ? {} : { from: document.from }),
      ...(document.fromName === undefined ? {} : { fromName: document.fromName }),
      ...(document.replyTo === undefined ? {} : { replyTo: document.replyTo }),
    };
  }
  const resolved = resolveMessage(body, template);
  const estimate = checkSize(body, resolved, deps.limits);
  const subjectField = body.subject === undefined ? 'template' : 'subject';
  const bodyField = body.body === undefined ? 'template' : 'body';
  const subjectTemplate = parseLiquid(resolved.subject, 'text', subjectField);
  const bodyTemplate = parseLiquid(resolved.body, 'html', bodyField);
  await assertSenderAllowed(deps, projectId, resolved.from.email);
  const sandbox = domainOf(resolved.from.email) === deps.sandboxDomain.toLowerCase();
  const recipients = recipientsOf(body.to);
  if (recipients.length > deps.limits.recipients) {
    throw validationError([
      { field: 'to', message: `At most ${deps.limits.recipients} recipients`, code: 'too_big' },
    ]);
  }

  // The cap is checked before anything is stored (contacts included).
  const reservation = await deps.billing.reserve(projectId, 'transactional', recipients.length);
  try {
    const result = await queueEach(deps, context, body, {
      resolved,
      estimate,
      subjectField,
      bodyField,
      subjectTemplate,
      bodyTemplate,
      sandbox,
      recipients,
    });
    reservation.settle(result.position);
    return result;
  } catch (error) {
    reservation.release();
    throw error;
  }
}

/** What {@link send} resolved before it queues the emails of its recipients. */
interface Resolved {
  resolved: ReturnType<typeof resolveMessage>;
  estimate: number;
  subjectField: string;
  bodyField: string;
  subjectTemplate: ParsedTemplate;
  bodyTemplate: ParsedTemplate;
  sandbox: boolean;
  recipients: ReturnType<typeof recipientsOf>;
}

/**
 * Upserts each recipient's contact, renders its email and appends every EmailQueued in one
 * atomic append (see {@link send}).
 */
async function queueEach(
  deps: SendDeps,
  context: { projectId: string; requestId: string },
  body: SendBody,
  prepared: Resolved,
): Promise<SendResult> {
  const { projectId, requestId } = context;
  const { resolved, estimate, subjectField, bodyField, subjectTemplate, bodyTemplate } = prepared;
  const { sandbox, recipients } = prepared;
  // Every recipient is checked and rendered before any email is queued: a refusal for one of
  // them queues none, and all emails of the request are queued in one atomic append.
  const emails: SendResult['emails'] = [];
  const queued: StreamAppend[] = [];
  let position = 0;
  for (const recipient of recipients) {
    const { persistent, transient } = splitData(body.data, recipient);
    const contact = await deps.contacts.upsertRecipient({
      projectId,
      email: recipient.email,
      data: persistent,
      ...(body.subscribed === undefined ? {} : { subscribed: body.subscribed }),
      defaultSubscribed: false,
      correlationId: requestId,
    });
    position = Math.max(position, contact.position);
    assertMayReceive(resolved.marketing, contact);
    const scope = templateScope(
      {
        id: contact.contactId,
        email: contact.email,
        subscribed: contact.subscribed,
        data: { ...contact.data, ...transient },
      },
      deps.publicUrl,
      subscriptionToken(deps.secrets, projectId, contact.contactId),
    );
    // Variables may hold line breaks or other control characters: never into the header.
    const subject = stripHeaderControls(await render(subjectTemplate, 'text', scope, subjectField));
    const html = await render(bodyTemplate, 'html', scope, bodyField);
    // The size estimate again, with the rendered content in place of the template's (part 8).
    const size =
      estimate - contentBytes(resolved.body, resolved.subject) + contentBytes(html, subject);
    if (size > deps.limits.messageBytes) {
      throw new ApiError(
        413,
        'PAYLOAD_TOO_LARGE',
        `The message may be at most ${deps.limits.messageBytes} bytes`,
      );
    }
    const emailId = newId();
    const event: EmailEvent = {
      type: 'EmailQueued',
      data: {
        emailId,
        contactId: contact.contactId,
        to: recipient,
        from: resolved.from,
        ...(resolved.replyTo === undefined ? {} : { replyTo: resolved.replyTo }),
        subject,
        html,
        headers: emailHeaders(body.headers, resolved.marketing, String(scope.unsubscribeUrl)),
        attachments: (body.attachments ?? []).map((attachment) => ({ ...attachment })),
        ...(resolved.templateId === undefined ? {} : { templateId: resolved.templateId }),
        marketing: resolved.marketing,
        sandbox,
      },
    };
    // The message is personal data of its recipient: erased with the contact.
    queued.push(
      decisionAppend(emailStream(emailId), -1, [event], {
        projectId,
        correlationId: requestId,
        subjectId: contact.contactId,
        [BILLING_CATEGORY_METADATA]: 'transactional',
      }),
    );
    emails.push({ contact: { id: contact.contactId, email: contact.email }, email: emailId });
  }
  const appended = await deps.store.append(queued);
  position = Math.max(position, appended.position);
  return { emails, timestamp: new Date().toISOString(), position };
}
