/**
 * GET /activity/upcoming (spec part 4): upcoming scheduled sends and active workflow executions
 * of the caller's project, read from the campaigns and workflow-executions views their services
 * fill (empty collections until those services exist).
 */
import {
  CAMPAIGNS_VIEW,
  type CampaignViewDocument,
  CONTACTS_VIEW,
  type ContactViewDocument,
  WORKFLOW_EXECUTIONS_VIEW,
  type WorkflowExecutionViewDocument,
  WORKFLOWS_VIEW,
  type WorkflowViewDocument,
} from '@stamp/contracts';
import { caller, parse } from '@stamp/http-kit';
import type { ViewDocument, ViewStore } from '@stamp/platform';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';

/** A scheduled campaign send. */
export interface UpcomingCampaign {
  id: string;
  name: string;
  status: 'SCHEDULED';
  /** ISO 8601 time the send is due. */
  scheduledAt: string;
}

/** An active (RUNNING or WAITING) workflow execution. */
export interface UpcomingExecution {
  id: string;
  workflowId: string;
  /** Name of the workflow, null when the workflow is not in the view. */
  workflowName: string | null;
  contact: { id: string; email: string } | null;
  status: 'RUNNING' | 'WAITING';
  startedAt: string;
  /** ISO 8601 time the next step is due, when waiting; null otherwise. */
  nextRunAt: string | null;
}

/** Answer of GET /activity/upcoming. */
export interface UpcomingResponse {
  campaigns: UpcomingCampaign[];
  executions: UpcomingExecution[];
}

/** Dependencies of {@link upcomingRouter}. */
export interface UpcomingRouterDeps {
  views: ViewStore;
  /** Clock (tests); `new Date()` by default. */
  now?: () => Date;
}

/** Query of GET /activity/upcoming. */
export const upcomingQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/**
 * Creates the {projectId, status} indexes the upcoming queries use on the campaigns and
 * workflow-executions views (idempotent; their owners may create the same).
 */
export async function createUpcomingIndexes(views: ViewStore): Promise<void> {
  await views.collection(CAMPAIGNS_VIEW).createIndex({ projectId: 1, status: 1 });
  await views.collection(WORKFLOW_EXECUTIONS_VIEW).createIndex({ projectId: 1, status: 1 });
}

const ACTIVE_STATUSES = ['RUNNING', 'WAITING'] as const;

/** Soonest due first; executions without a due time after those with one, oldest first. */
function byDue(a: WorkflowExecutionViewDocument, b: WorkflowExecutionViewDocument): number {
  const due = (execution: WorkflowExecutionViewDocument): string => execution.nextRunAt ?? '\uffff';
  if (due(a) !== due(b)) return due(a) < due(b) ? -1 : 1;
  if (a.startedAt !== b.startedAt) return a.startedAt < b.startedAt ? -1 : 1;
  return a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
}

/**
 * Reads the upcoming work of a project: campaigns with status SCHEDULED and `scheduledAt` at or
 * after `now`, soonest first; executions with status RUNNING or WAITING, soonest `nextRunAt`
 * first. At most `limit` of each.
 */
export async function readUpcoming(
  views: ViewStore,
  projectId: string,
  limit: number,
  now: Date,
): Promise<UpcomingResponse> {
  const nowIso = now.toISOString();
  const campaigns = await views
    .collection<CampaignViewDocument & ViewDocument>(CAMPAIGNS_VIEW)
    .find(
      { projectId, status: 'SCHEDULED', scheduledAt: { $gte: nowIso } },
      { sort: { scheduledAt: 1, _id: 1 }, limit },
    );
  const executionsView = views.collection<WorkflowExecutionViewDocument & ViewDocument>(
    WORKFLOW_EXECUTIONS_VIEW,
  );
  const active: WorkflowExecutionViewDocument[] = [];
  for (const status of ACTIVE_STATUSES) {
    active.push(...(await executionsView.find({ projectId, status })));
  }
  const executions = active.sort(byDue).slice(0, limit);

  const workflows = views.collection<WorkflowViewDocument & ViewDocument>(WORKFLOWS_VIEW);
  const contacts = views.collection<ContactViewDocument & ViewDocument>(CONTACTS_VIEW);
  const names = new Map<string, string | null>();
  const emails = new Map<string, string | null>();
  for (const execution of executions) {
    if (!names.has(execution.workflowId)) {
      const workflow = await workflows.findOne({ _id: execution.workflowId, projectId });
      names.set(execution.workflowId, workflow?.name ?? null);
    }
    if (!emails.has(execution.contactId)) {
      const contact = await contacts.findOne({ _id: execution.contactId, projectId });
      emails.set(execution.contactId, contact?.email ?? null);
    }
  }

  return {
    campaigns: campaigns.map((campaign) => ({
      id: campaign._id,
      name: campaign.name,
      status: 'SCHEDULED',
      scheduledAt: campaign.scheduledAt ?? nowIso,
    })),
    executions: executions.map((execution) => {
      const email = emails.get(execution.contactId) ?? null;
      return {
        id: execution._id,
        workflowId: execution.workflowId,
        workflowName: names.get(execution.workflowId) ?? null,
        contact: email === null ? null : { id: execution.contactId, email },
        status: execution.status === 'WAITING' ? 'WAITING' : 'RUNNING',
        startedAt: execution.startedAt,
        nextRunAt: execution.nextRunAt ?? null,
      };
    }),
  };
}

/**
 * The upcoming router: `GET /activity/upcoming`, query `limit` (1..100, default 20, per list).
 * Answers {@link UpcomingResponse}. Errors: 422 VALIDATION_ERROR for a bad `limit`.
 */
export function upcomingRouter(deps: UpcomingRouterDeps): Router {
  const router = Router();
  const now = deps.now ?? (() => new Date());
  router.get('/activity/upcoming', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    const { limit } = parse(upcomingQuery, req.query);
    res.json(await readUpcoming(deps.views, projectId, limit, now()));
  });
  return router;
}
