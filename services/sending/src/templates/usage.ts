import {
  CAMPAIGNS_VIEW,
  type CampaignViewDocument,
  WORKFLOWS_VIEW,
  type WorkflowViewDocument,
} from '@stamp/contracts';
import type { ViewDocument, ViewStore } from '@stamp/platform';

type CampaignDocument = CampaignViewDocument & ViewDocument;
type WorkflowDocument = WorkflowViewDocument & ViewDocument;

/** The step type that sends a template (API reference, "Workflow step config"). */
const SEND_EMAIL = 'SEND_EMAIL';

/**
 * Where a template is referenced (GET /templates/:id/usage, spec part 4 "Templates"): the
 * project's campaigns whose `templateId` is the template, and the project's workflows with the
 * SEND_EMAIL steps whose `config.templateId` is the template (only those steps are listed).
 */
export interface TemplateUsage {
  campaigns: { id: string; name: string; status: CampaignViewDocument['status'] }[];
  workflows: { id: string; name: string; steps: { id: string; type: string }[] }[];
}

/**
 * Reads the usage of template `templateId` of project `projectId` from the campaigns and
 * workflows views (owned by those services; empty until they hold documents), newest first.
 * Does not check that the template exists.
 */
export async function templateUsage(
  views: ViewStore,
  projectId: string,
  templateId: string,
): Promise<TemplateUsage> {
  const [campaigns, workflows] = await Promise.all([
    views
      .collection<CampaignDocument>(CAMPAIGNS_VIEW)
      .find({ projectId, templateId }, { sort: { _id: -1 } }),
    views
      .collection<WorkflowDocument>(WORKFLOWS_VIEW)
      .find(
        { projectId, steps: { $elemMatch: { type: SEND_EMAIL, 'config.templateId': templateId } } },
        { sort: { _id: -1 } },
      ),
  ]);
  return {
    campaigns: campaigns.map((campaign) => ({
      id: campaign._id,
      name: campaign.name,
      status: campaign.status,
    })),
    workflows: workflows.map((workflow) => ({
      id: workflow._id,
      name: workflow.name,
      steps: workflow.steps
        .filter((step) => step.type === SEND_EMAIL && step.config.templateId === templateId)
        .map((step) => ({ id: step.id, type: step.type })),
    })),
  };
}
