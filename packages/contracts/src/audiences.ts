/**
 * Audiences of campaigns (spec part 2 "Campaign", part 4 "Campaigns"): who a campaign reaches,
 * the segments service's API that answers it, and the sending service's API that queues one
 * campaign email per recipient.
 */

/** Audience types of a campaign (spec part 2). */
export const AUDIENCE_TYPES = ['ALL', 'SEGMENT', 'FILTERED'] as const;

/** Audience type of a campaign. */
export type AudienceType = (typeof AUDIENCE_TYPES)[number];

/**
 * Who a campaign reaches: every subscribed contact of the project (ALL), the subscribed members
 * of a segment (SEGMENT), or the subscribed contacts a filter (API reference, "Filter language")
 * matches (FILTERED).
 */
export type Audience =
  | { audienceType: 'ALL' }
  | { audienceType: 'SEGMENT'; segmentId: string }
  | { audienceType: 'FILTERED'; audienceFilter: unknown };

/** One page of an audience: contact ids in increasing order. */
export interface AudiencePage {
  contactIds: string[];
}

/** The segments service's audience API, used by campaigns. */
export interface SegmentsApi {
  /**
   * Checks an audience of the project: the segment exists, the filter is well formed and its
   * `segment.<id>` references resolve. Answers the filter as parsed (null for ALL and SEGMENT).
   * @throws ApiError 404 SEGMENT_NOT_FOUND; 422 VALIDATION_ERROR naming the path
   *   (`audienceFilter.groups.0.filters.1.operator`).
   */
  checkAudience(projectId: string, audience: Audience): Promise<unknown>;
  /**
   * The subscribed contacts of the audience now, `limit` (1..5000) at a time in increasing id
   * order, after contact id `after` (null: from the start).
   * @throws ApiError as {@link SegmentsApi.checkAudience}.
   */
  audiencePage(
    projectId: string,
    audience: Audience,
    after: string | null,
    limit: number,
  ): Promise<AudiencePage>;
}

/** The content of a campaign email, before rendering (Liquid, as templates). */
export interface CampaignContent {
  subject: string;
  /** HTML body. */
  body: string;
  from: string;
  fromName?: string;
  replyTo?: string;
}

/** Input of {@link CampaignEmailsApi.queueCampaignEmails}. */
export interface QueueCampaignEmailsInput {
  projectId: string;
  campaignId: string;
  correlationId: string;
  content: CampaignContent;
  /** Recipients, by contact id (at most 1000). */
  contactIds: string[];
}

/** Result of {@link CampaignEmailsApi.queueCampaignEmails}. */
export interface QueueCampaignEmailsResult {
  /** Emails queued by this call. */
  queued: number;
  /** Recipients that had their email already (an earlier attempt of the same batch). */
  existing: number;
  /** Recipients skipped: deleted, or unsubscribed since the audience was fixed. */
  skipped: number;
}

/** The sending service's campaign API, used by campaigns. */
export interface CampaignEmailsApi {
  /**
   * Checks that `from` may send for the project: its domain is a verified domain of the project
   * or the sandbox domain (the rule of POST /v1/send).
   * @throws ApiError 403 DOMAIN_NOT_VERIFIED.
   */
  checkSender(projectId: string, from: string): Promise<null>;
  /**
   * Renders the content for each recipient with its contact data and queues one marketing email
   * per recipient (RFC 8058 one-click unsubscribe headers), carrying `campaignId`. The email id
   * is derived from the campaign and contact ids, so a repeated call queues nothing twice.
   * @throws ApiError 403 DOMAIN_NOT_VERIFIED; 422 VALIDATION_ERROR for content that does not
   *   render.
   */
  queueCampaignEmails(input: QueueCampaignEmailsInput): Promise<QueueCampaignEmailsResult>;
  /**
   * Sends one test email of the content to `email` (not counted in any campaign's stats);
   * answers its email id.
   * @throws ApiError as POST /v1/send.
   */
  sendCampaignTest(input: {
    projectId: string;
    campaignId: string;
    correlationId: string;
    content: CampaignContent;
    email: string;
  }): Promise<{ emailId: string }>;
}

/** Input of {@link WorkflowEmailsApi.queueWorkflowEmail}. */
export interface QueueWorkflowEmailInput {
  projectId: string;
  workflowId: string;
  executionId: string;
  /** The email's id, derived by the caller from the execution, step and visit: a repeated call queues nothing twice. */
  emailId: string;
  templateId: string;
  contactId: string;
  /** A custom recipient (SEND_EMAIL `recipient.type` CUSTOM); the contact's email when absent. */
  customEmail?: string;
  /** The execution's context: template variables beside the contact's data, and under `event`. */
  context: Record<string, unknown>;
  correlationId: string;
}

/** Result of {@link WorkflowEmailsApi.queueWorkflowEmail}. */
export interface QueueWorkflowEmailResult {
  emailId: string;
  /** `queued` now, `existing` from an earlier call, or `skipped` (`reason` says why). */
  outcome: 'queued' | 'existing' | 'skipped';
  reason: 'unsubscribed' | 'contact_deleted' | null;
}

/** The sending service's workflow API, used by workflows. */
export interface WorkflowEmailsApi {
  /** Whether the project has a template with this id. */
  templateExists(projectId: string, templateId: string): Promise<boolean>;
  /**
   * Renders the template for the contact with the context and queues one email carrying
   * `workflowId` and `executionId`. A MARKETING template is not sent to an unsubscribed contact
   * (skipped), and gets the RFC 8058 one-click headers.
   * @throws ApiError 404 TEMPLATE_NOT_FOUND, 403 DOMAIN_NOT_VERIFIED, 422 VALIDATION_ERROR for a
   *   template that does not render.
   */
  queueWorkflowEmail(input: QueueWorkflowEmailInput): Promise<QueueWorkflowEmailResult>;
}
