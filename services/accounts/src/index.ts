import type { ServiceDeps, ServiceModule } from '@stamp/http-kit';
import type { Consumer } from '@stamp/platform';
import { Router } from 'express';

import { type AccountsApi, createAccountsApi } from './accounts.ts';
import { projectsRouter } from './projects/api.ts';
import { protectionRouter } from './protection/api.ts';
import {
  createProtectionIndexes,
  PROTECTION_GROUP,
  protectOnFeedback,
} from './protection/commands.ts';
import {
  API_KEYS_VIEW,
  KEYS_GROUP,
  PROJECTS_VIEW,
  projectsProjection,
} from './projects/projection.ts';

export type {
  AccountsApi,
  BootstrapInput,
  BootstrapResult,
  IssuedKeys,
  ProjectRecord,
} from './accounts.ts';
export type { KeyPair } from './projects/decide.ts';
export type { ApiKeyView, ProjectView } from './projects/projection.ts';
export { API_KEYS_VIEW, KEYS_GROUP, PROJECTS_VIEW } from './projects/projection.ts';
export { generateKey, hashKey, isValidKey, shareRandomPart } from './keys.ts';
export { type BootstrapKeyVariables, checkBootstrapKeys } from './config.ts';

/** Dependencies of {@link createAccountsService}. */
export type AccountsServiceDeps = ServiceDeps;

/**
 * The accounts service: users, projects and API keys (spec parts 2 and 5). `api` resolves keys
 * for the gateway (KeysApi) and bootstraps the default project; `router` serves
 * `POST /users/@me/projects/:id/regenerate-keys` and the project protection routes
 * (`/projects/:id/security`…); `start()` runs the `accounts-keys` projection (topic `project`)
 * into the `projects` and `api_keys` views, and project protection (group `accounts-protection`,
 * topic `email`), which suspends a project whose bounce or complaint rate passes its threshold.
 */
export function createAccountsService(
  deps: AccountsServiceDeps,
): ServiceModule & { api: AccountsApi } {
  const logger = deps.logger.child({ service: 'accounts' });
  const api = createAccountsApi({ ...deps, logger });
  let consumer: Consumer | null = null;
  let protection: Consumer | null = null;
  const protectionDeps = {
    store: deps.store,
    views: deps.views,
    project: (projectId: string) => api.project(projectId),
  };
  const router = Router();
  router.use(projectsRouter({ api, awaitViews: deps.awaitViews }));
  router.use(protectionRouter({ ...protectionDeps, awaitViews: deps.awaitViews }));
  return {
    name: 'accounts',
    api,
    views: [{ groupId: KEYS_GROUP, collections: [API_KEYS_VIEW, PROJECTS_VIEW] }],
    router,
    async start() {
      if (consumer !== null) return;
      await deps.views.collection(API_KEYS_VIEW).createIndex({ projectId: 1 });
      await deps.views.collection(PROJECTS_VIEW).createIndex({ ownerId: 1 });
      await createProtectionIndexes(deps.views);
      consumer = deps.bus.consume({
        groupId: KEYS_GROUP,
        topics: ['project'],
        handle: projectsProjection(deps.views),
        concurrency: 4,
      });
      protection = deps.bus.consume({
        groupId: PROTECTION_GROUP,
        topics: ['email'],
        handle: (event) => protectOnFeedback(protectionDeps, event),
        concurrency: 4,
      });
    },
    async stop() {
      const running = [consumer, protection];
      consumer = null;
      protection = null;
      for (const one of running) if (one !== null) await one.stop();
    },
    projections() {
      return [consumer, protection].filter((one): one is Consumer => one !== null);
    },
  };
}
