export { createWorkflowsService, type WorkflowsServiceDeps } from './service.ts';
export { webhookCaller } from './config.ts';
