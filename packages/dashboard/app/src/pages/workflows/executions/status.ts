import type { Schema } from '../../../api/client';

/** The status of an execution. */
export type ExecutionStatus = Schema<'WorkflowExecution'>['status'];

/** The statuses of runs in words, in the order of the status filter. */
export const STATUSES: { value: ExecutionStatus; label: string }[] = [
  { value: 'RUNNING', label: 'Running' },
  { value: 'WAITING', label: 'Waiting' },
  { value: 'COMPLETED', label: 'Completed' },
  { value: 'EXITED', label: 'Exited' },
  { value: 'FAILED', label: 'Failed' },
  { value: 'CANCELLED', label: 'Cancelled' },
];

/** Whether a run with `status` can still be cancelled. */
export const isActive = (status: ExecutionStatus): boolean =>
  status === 'RUNNING' || status === 'WAITING';

/** `status` in words. */
export const statusLabel = (status: ExecutionStatus): string =>
  STATUSES.find((item) => item.value === status)?.label ?? status;
