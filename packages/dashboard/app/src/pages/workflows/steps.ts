/**
 * The steps of a workflow as the editor handles them (API reference, "Workflow step config"): the
 * seven step types in words, a form draft of each type's config, and the conversions between a
 * draft and the API's config.
 */
import type { Schema } from '../../api/client';
import type { operations } from '../../api/schema';

/** A step of a workflow. */
export type Step = Schema<'WorkflowStep'>;
/** A transition between two steps. */
export type Transition = Schema<'WorkflowTransition'>;
/** Every step type, the trigger included. */
export type StepType = Step['type'];
/** The body of `POST /workflows/:id/steps`. */
export type StepBody =
  operations['postWorkflowsByIdSteps']['requestBody']['content']['application/json'];
/** The step types a person can add (the trigger comes with the workflow). */
export type AddableType = StepBody['type'];
/** A unit of time of a delay or a timeout. */
export type Unit = 'minutes' | 'hours' | 'days';
/** How a value of a condition or a contact update is written. */
export type ValueKind = 'string' | 'number' | 'boolean';

/** The step types in words, with what each does. */
export const STEP_TYPES: Record<StepType, { label: string; description: string }> = {
  TRIGGER: { label: 'Trigger', description: 'Where every run of the workflow starts.' },
  SEND_EMAIL: { label: 'Send email', description: 'Sends a template to the contact.' },
  DELAY: { label: 'Delay', description: 'Waits for a number of minutes, hours or days.' },
  WAIT_FOR_EVENT: {
    label: 'Wait for event',
    description: 'Waits until the contact does something, or until a timeout.',
  },
  CONDITION: {
    label: 'Condition',
    description: 'Goes one way or another depending on the contact or the event.',
  },
  WEBHOOK: { label: 'Webhook', description: 'Calls an address on the web.' },
  UPDATE_CONTACT: {
    label: 'Update contact',
    description: "Changes the contact's data or subscription.",
  },
  EXIT: { label: 'Exit', description: 'Ends the run here.' },
};

/** The addable step types, in the order offered. */
export const ADDABLE_TYPES: readonly AddableType[] = [
  'SEND_EMAIL',
  'DELAY',
  'WAIT_FOR_EVENT',
  'CONDITION',
  'WEBHOOK',
  'UPDATE_CONTACT',
  'EXIT',
];

/** Seconds in each unit. */
export const UNIT_SECONDS: Record<Unit, number> = { minutes: 60, hours: 3600, days: 86_400 };

/** The operators of a CONDITION step, in words. */
export const CONDITION_OPERATORS = [
  { value: 'equals', label: 'is' },
  { value: 'notEquals', label: 'is not' },
  { value: 'contains', label: 'contains' },
  { value: 'notContains', label: 'does not contain' },
  { value: 'greaterThan', label: 'is greater than' },
  { value: 'greaterThanOrEqual', label: 'is at least' },
  { value: 'lessThan', label: 'is less than' },
  { value: 'lessThanOrEqual', label: 'is at most' },
  { value: 'exists', label: 'is set' },
  { value: 'notExists', label: 'is not set' },
] as const;

/** An operator of a CONDITION step. */
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number]['value'];

/** A contact data change of an UPDATE_CONTACT step: a key and its new value, or its removal. */
export interface ContactUpdate {
  key: string;
  kind: ValueKind | 'remove';
  value: string;
}

/** The form of each type's config. */
export type StepDraft =
  | {
      type: 'SEND_EMAIL';
      templateId: string;
      recipient: 'CONTACT' | 'CUSTOM';
      customEmail: string;
    }
  | { type: 'DELAY'; amount: number | ''; unit: Unit }
  | { type: 'WAIT_FOR_EVENT'; eventName: string; timeout: number | ''; timeoutUnit: Unit }
  | {
      type: 'CONDITION';
      field: string;
      operator: ConditionOperator;
      kind: ValueKind;
      value: string;
    }
  | {
      type: 'WEBHOOK';
      url: string;
      method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
      headers: { name: string; value: string }[];
      body: string;
    }
  | {
      type: 'UPDATE_CONTACT';
      updates: ContactUpdate[];
      subscriptionAction: 'none' | 'subscribe' | 'unsubscribe';
    }
  | { type: 'EXIT'; reason: string };

/** A new, empty draft of `type`. */
export function emptyDraft(type: AddableType): StepDraft {
  switch (type) {
    case 'SEND_EMAIL':
      return { type, templateId: '', recipient: 'CONTACT', customEmail: '' };
    case 'DELAY':
      return { type, amount: 1, unit: 'days' };
    case 'WAIT_FOR_EVENT':
      return { type, eventName: '', timeout: '', timeoutUnit: 'days' };
    case 'CONDITION':
      return { type, field: '', operator: 'equals', kind: 'string', value: '' };
    case 'WEBHOOK':
      return { type, url: '', method: 'POST', headers: [], body: '' };
    case 'UPDATE_CONTACT':
      return { type, updates: [], subscriptionAction: 'none' };
    case 'EXIT':
      return { type, reason: '' };
  }
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const isUnit = (value: unknown): value is Unit =>
  value === 'minutes' || value === 'hours' || value === 'days';

/** `seconds` in the largest unit that divides it. */
function inUnits(seconds: number): { amount: number; unit: Unit } {
  if (seconds % UNIT_SECONDS.days === 0)
    return { amount: seconds / UNIT_SECONDS.days, unit: 'days' };
  if (seconds % UNIT_SECONDS.hours === 0) {
    return { amount: seconds / UNIT_SECONDS.hours, unit: 'hours' };
  }
  return { amount: seconds / UNIT_SECONDS.minutes, unit: 'minutes' };
}

/** A text, number or yes/no value as the text of a form field (empty for anything else). */
function scalarText(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : '';
}

function kindOf(value: unknown): ValueKind {
  return typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'string';
}

/** The draft of a step's config as the API holds it (undefined for the trigger). */
export function draftOf(step: Step): StepDraft | undefined {
  const config = step.config;
  switch (step.type) {
    case 'TRIGGER':
      return undefined;
    case 'SEND_EMAIL': {
      const recipient = config.recipient;
      const custom =
        typeof recipient === 'object' &&
        recipient !== null &&
        'type' in recipient &&
        recipient.type === 'CUSTOM';
      return {
        type: 'SEND_EMAIL',
        templateId: text(config.templateId),
        recipient: custom ? 'CUSTOM' : 'CONTACT',
        customEmail: custom && 'customEmail' in recipient ? text(recipient.customEmail) : '',
      };
    }
    case 'DELAY':
      return {
        type: 'DELAY',
        amount: typeof config.amount === 'number' ? config.amount : '',
        unit: isUnit(config.unit) ? config.unit : 'days',
      };
    case 'WAIT_FOR_EVENT': {
      const timeout = typeof config.timeout === 'number' ? inUnits(config.timeout) : undefined;
      return {
        type: 'WAIT_FOR_EVENT',
        eventName: text(config.eventName),
        timeout: timeout?.amount ?? '',
        timeoutUnit: timeout?.unit ?? 'days',
      };
    }
    case 'CONDITION': {
      const operator = CONDITION_OPERATORS.find((item) => item.value === config.operator);
      return {
        type: 'CONDITION',
        field: text(config.field),
        operator: operator?.value ?? 'equals',
        kind: kindOf(config.value),
        value: scalarText(config.value),
      };
    }
    case 'WEBHOOK': {
      const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
      const method = methods.find((item) => item === config.method) ?? 'POST';
      const headers =
        typeof config.headers === 'object' && config.headers !== null
          ? Object.entries(config.headers).map(([name, value]) => ({ name, value: text(value) }))
          : [];
      const body =
        typeof config.body === 'string'
          ? config.body
          : config.body === undefined
            ? ''
            : JSON.stringify(config.body, null, 2);
      return { type: 'WEBHOOK', url: text(config.url), method, headers, body };
    }
    case 'UPDATE_CONTACT': {
      const updates =
        typeof config.updates === 'object' && config.updates !== null
          ? Object.entries(config.updates).map(([key, value]): ContactUpdate => ({
              key,
              kind: value === null ? 'remove' : kindOf(value),
              value: scalarText(value),
            }))
          : [];
      const actions = ['none', 'subscribe', 'unsubscribe'] as const;
      return {
        type: 'UPDATE_CONTACT',
        updates,
        subscriptionAction: actions.find((item) => item === config.subscriptionAction) ?? 'none',
      };
    }
    case 'EXIT':
      return { type: 'EXIT', reason: text(config.reason) };
  }
}

/**
 * `value` written as `kind`: text as is, a number (NaN when there is none, which the API
 * refuses), or yes/no.
 */
export function typedValue(value: string, kind: ValueKind): string | number | boolean {
  if (kind === 'number') return value.trim() === '' ? Number.NaN : Number(value);
  if (kind === 'boolean') return value === 'true';
  return value;
}

/** The API's step body (without name and position) of `draft`. */
export function bodyOf(draft: StepDraft): StepBody {
  switch (draft.type) {
    case 'SEND_EMAIL':
      return {
        type: draft.type,
        config: {
          templateId: draft.templateId,
          recipient:
            draft.recipient === 'CUSTOM'
              ? { type: 'CUSTOM', customEmail: draft.customEmail.trim() }
              : { type: 'CONTACT' },
        },
      };
    case 'DELAY':
      return {
        type: draft.type,
        config: { amount: draft.amount === '' ? 0 : draft.amount, unit: draft.unit },
      };
    case 'WAIT_FOR_EVENT':
      return {
        type: draft.type,
        config: {
          eventName: draft.eventName.trim(),
          ...(draft.timeout === ''
            ? {}
            : { timeout: draft.timeout * UNIT_SECONDS[draft.timeoutUnit] }),
        },
      };
    case 'CONDITION': {
      const takesValue = draft.operator !== 'exists' && draft.operator !== 'notExists';
      return {
        type: draft.type,
        config: {
          field: draft.field.trim(),
          operator: draft.operator,
          ...(takesValue ? { value: typedValue(draft.value, draft.kind) } : {}),
        },
      };
    }
    case 'WEBHOOK': {
      const headers = draft.headers.filter((header) => header.name.trim() !== '');
      return {
        type: draft.type,
        config: {
          url: draft.url.trim(),
          method: draft.method,
          ...(headers.length === 0
            ? {}
            : {
                headers: Object.fromEntries(
                  headers.map((header) => [header.name.trim(), header.value]),
                ),
              }),
          ...(draft.body === '' ? {} : { body: draft.body }),
        },
      };
    }
    case 'UPDATE_CONTACT': {
      const updates = draft.updates.filter((update) => update.key.trim() !== '');
      return {
        type: draft.type,
        config: {
          ...(updates.length === 0
            ? {}
            : {
                updates: Object.fromEntries(
                  updates.map((update) => [
                    update.key.trim(),
                    update.kind === 'remove' ? null : typedValue(update.value, update.kind),
                  ]),
                ),
              }),
          subscriptionAction: draft.subscriptionAction,
        },
      };
    }
    case 'EXIT':
      return {
        type: draft.type,
        config: draft.reason.trim() === '' ? {} : { reason: draft.reason.trim() },
      };
  }
}

/** The ways out of a step of `type`: one next step, yes/no branches, event/timeout, or none. */
export interface Outlet {
  /** The handle of the graph and the key of the form. */
  key: string;
  label: string;
  branch: 'yes' | 'no' | null;
  waitOutcome: 'EVENT' | 'TIMEOUT' | null;
}

/** The outlets of a step of `type`, in order. */
export function outletsOf(type: StepType): Outlet[] {
  switch (type) {
    case 'CONDITION':
      return [
        { key: 'yes', label: 'If yes', branch: 'yes', waitOutcome: null },
        { key: 'no', label: 'If no', branch: 'no', waitOutcome: null },
      ];
    case 'WAIT_FOR_EVENT':
      return [
        { key: 'EVENT', label: 'When the event happens', branch: null, waitOutcome: 'EVENT' },
        { key: 'TIMEOUT', label: 'When the wait times out', branch: null, waitOutcome: 'TIMEOUT' },
      ];
    case 'EXIT':
      return [];
    default:
      return [{ key: 'next', label: 'Next step', branch: null, waitOutcome: null }];
  }
}

/** The key of the way out that `transition` leaves its step by: `next`, a branch or an outcome. */
export function outletOf(transition: Transition): string {
  return transition.branch ?? transition.waitOutcome ?? 'next';
}

/** One line on what a step does (for its node in the graph). */
export function summaryOf(
  step: Step,
  workflow: Pick<Schema<'Workflow'>, 'triggerType' | 'eventName'>,
  templateName: (id: string) => string | undefined,
): string {
  const draft = draftOf(step);
  if (draft === undefined) return triggerSummary(workflow);
  switch (draft.type) {
    case 'SEND_EMAIL':
      return `Send "${templateName(draft.templateId) ?? draft.templateId}"${draft.recipient === 'CUSTOM' ? ` to ${draft.customEmail}` : ''}`;
    case 'DELAY':
      return `Wait ${draft.amount} ${draft.unit}`;
    case 'WAIT_FOR_EVENT':
      return `Wait for "${draft.eventName}"${draft.timeout === '' ? '' : `, at most ${draft.timeout} ${draft.timeoutUnit}`}`;
    case 'CONDITION': {
      const operator = CONDITION_OPERATORS.find((item) => item.value === draft.operator);
      const takesValue = draft.operator !== 'exists' && draft.operator !== 'notExists';
      return `${draft.field} ${operator?.label ?? draft.operator}${takesValue ? ` ${draft.value}` : ''}`;
    }
    case 'WEBHOOK':
      return `${draft.method} ${draft.url}`;
    case 'UPDATE_CONTACT': {
      const parts = draft.updates.map((update) => update.key);
      if (draft.subscriptionAction !== 'none') parts.push(draft.subscriptionAction);
      return parts.length === 0 ? 'No changes' : `Change ${parts.join(', ')}`;
    }
    case 'EXIT':
      return draft.reason === '' ? 'End the run' : `End: ${draft.reason}`;
  }
}

/** What starts a workflow, in words. */
export function triggerSummary(
  workflow: Pick<Schema<'Workflow'>, 'triggerType' | 'eventName'>,
): string {
  switch (workflow.triggerType) {
    case 'EVENT':
      return `When "${workflow.eventName}" is tracked`;
    case 'MANUAL':
      return 'When started by hand';
    case 'SCHEDULE':
      return 'On a schedule';
  }
}
