/**
 * Events of workflow definitions (stream `workflow-<workflowId>`) and the state they fold into
 * (spec parts 2 and 3, "Workflow"; API reference, "Enums" and "Workflow step config").
 */
import type { StreamModel } from '@stamp/platform';

/** Stream category of workflow definitions. */
export const WORKFLOW_CATEGORY = 'workflow';

/** Step types (API reference, "Enums"); TRIGGER is the implicit first step. */
export const STEP_TYPES = [
  'TRIGGER',
  'SEND_EMAIL',
  'DELAY',
  'WAIT_FOR_EVENT',
  'CONDITION',
  'WEBHOOK',
  'UPDATE_CONTACT',
  'EXIT',
] as const;

/** A step type. */
export type StepType = (typeof STEP_TYPES)[number];

/** Trigger types (API reference, "Enums"). */
export type TriggerType = 'EVENT' | 'MANUAL' | 'SCHEDULE';

/** A step of a workflow's graph; `config` has the shape of its type (see `steps.ts`). */
export interface Step {
  id: string;
  type: StepType;
  name: string;
  config: Record<string, unknown>;
  /** Where an editor draws it; kept as given. */
  position: { x: number; y: number } | null;
}

/** Branch of a transition out of a CONDITION step. */
export type Branch = 'yes' | 'no';
/** Outcome of a transition out of a WAIT_FOR_EVENT step. */
export type WaitOutcome = 'EVENT' | 'TIMEOUT';

/** A transition between two steps of the same workflow. */
export interface Transition {
  id: string;
  fromStepId: string;
  toStepId: string;
  branch: Branch | null;
  waitOutcome: WaitOutcome | null;
}

/** The metadata of a workflow (PATCH /workflows/:id changes any of them). */
export interface WorkflowSettings {
  name: string;
  description: string | null;
  /** Name of the event whose occurrence starts an execution (trigger EVENT). */
  eventName: string;
  triggerType: TriggerType;
  enabled: boolean;
  allowReentry: boolean;
}

/** A workflow event. */
export type WorkflowEvent =
  | {
      type: 'WorkflowCreated';
      data: WorkflowSettings & {
        workflowId: string;
        projectId: string;
        trigger: Step;
        createdAt: string;
      };
    }
  | { type: 'WorkflowUpdated'; data: { changes: Partial<WorkflowSettings>; updatedAt: string } }
  | { type: 'WorkflowDeleted'; data: { deletedAt: string } }
  | { type: 'WorkflowStepAdded'; data: { step: Step; updatedAt: string } }
  | { type: 'WorkflowStepUpdated'; data: { step: Step; updatedAt: string } }
  /** The step and its transitions are gone; `spliced` reconnects its predecessor (splice=true). */
  | {
      type: 'WorkflowStepRemoved';
      data: { stepId: string; spliced: Transition | null; updatedAt: string };
    }
  | { type: 'WorkflowTransitionAdded'; data: { transition: Transition; updatedAt: string } }
  | { type: 'WorkflowTransitionRemoved'; data: { transitionId: string; updatedAt: string } };

/** A workflow that exists (or existed). */
export interface KnownWorkflow {
  exists: true;
  deleted: boolean;
  id: string;
  projectId: string;
  settings: WorkflowSettings;
  /** The TRIGGER step first, then the others in the order they were added. */
  steps: Step[];
  transitions: Transition[];
  createdAt: string;
  updatedAt: string;
}

/** State of a workflow stream. */
export type WorkflowState = { exists: false } | KnownWorkflow;

/** Stream of a workflow. */
export const workflowStream = (workflowId: string): string => `${WORKFLOW_CATEGORY}-${workflowId}`;

/** Applies one workflow event. Pure. */
export function evolveWorkflow(state: WorkflowState, event: WorkflowEvent): WorkflowState {
  if (event.type === 'WorkflowCreated') {
    const { workflowId, projectId, trigger, createdAt, ...settings } = event.data;
    return {
      exists: true,
      deleted: false,
      id: workflowId,
      projectId,
      settings,
      steps: [trigger],
      transitions: [],
      createdAt,
      updatedAt: createdAt,
    };
  }
  if (!state.exists) return state;
  switch (event.type) {
    case 'WorkflowUpdated':
      return {
        ...state,
        settings: { ...state.settings, ...event.data.changes },
        updatedAt: event.data.updatedAt,
      };
    case 'WorkflowDeleted':
      return { ...state, deleted: true };
    case 'WorkflowStepAdded':
      return {
        ...state,
        steps: [...state.steps, event.data.step],
        updatedAt: event.data.updatedAt,
      };
    case 'WorkflowStepUpdated': {
      const { step } = event.data;
      return {
        ...state,
        steps: state.steps.map((existing) => (existing.id === step.id ? step : existing)),
        updatedAt: event.data.updatedAt,
      };
    }
    case 'WorkflowStepRemoved': {
      const { stepId, spliced } = event.data;
      const kept = state.transitions.filter(
        (transition) => transition.fromStepId !== stepId && transition.toStepId !== stepId,
      );
      return {
        ...state,
        steps: state.steps.filter((step) => step.id !== stepId),
        transitions: spliced === null ? kept : [...kept, spliced],
        updatedAt: event.data.updatedAt,
      };
    }
    case 'WorkflowTransitionAdded':
      return {
        ...state,
        transitions: [...state.transitions, event.data.transition],
        updatedAt: event.data.updatedAt,
      };
    case 'WorkflowTransitionRemoved':
      return {
        ...state,
        transitions: state.transitions.filter(
          (transition) => transition.id !== event.data.transitionId,
        ),
        updatedAt: event.data.updatedAt,
      };
  }
}

/** The event types of workflow streams. */
export const WORKFLOW_EVENT_TYPES: ReadonlySet<string> = new Set<WorkflowEvent['type']>([
  'WorkflowCreated',
  'WorkflowUpdated',
  'WorkflowDeleted',
  'WorkflowStepAdded',
  'WorkflowStepUpdated',
  'WorkflowStepRemoved',
  'WorkflowTransitionAdded',
  'WorkflowTransitionRemoved',
]);

/** How workflow streams fold (for `streamCommands`). */
export const workflowModel: StreamModel<WorkflowState, WorkflowEvent> = {
  stream: workflowStream,
  initial: () => ({ exists: false }),
  evolve: evolveWorkflow,
  types: WORKFLOW_EVENT_TYPES,
};
