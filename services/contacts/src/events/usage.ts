/**
 * Where an event name is referenced (spec part 4, GET /events/:eventName/usage), read from the
 * views other services own (`@stamp/contracts`): workflows started by the event or waiting for it
 * (API reference, "Workflow step config", WAIT_FOR_EVENT), and segments and campaigns whose filter
 * (API reference, "Filter language") has a filter on the field `event.<name>`.
 */
import {
  CAMPAIGNS_VIEW,
  type CampaignViewDocument,
  SEGMENTS_VIEW,
  type SegmentViewDocument,
  WORKFLOWS_VIEW,
  type WorkflowViewDocument,
} from '@stamp/contracts';
import type { ViewDocument, ViewStore } from '@stamp/platform';

/** A referencing resource. */
export interface UsageReference {
  id: string;
  name: string;
}

/** Answer of GET /events/:eventName/usage; each list sorted by name, then id. */
export interface TrackedEventUsage {
  workflows: UsageReference[];
  segments: UsageReference[];
  campaigns: UsageReference[];
}

/** Nesting depth beyond which a filter is not searched (filters are a few levels deep). */
const MAX_DEPTH = 32;

/**
 * Whether a filter document (any JSON) holds a filter `{field: "event.<name>", ...}` at any depth:
 * in `groups[].filters[]`, nested `conditions`, or any other nesting.
 */
export function referencesEvent(filter: unknown, name: string, depth = 0): boolean {
  if (depth > MAX_DEPTH || typeof filter !== 'object' || filter === null) return false;
  if (Array.isArray(filter)) {
    return filter.some((item) => referencesEvent(item, name, depth + 1));
  }
  const record = filter as Record<string, unknown>;
  if (record.field === `event.${name}`) return true;
  return Object.values(record).some((value) => referencesEvent(value, name, depth + 1));
}

/** Whether a workflow is started by the event or has a WAIT_FOR_EVENT step for it. */
export function workflowUsesEvent(workflow: WorkflowViewDocument, name: string): boolean {
  if (workflow.eventName === name) return true;
  const steps: unknown = workflow.steps;
  if (!Array.isArray(steps)) return false;
  return steps.some((step: unknown) => {
    if (typeof step !== 'object' || step === null) return false;
    const { type, config } = step as { type?: unknown; config?: unknown };
    return (
      type === 'WAIT_FOR_EVENT' &&
      typeof config === 'object' &&
      config !== null &&
      (config as { eventName?: unknown }).eventName === name
    );
  });
}

const references = (documents: readonly { _id: string; name: string }[]): UsageReference[] =>
  documents
    .map(({ _id, name }) => ({ id: _id, name }))
    .sort((a, b) => (a.name === b.name ? (a.id < b.id ? -1 : 1) : a.name < b.name ? -1 : 1));

/**
 * The workflows, segments and campaigns of the project that reference event `name`. Reads the
 * project's documents of each view (O(resources of the project)); empty lists while those views
 * are empty.
 */
export async function eventUsage(
  views: ViewStore,
  projectId: string,
  name: string,
): Promise<TrackedEventUsage> {
  const workflows = await views
    .collection<WorkflowViewDocument & ViewDocument>(WORKFLOWS_VIEW)
    .find({ projectId });
  const segments = await views
    .collection<SegmentViewDocument & ViewDocument>(SEGMENTS_VIEW)
    .find({ projectId });
  const campaigns = await views
    .collection<CampaignViewDocument & ViewDocument>(CAMPAIGNS_VIEW)
    .find({ projectId });
  return {
    workflows: references(workflows.filter((workflow) => workflowUsesEvent(workflow, name))),
    segments: references(segments.filter((segment) => referencesEvent(segment.condition, name))),
    campaigns: references(
      campaigns.filter((campaign) => referencesEvent(campaign.audienceFilter, name)),
    ),
  };
}
