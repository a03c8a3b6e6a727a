/**
 * The changes of a workflow's graph and settings (`/workflows/:id`, its steps and transitions),
 * each refreshing the cached workflow and list when done.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api, ApiError, type Schema, unwrap } from '../../api/client';
import type { operations } from '../../api/schema';
import { useProjectId } from '../../api/session';
import type { Outlet, StepBody } from './steps';

/** The body of `PATCH /workflows/:id`. */
export type WorkflowPatch =
  operations['patchWorkflowsById']['requestBody']['content']['application/json'];

/**
 * `error` with the step ids of its fields (`steps.<id>`, from enabling an incomplete graph)
 * replaced by the steps' names.
 */
export function withStepNames(error: unknown, steps: readonly Schema<'WorkflowStep'>[]): unknown {
  if (!(error instanceof ApiError)) return error;
  const named = error.errors.map((item) => {
    const id = item.field.startsWith('steps.') ? item.field.slice('steps.'.length) : undefined;
    const step = steps.find((candidate) => candidate.id === id);
    return step === undefined ? item : { ...item, field: `Step "${step.name}"` };
  });
  return new ApiError(error.status, error.code, error.message, named, error.suggestion);
}

/** The mutations of the workflow `workflowId`. */
export function useWorkflowMutations(workflowId: string) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const path = { params: { path: { id: workflowId } } };
  const refresh = () => queryClient.invalidateQueries({ queryKey: [projectId, 'workflows'] });

  const update = useMutation({
    mutationFn: (body: WorkflowPatch) => unwrap(api.PATCH('/workflows/{id}', { ...path, body })),
    onSuccess: (workflow) => {
      queryClient.setQueryData([projectId, 'workflows', workflowId], workflow);
      return refresh();
    },
  });
  const addStep = useMutation({
    mutationFn: async (input: {
      body: StepBody;
      after?: { stepId: string; outlet: Outlet } | undefined;
    }) => {
      const step = await unwrap(api.POST('/workflows/{id}/steps', { ...path, body: input.body }));
      if (input.after !== undefined) {
        await unwrap(
          api.POST('/workflows/{id}/transitions', {
            ...path,
            body: {
              fromStepId: input.after.stepId,
              toStepId: step.id,
              branch: input.after.outlet.branch,
              waitOutcome: input.after.outlet.waitOutcome,
            },
          }),
        );
      }
      return step;
    },
    onSettled: refresh,
  });
  const updateStep = useMutation({
    mutationFn: (input: {
      stepId: string;
      name?: string;
      config?: Record<string, unknown>;
      position?: { x: number; y: number };
    }) => {
      const { stepId, ...body } = input;
      return unwrap(
        api.PATCH('/workflows/{id}/steps/{stepId}', {
          params: { path: { id: workflowId, stepId } },
          body,
        }),
      );
    },
    onSettled: refresh,
  });
  const deleteStep = useMutation({
    mutationFn: (input: { stepId: string; splice: boolean }) =>
      unwrap(
        api.DELETE('/workflows/{id}/steps/{stepId}', {
          params: {
            path: { id: workflowId, stepId: input.stepId },
            query: { splice: input.splice ? 'true' : 'false' },
          },
        }),
      ),
    onSuccess: (workflow) => {
      queryClient.setQueryData([projectId, 'workflows', workflowId], workflow);
    },
    onSettled: refresh,
  });
  const connect = useMutation({
    mutationFn: (input: { fromStepId: string; toStepId: string; outlet: Outlet }) =>
      unwrap(
        api.POST('/workflows/{id}/transitions', {
          ...path,
          body: {
            fromStepId: input.fromStepId,
            toStepId: input.toStepId,
            branch: input.outlet.branch,
            waitOutcome: input.outlet.waitOutcome,
          },
        }),
      ),
    onSettled: refresh,
  });
  const disconnect = useMutation({
    mutationFn: (transitionId: string) =>
      unwrap(
        api.DELETE('/workflows/{id}/transitions/{transitionId}', {
          params: { path: { id: workflowId, transitionId } },
        }),
      ),
    onSuccess: (workflow) => {
      queryClient.setQueryData([projectId, 'workflows', workflowId], workflow);
    },
    onSettled: refresh,
  });
  return { update, addStep, updateStep, deleteStep, connect, disconnect };
}
