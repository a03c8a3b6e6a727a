export { createWorkflowsService, type WorkflowsServiceDeps } from './service.ts';
export { webhookCaller, workflowsEnv } from './config.ts';
