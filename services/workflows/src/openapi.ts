/**
 * The workflows service's routes in the OpenAPI document (spec part 4, "Workflows"; API
 * reference, "Workflow step config" and "Enums").
 */
import { cursorPageSchema, deletedSchema, isoTimestamp, type RouteDoc } from '@stamp/http-kit';
import { z } from 'zod';

import { executionsQuery, spliceQuery, startBody } from './api.ts';
import { STEP_TYPES } from './workflows/events.ts';
import {
  createBody,
  patchBody,
  stepBody,
  stepPatchBody,
  transitionBody,
} from './workflows/steps.ts';

const stepSchema = z
  .object({
    id: z.string(),
    type: z.enum(STEP_TYPES),
    name: z.string(),
    config: z.record(z.string(), z.unknown()).describe('The config of the step type'),
    position: z.object({ x: z.number(), y: z.number() }).nullable(),
  })
  .meta({ id: 'WorkflowStep' });

const transitionSchema = z
  .object({
    id: z.string(),
    fromStepId: z.string(),
    toStepId: z.string(),
    branch: z.enum(['yes', 'no']).nullable(),
    waitOutcome: z.enum(['EVENT', 'TIMEOUT']).nullable(),
  })
  .meta({ id: 'WorkflowTransition' });

/** A workflow with its graph. */
const workflowSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    eventName: z.string(),
    triggerType: z.enum(['EVENT', 'MANUAL', 'SCHEDULE']),
    enabled: z.boolean(),
    allowReentry: z.boolean(),
    steps: z.array(stepSchema),
    transitions: z.array(transitionSchema),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'Workflow' });

/** An execution of a workflow for one contact. */
const executionSchema = z
  .object({
    id: z.string(),
    workflowId: z.string(),
    contactId: z.string(),
    status: z.enum(['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED']),
    currentStepId: z.string().nullable(),
    context: z.record(z.string(), z.unknown()),
    exitReason: z.string().nullable(),
    error: z.string().nullable(),
    waitingFor: z.string().nullable(),
    nextRunAt: isoTimestamp.nullable(),
    history: z.array(
      z.object({
        stepId: z.string(),
        stepType: z.enum(STEP_TYPES),
        outcome: z.string(),
        output: z.record(z.string(), z.unknown()).nullable(),
        startedAt: isoTimestamp,
        completedAt: isoTimestamp,
      }),
    ),
    startedAt: isoTimestamp,
    completedAt: isoTimestamp.nullable(),
  })
  .meta({ id: 'WorkflowExecution' });

const notFound = { 404: { description: 'WORKFLOW_NOT_FOUND' } };
const changed = {
  200: { description: 'The workflow', schema: workflowSchema },
  404: { description: 'WORKFLOW_NOT_FOUND, or the step or transition' },
  409: { description: 'The workflow has active executions' },
};
const deleted = deletedSchema;

/** Routes of the workflows service. */
export const WORKFLOWS_ROUTES: readonly RouteDoc[] = [
  {
    method: 'get',
    path: '/workflows',
    summary: "The project's workflows, newest first",
    auth: 'secret',
    responses: { 200: { description: 'The workflows', schema: z.array(workflowSchema) } },
  },
  {
    method: 'get',
    path: '/workflows/fields',
    summary: 'Fields usable in CONDITION steps',
    auth: 'secret',
    responses: {
      200: {
        description: 'Contact fields, custom data fields and event names',
        schema: z.object({
          contact: z.array(z.string()),
          data: z.array(z.string()),
          event: z.array(z.string()),
        }),
      },
    },
  },
  {
    method: 'post',
    path: '/workflows',
    summary: 'Create a workflow (trigger EVENT, disabled)',
    auth: 'secret',
    body: createBody,
    responses: { 201: { description: 'The workflow', schema: workflowSchema } },
  },
  {
    method: 'get',
    path: '/workflows/{id}',
    summary: 'Get a workflow with its steps and transitions',
    auth: 'secret',
    responses: { 200: { description: 'The workflow', schema: workflowSchema }, ...notFound },
  },
  {
    method: 'patch',
    path: '/workflows/{id}',
    summary: 'Update settings, trigger, enabled or allowReentry',
    auth: 'secret',
    body: patchBody,
    responses: { 200: { description: 'The workflow', schema: workflowSchema }, ...notFound },
  },
  {
    method: 'delete',
    path: '/workflows/{id}',
    summary: 'Delete a workflow (its executions must have ended)',
    auth: 'secret',
    responses: {
      200: { description: 'Deleted', schema: deleted },
      ...notFound,
      409: { description: 'The workflow has active executions' },
    },
  },
  {
    method: 'post',
    path: '/workflows/{id}/steps',
    summary: 'Add a step',
    auth: 'secret',
    body: stepBody,
    responses: {
      201: { description: 'The step', schema: stepSchema },
      ...notFound,
      409: { description: 'The workflow has active executions' },
    },
  },
  {
    method: 'patch',
    path: '/workflows/{id}/steps/{stepId}',
    summary: "Update a step's name, position or config",
    auth: 'secret',
    body: stepPatchBody,
    responses: {
      200: { description: 'The step', schema: stepSchema },
      404: { description: 'WORKFLOW_NOT_FOUND or STEP_NOT_FOUND' },
      409: { description: 'The workflow has active executions' },
    },
  },
  {
    method: 'delete',
    path: '/workflows/{id}/steps/{stepId}',
    summary: 'Delete a step (`splice=true` reconnects its neighbours)',
    auth: 'secret',
    query: spliceQuery,
    responses: changed,
  },
  {
    method: 'post',
    path: '/workflows/{id}/transitions',
    summary: 'Connect two steps',
    auth: 'secret',
    body: transitionBody,
    responses: {
      201: { description: 'The transition', schema: transitionSchema },
      ...notFound,
      409: { description: 'The workflow has active executions' },
    },
  },
  {
    method: 'delete',
    path: '/workflows/{id}/transitions/{transitionId}',
    summary: 'Delete a transition',
    auth: 'secret',
    responses: changed,
  },
  {
    method: 'post',
    path: '/workflows/{id}/executions',
    summary: 'Start an execution for a contact',
    auth: 'secret',
    body: startBody,
    responses: {
      201: { description: 'The execution', schema: executionSchema },
      404: { description: 'WORKFLOW_NOT_FOUND or CONTACT_NOT_FOUND' },
    },
  },
  {
    method: 'get',
    path: '/workflows/{id}/executions',
    summary: 'Executions of a workflow, latest first (cursor list)',
    auth: 'secret',
    query: executionsQuery,
    responses: {
      200: { description: 'A page of executions', schema: cursorPageSchema(executionSchema) },
      ...notFound,
    },
  },
  {
    method: 'get',
    path: '/workflows/{id}/executions/{executionId}',
    summary: 'Get an execution',
    auth: 'secret',
    responses: {
      200: { description: 'The execution', schema: executionSchema },
      404: { description: 'EXECUTION_NOT_FOUND' },
    },
  },
  {
    method: 'delete',
    path: '/workflows/{id}/executions/{executionId}',
    summary: 'Cancel a running or waiting execution',
    auth: 'secret',
    responses: {
      200: { description: 'The execution', schema: executionSchema },
      404: { description: 'EXECUTION_NOT_FOUND' },
    },
  },
  {
    method: 'post',
    path: '/workflows/{id}/executions/cancel-all',
    summary: 'Cancel every active execution of a workflow',
    auth: 'secret',
    responses: {
      200: {
        description: 'The number cancelled',
        schema: z.object({ success: z.literal(true), cancelled: z.int().min(0) }),
      },
      ...notFound,
    },
  },
];
