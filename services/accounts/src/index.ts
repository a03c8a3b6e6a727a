import type { ServiceDeps, ServiceModule } from '@stamp/http-kit';
import type { Consumer } from '@stamp/platform';

import { type AccountsApi, createAccountsApi } from './accounts.ts';
import { projectsRouter } from './projects/api.ts';
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
 * `POST /users/@me/projects/:id/regenerate-keys`; `start()` runs the `accounts-keys` projection
 * (topic `project`) into the `projects` and `api_keys` views.
 */
export function createAccountsService(
  deps: AccountsServiceDeps,
): ServiceModule & { api: AccountsApi } {
  const logger = deps.logger.child({ service: 'accounts' });
  const api = createAccountsApi({ ...deps, logger });
  let consumer: Consumer | null = null;
  return {
    name: 'accounts',
    api,
    views: [{ groupId: KEYS_GROUP, collections: [API_KEYS_VIEW, PROJECTS_VIEW] }],
    router: projectsRouter({ api, awaitViews: deps.awaitViews }),
    async start() {
      if (consumer !== null) return;
      await deps.views.collection(API_KEYS_VIEW).createIndex({ projectId: 1 });
      await deps.views.collection(PROJECTS_VIEW).createIndex({ ownerId: 1 });
      consumer = deps.bus.consume({
        groupId: KEYS_GROUP,
        topics: ['project'],
        handle: projectsProjection(deps.views),
        concurrency: 4,
      });
    },
    async stop() {
      const running = consumer;
      consumer = null;
      if (running !== null) await running.stop();
    },
    projections() {
      return consumer === null ? [] : [consumer];
    },
  };
}
