/**
 * Views that services other than their owner read (architecture brief, "Ports": ViewStore), with
 * the fields those readers rely on. Campaigns, segments and workflows fill them once they exist
 * (roadmap items 1 and 2); until then the collections are empty and every reader answers from
 * them as they are.
 */

/** Collection of campaigns (owner: campaigns service). */
export const CAMPAIGNS_VIEW = 'campaigns';
/** A campaign as other services read it; `status` is a campaign status of the API reference. */
export interface CampaignViewDocument {
  _id: string;
  [field: string]: unknown;
  projectId: string;
  name: string;
  status: 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'SENT' | 'CANCELLED';
  templateId?: string | null;
  /** Segment of the audience, when SEGMENT. */
  segmentId?: string | null;
  /** Filter of the audience (API reference, "Filter language"), when FILTERED. */
  audienceFilter?: unknown;
  /** ISO 8601 time of a scheduled send. */
  scheduledAt?: string | null;
}

/** Collection of segments (owner: segments service). */
export const SEGMENTS_VIEW = 'segments';
/** A segment as other services read it. */
export interface SegmentViewDocument {
  _id: string;
  [field: string]: unknown;
  projectId: string;
  name: string;
  /** Membership condition (API reference, "Filter language"). */
  condition?: unknown;
}

/** Collection of workflows (owner: workflows service). */
export const WORKFLOWS_VIEW = 'workflows';
/** A workflow as other services read it, with its steps (API reference, "Workflow step config"). */
export interface WorkflowViewDocument {
  _id: string;
  [field: string]: unknown;
  projectId: string;
  name: string;
  /** Name of the tracked event that starts it (trigger EVENT). */
  eventName?: string | null;
  steps: { id: string; type: string; config: Record<string, unknown> }[];
}

/** Collection of workflow executions (owner: workflows service). */
export const WORKFLOW_EXECUTIONS_VIEW = 'workflowExecutions';
/** An execution as other services read it (API reference, "Execution record"). */
export interface WorkflowExecutionViewDocument {
  _id: string;
  [field: string]: unknown;
  projectId: string;
  workflowId: string;
  contactId: string;
  status: 'RUNNING' | 'WAITING' | 'COMPLETED' | 'EXITED' | 'FAILED' | 'CANCELLED';
  startedAt: string;
  /** ISO 8601 time the next step is due (a DELAY or WAIT_FOR_EVENT timeout), when waiting. */
  nextRunAt?: string | null;
}

/** Collection of contacts (owner: contacts service); readers join contact emails from it. */
export const CONTACTS_VIEW = 'contacts';
/** A contact as other services read it (spec part 2). */
export interface ContactViewDocument {
  _id: string;
  [field: string]: unknown;
  projectId: string;
  email: string;
  subscribed: boolean;
  data: Record<string, string | number | boolean>;
  createdAt: string;
  updatedAt: string;
}

/**
 * Open and click tracking of a project's email (API reference, "Open and click tracking"):
 * every email, none, or campaign email and MARKETING templates only.
 */
export type TrackingMode = 'ENABLED' | 'DISABLED' | 'MARKETING_ONLY';

/** The tracking modes. */
export const TRACKING_MODES = ['ENABLED', 'DISABLED', 'MARKETING_ONLY'] as const;

/**
 * Collection of projects (owner: accounts service); sending reads whether one is suspended and
 * how its email is tracked.
 */
export const PROJECTS_VIEW = 'projects';
/** A project as other services read it. */
export interface ProjectViewDocument {
  _id: string;
  [field: string]: unknown;
  /**
   * The suspension in force (project protection: a bounce or complaint rate over its
   * threshold), or null; absent on projects never suspended.
   */
  suspension?: { reason: 'BOUNCE_RATE' | 'COMPLAINT_RATE'; suspendedAt: string } | null;
  /** The project's tracking mode; null or absent: the installation's (`STAMP_TRACKING`). */
  tracking?: TrackingMode | null;
}

/** Collection of emails and their delivery status (owner: sending service). */
export const EMAILS_VIEW = 'emails';

/**
 * Email statuses in rank order (API reference, "Enums"): a later-ranked status is never
 * replaced by an earlier one, so an out-of-order event cannot downgrade an email.
 */
export const EMAIL_STATUSES = [
  'QUEUED',
  'SENDING',
  'SENT',
  'DELIVERED',
  'OPENED',
  'CLICKED',
  'BOUNCED',
  'COMPLAINED',
  'FAILED',
] as const;

/** An email status. */
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/**
 * The statuses of an email the receiving side accepted and kept (delivered, and maybe opened or
 * complained about since; a bounce reported later means it was not delivered after all).
 */
export const DELIVERED_STATUSES: readonly EmailStatus[] = [
  'SENT',
  'DELIVERED',
  'OPENED',
  'CLICKED',
  'COMPLAINED',
];

/** An email as other services read it (campaign stats). */
export interface EmailViewDocument {
  _id: string;
  [field: string]: unknown;
  projectId: string;
  contactId: string;
  /** Campaign the email belongs to; null for other emails. */
  campaignId: string | null;
  /** QUEUED until an outcome (SENT: accepted by the receiving side; FAILED), then up the ranks. */
  status: EmailStatus;
  /** Deferred delivery attempts so far. */
  attempts: number;
  /** Opens and clicks so far, a person's and automated ones apart (absent: none). */
  humanOpens?: number;
  automatedOpens?: number;
  humanClicks?: number;
  automatedClicks?: number;
}
