/**
 * Routes of workflows (spec part 4 "Workflows", secret key): the definition (workflows, steps,
 * transitions) and its executions (start by hand, list, read, cancel one, cancel all).
 */
import {
  caller,
  cursorQuery,
  findCursorPage,
  notFound,
  parse,
  validationError,
  type FieldError,
} from '@stamp/http-kit';
import {
  type EventStore,
  foldStream,
  newId,
  type StreamCommands,
  type ViewDocument,
  type ViewStore,
  withRevisionRetry,
} from '@stamp/platform';
import {
  type AwaitViews,
  CONTACTS_VIEW,
  type ContactViewDocument,
  type WorkflowEmailsApi,
} from '@stamp/contracts';
import { type Response, Router } from 'express';
import { z } from 'zod';

import { decideCancel } from './executions/decide.ts';
import { decisionAppends } from './executions/engine.ts';
import { ACTIVE_STATUSES, executionModel, executionStream } from './executions/events.ts';
import { startExecution } from './executions/start.ts';
import { executionsView, toExecutionResource } from './executions/views.ts';
import {
  decideAddStep,
  decideAddTransition,
  decideCreate,
  decideDelete,
  decideRemoveStep,
  decideRemoveTransition,
  decideUpdate,
  decideUpdateStep,
  requireWorkflow,
} from './workflows/decide.ts';
import type {
  KnownWorkflow,
  Step,
  StepType,
  WorkflowEvent,
  WorkflowState,
} from './workflows/events.ts';
import {
  configSchema,
  createBody,
  patchBody,
  stepBody,
  stepPatchBody,
  transitionBody,
} from './workflows/steps.ts';
import { toResource, workflowsView } from './workflows/views.ts';

/** Dependencies of {@link workflowsRouter}. */
export interface WorkflowsRouterDeps {
  store: EventStore;
  views: ViewStore;
  workflows: StreamCommands<WorkflowState, WorkflowEvent>;
  sending: WorkflowEmailsApi;
  awaitViews: AwaitViews;
  now?: () => Date;
}

/** Body of POST /workflows/:id/executions. */
export const startBody = z.object({
  contactId: z.string().min(1).max(255),
  context: z.record(z.string(), z.unknown()).optional(),
});
/** Query of GET /workflows/:id/executions. */
export const executionsQuery = cursorQuery.extend({
  status: z.enum(['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED']).optional(),
});
/** Query of DELETE /workflows/:id/steps/:stepId. */
export const spliceQuery = z.object({ splice: z.enum(['true', 'false']).optional() });

/** The fields a CONDITION step may read besides custom data and event data. */
const CONTACT_FIELDS = [
  'contact.id',
  'contact.email',
  'contact.subscribed',
  'contact.createdAt',
  'contact.updatedAt',
];

/** Builds the router. */
export function workflowsRouter(deps: WorkflowsRouterDeps): Router {
  const clock = deps.now ?? (() => new Date());
  const { workflows } = deps;
  const executions = executionsView(deps.views);
  const router = Router();

  const active = (workflowId: string): Promise<number> =>
    executions.countDocuments({ workflowId, status: { $in: [...ACTIVE_STATUSES] } });

  /** A step's config checked for its type, problems named `config.<path>`. */
  const validConfig = (
    type: StepType,
    config: Record<string, unknown>,
  ): Record<string, unknown> => {
    if (type === 'TRIGGER') {
      throw validationError([
        { field: 'config', message: 'The trigger has no config to change', code: 'trigger_step' },
      ]);
    }
    const result = configSchema(type).safeParse(config);
    if (!result.success) {
      throw validationError(
        result.error.issues.map((issue) => ({
          field: ['config', ...issue.path.map(String)].join('.'),
          message: issue.message,
          code: issue.code,
        })),
      );
    }
    return result.data;
  };

  /** @throws ApiError 422 on `config.templateId` when the project has no such template. */
  async function checkTemplate(
    projectId: string,
    step: { type: string; config: Record<string, unknown> },
  ): Promise<void> {
    if (step.type !== 'SEND_EMAIL') return;
    const templateId = String(step.config.templateId);
    if (!(await deps.sending.templateExists(projectId, templateId))) {
      const problem: FieldError = {
        field: 'config.templateId',
        message: `The project has no template ${templateId}`,
        code: 'unknown_template',
      };
      throw validationError([problem]);
    }
  }

  async function answer(
    res: Response,
    workflow: KnownWorkflow,
    position: number,
    status = 200,
  ): Promise<void> {
    await deps.awaitViews(position);
    const document = await workflowsView(deps.views).findOne({ _id: workflow.id });
    if (document === null) throw notFound('WORKFLOW_NOT_FOUND', 'Workflow not found');
    res.status(status).json(toResource(document));
  }

  const loaded = async (projectId: string, id: string): Promise<KnownWorkflow> =>
    requireWorkflow((await workflows.load(id)).state, projectId);

  router.get('/workflows', async (_req, res) => {
    const { projectId } = caller(res);
    const found = await workflowsView(deps.views).find(
      { projectId },
      { sort: { createdAt: -1, _id: -1 } },
    );
    res.json(found.map(toResource));
  });

  router.get('/workflows/fields', async (_req, res) => {
    const { projectId } = caller(res);
    const fields = await deps.views
      .collection<{ _id: string; projectId: string; field: string }>('contactFields')
      .find({ projectId }, { sort: { field: 1 } });
    const own = await workflowsView(deps.views).find({ projectId });
    const eventNames = new Set<string>();
    for (const workflow of own) {
      eventNames.add(workflow.eventName);
      for (const step of workflow.steps) {
        if (step.type === 'WAIT_FOR_EVENT') eventNames.add(String(step.config.eventName));
      }
    }
    res.json({
      contact: CONTACT_FIELDS,
      data: fields.map((field) => `data.${field.field}`),
      event: [...eventNames].sort(),
    });
  });

  router.post('/workflows', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const body = parse(createBody, req.body ?? {});
    const workflowId = newId();
    const created = await workflows.execute(
      workflowId,
      { projectId, correlationId: requestId },
      () =>
        decideCreate(
          {
            workflowId,
            projectId,
            triggerStepId: newId(),
            name: body.name,
            description: body.description ?? null,
            eventName: body.eventName,
            allowReentry: body.allowReentry ?? false,
          },
          clock(),
        ),
    );
    await answer(res, requireWorkflow(created.state, projectId), created.position, 201);
  });

  router.get('/workflows/:id', async (req, res) => {
    const { projectId } = caller(res);
    const document = await workflowsView(deps.views).findOne({ _id: req.params.id, projectId });
    if (document === null) throw notFound('WORKFLOW_NOT_FOUND', 'Workflow not found');
    res.json(toResource(document));
  });

  router.patch('/workflows/:id', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const body = parse(patchBody, req.body ?? {});
    const { description, ...rest } = body;
    const changes = { ...rest, ...(description === undefined ? {} : { description }) };
    const result = await workflows.execute(
      req.params.id,
      { projectId, correlationId: requestId },
      (current) => decideUpdate(current.state, projectId, changes, clock()),
    );
    await answer(res, requireWorkflow(result.state, projectId), result.position);
  });

  router.delete('/workflows/:id', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const id = req.params.id;
    const count = await active(id);
    const result = await workflows.execute(id, { projectId, correlationId: requestId }, (current) =>
      decideDelete(current.state, projectId, count, clock()),
    );
    await deps.awaitViews(result.position);
    res.json({ success: true, id });
  });

  router.post('/workflows/:id/steps', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const id = req.params.id;
    await loaded(projectId, id);
    const body = parse(stepBody, req.body ?? {});
    await checkTemplate(projectId, body);
    const step: Step = {
      id: newId(),
      type: body.type,
      name: body.name ?? body.type,
      config: body.config,
      position: body.position ?? null,
    };
    const count = await active(id);
    const result = await workflows.execute(id, { projectId, correlationId: requestId }, (current) =>
      decideAddStep(current.state, projectId, step, count, clock()),
    );
    await deps.awaitViews(result.position);
    res.status(201).json(step);
  });

  router.patch('/workflows/:id/steps/:stepId', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const { id, stepId } = req.params;
    const body = parse(stepPatchBody, req.body ?? {});
    // A new config names an existing template before anything is recorded.
    const before = (await loaded(projectId, id)).steps.find((step) => step.id === stepId);
    if (before !== undefined && body.config !== undefined) {
      await checkTemplate(projectId, { type: before.type, config: body.config });
    }
    const count = await active(id);
    const result = await workflows.execute(id, { projectId, correlationId: requestId }, (current) =>
      decideUpdateStep(current.state, projectId, stepId, body, validConfig, count, clock()),
    );
    const workflow = requireWorkflow(result.state, projectId);
    await deps.awaitViews(result.position);
    res.json(workflow.steps.find((candidate) => candidate.id === stepId));
  });

  router.delete('/workflows/:id/steps/:stepId', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const { id, stepId } = req.params;
    const { splice } = parse(spliceQuery, req.query);
    const count = await active(id);
    const result = await workflows.execute(id, { projectId, correlationId: requestId }, (current) =>
      decideRemoveStep(
        current.state,
        projectId,
        { stepId, splice: splice === 'true', transitionId: newId },
        count,
        clock(),
      ),
    );
    await answer(res, requireWorkflow(result.state, projectId), result.position);
  });

  router.post('/workflows/:id/transitions', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const id = req.params.id;
    await loaded(projectId, id);
    const body = parse(transitionBody, req.body ?? {});
    const transition = {
      id: newId(),
      fromStepId: body.fromStepId,
      toStepId: body.toStepId,
      branch: body.branch ?? null,
      waitOutcome: body.waitOutcome ?? null,
    };
    const count = await active(id);
    const result = await workflows.execute(id, { projectId, correlationId: requestId }, (current) =>
      decideAddTransition(current.state, projectId, transition, count, clock()),
    );
    await deps.awaitViews(result.position);
    res.status(201).json(transition);
  });

  router.delete('/workflows/:id/transitions/:transitionId', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const { id, transitionId } = req.params;
    const count = await active(id);
    const result = await workflows.execute(id, { projectId, correlationId: requestId }, (current) =>
      decideRemoveTransition(current.state, projectId, transitionId, count, clock()),
    );
    await answer(res, requireWorkflow(result.state, projectId), result.position);
  });

  router.post('/workflows/:id/executions', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const workflow = await loaded(projectId, req.params.id);
    const body = parse(startBody, req.body ?? {});
    const contact = await deps.views
      .collection<ContactViewDocument & ViewDocument>(CONTACTS_VIEW)
      .findOne({ _id: body.contactId, projectId });
    if (contact === null) throw notFound('CONTACT_NOT_FOUND', 'Contact not found');
    const result = await startExecution(deps.store, {
      workflow,
      contactId: body.contactId,
      context: body.context ?? {},
      triggerEventId: null,
      executionId: newId(),
      correlationId: requestId,
      now: clock(),
    });
    if (!result.started) {
      throw validationError([
        {
          field: 'contactId',
          message:
            result.reason === 'active'
              ? 'The contact has an active execution of this workflow'
              : 'The contact went through this workflow already and re-entry is off',
          code: result.reason ?? 'not_started',
        },
      ]);
    }
    await deps.awaitViews(result.position);
    const document = await executions.findOne({ _id: result.executionId });
    if (document === null) throw notFound('EXECUTION_NOT_FOUND', 'Execution not found');
    res.status(201).json(toExecutionResource(document));
  });

  router.get('/workflows/:id/executions', async (req, res) => {
    const { projectId } = caller(res);
    await loaded(projectId, req.params.id);
    const query = parse(executionsQuery, req.query);
    const filter = {
      projectId,
      workflowId: req.params.id,
      ...(query.status === undefined ? {} : { status: query.status }),
    };
    res.json(
      await findCursorPage(executions, filter, query, toExecutionResource, {
        field: 'startedAt',
        direction: -1,
      }),
    );
  });

  router.get('/workflows/:id/executions/:executionId', async (req, res) => {
    const { projectId } = caller(res);
    const document = await executions.findOne({
      _id: req.params.executionId,
      workflowId: req.params.id,
      projectId,
    });
    if (document === null) throw notFound('EXECUTION_NOT_FOUND', 'Execution not found');
    res.json(toExecutionResource(document));
  });

  /** Cancels one execution if it is active; the log position of the cancel (0: none). */
  async function cancel(executionId: string, correlationId: string): Promise<number> {
    return await withRevisionRetry(async () => {
      const recorded = await deps.store.readStream(executionStream(executionId));
      const state = foldStream(executionModel, recorded);
      if (!state.exists) return 0;
      const events = decideCancel(state, clock());
      if (events.length === 0) return 0;
      const revision = recorded[recorded.length - 1]?.revision ?? -1;
      const appends = await decisionAppends(deps.store, state, revision, events, correlationId);
      return (await deps.store.append(appends)).position;
    });
  }

  router.delete('/workflows/:id/executions/:executionId', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const document = await executions.findOne({
      _id: req.params.executionId,
      workflowId: req.params.id,
      projectId,
    });
    if (document === null) throw notFound('EXECUTION_NOT_FOUND', 'Execution not found');
    const position = await cancel(document._id, requestId);
    await deps.awaitViews(position);
    const after = await executions.findOne({ _id: document._id });
    res.json(toExecutionResource(after ?? document));
  });

  router.post('/workflows/:id/executions/cancel-all', async (req, res) => {
    const { projectId, requestId } = caller(res);
    await loaded(projectId, req.params.id);
    let cancelled = 0;
    let position = 0;
    for (;;) {
      const page = await executions.find(
        { projectId, workflowId: req.params.id, status: { $in: [...ACTIVE_STATUSES] } },
        { limit: 500 },
      );
      let moved = 0;
      for (const execution of page) {
        const at = await cancel(execution._id, requestId);
        if (at > 0) {
          cancelled += 1;
          moved += 1;
          position = Math.max(position, at);
        }
      }
      await deps.awaitViews(position);
      if (page.length < 500 || moved === 0) break;
    }
    res.json({ success: true, cancelled });
  });

  return router;
}
