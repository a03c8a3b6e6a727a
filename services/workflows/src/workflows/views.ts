/**
 * The `workflows` view (one document per workflow that was not deleted, read also by templates,
 * contacts and activity through the contracts), its projection, and the resource the routes
 * answer.
 */
import { entityIdOf, WORKFLOWS_VIEW } from '@stamp/contracts';
import type {
  EventHandler,
  RecordedEvent,
  ViewCollection,
  ViewDocument,
  ViewStore,
} from '@stamp/platform';

import {
  evolveWorkflow,
  type KnownWorkflow,
  type Step,
  type Transition,
  WORKFLOW_EVENT_TYPES,
  type WorkflowEvent,
  type WorkflowSettings,
} from './events.ts';

export { WORKFLOWS_VIEW };

/** Consumer group of the projection. */
export const WORKFLOWS_VIEW_GROUP = 'workflows-view';

/** A document of the `workflows` view (`_id` = workflow id; dates ISO 8601). */
export interface WorkflowView extends ViewDocument, WorkflowSettings {
  projectId: string;
  steps: Step[];
  transitions: Transition[];
  createdAt: string;
  updatedAt: string;
  /** Event names its WAIT_FOR_EVENT steps wait for: which events may resume its executions. */
  waitEventNames: string[];
  /** Revision of the workflow stream the document reflects. */
  revision: number;
}

/** The workflows view collection. */
export const workflowsView = (views: ViewStore): ViewCollection<WorkflowView> =>
  views.collection<WorkflowView>(WORKFLOWS_VIEW);

const documentOf = (workflow: KnownWorkflow, revision: number): WorkflowView => ({
  _id: workflow.id,
  projectId: workflow.projectId,
  ...workflow.settings,
  steps: workflow.steps,
  transitions: workflow.transitions,
  createdAt: workflow.createdAt,
  updatedAt: workflow.updatedAt,
  waitEventNames: [
    ...new Set(
      workflow.steps
        .filter((step) => step.type === 'WAIT_FOR_EVENT')
        .map((step) => String(step.config.eventName)),
    ),
  ],
  revision,
});

const stateOf = (document: WorkflowView): KnownWorkflow => ({
  exists: true,
  deleted: false,
  id: document._id,
  projectId: document.projectId,
  settings: {
    name: document.name,
    description: document.description,
    eventName: document.eventName,
    triggerType: document.triggerType,
    enabled: document.enabled,
    allowReentry: document.allowReentry,
  },
  steps: document.steps,
  transitions: document.transitions,
  createdAt: document.createdAt,
  updatedAt: document.updatedAt,
});

/**
 * The projection's handler (group `workflows-view`, topic `workflow`): folds each event into the
 * workflow's document, written only when the document reflects an earlier revision (replays and
 * redeliveries change nothing); a deleted workflow's document is removed.
 */
export function workflowsProjection(views: ViewStore): EventHandler {
  const collection = workflowsView(views);
  return async (event: RecordedEvent) => {
    if (!WORKFLOW_EVENT_TYPES.has(event.type)) return;
    const typed = { type: event.type, data: event.data } as WorkflowEvent;
    const id = entityIdOf(event.streamId);
    const current = await collection.findOne({ _id: id });
    if (current !== null && current.revision >= event.revision) return;
    if (current === null && typed.type !== 'WorkflowCreated') return;
    const next = evolveWorkflow(current === null ? { exists: false } : stateOf(current), typed);
    if (!next.exists) return;
    if (next.deleted) {
      await collection.deleteOne({ _id: id });
      return;
    }
    await collection.replaceOne({ _id: id }, documentOf(next, event.revision), { upsert: true });
  };
}

/** A workflow as the routes answer it (spec part 2 "Workflow"). */
export interface WorkflowResource extends WorkflowSettings {
  id: string;
  projectId: string;
  steps: Step[];
  transitions: Transition[];
  createdAt: string;
  updatedAt: string;
}

/** The resource of a view document. */
export const toResource = (document: WorkflowView): WorkflowResource => ({
  id: document._id,
  projectId: document.projectId,
  name: document.name,
  description: document.description,
  eventName: document.eventName,
  triggerType: document.triggerType,
  enabled: document.enabled,
  allowReentry: document.allowReentry,
  steps: document.steps,
  transitions: document.transitions,
  createdAt: document.createdAt,
  updatedAt: document.updatedAt,
});
