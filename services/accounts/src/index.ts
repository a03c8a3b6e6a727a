import type { KeysApi } from '@stamp/contracts';
import type { ServiceDeps, ServiceModule } from '@stamp/http-kit';
import type { Consumer, Secrets } from '@stamp/platform';
import { Router } from 'express';

import { type AccountsApi, createAccountsApi } from './accounts.ts';
import type { OidcProviderConfig } from './config.ts';
import { accountMail } from './account-mail/commands.ts';
import { accountTokens } from './account-mail/tokens.ts';
import { billingRouter } from './billing/api.ts';
import { billingCommands } from './billing/commands.ts';
import { BILLING_CUSTOMERS_VIEW, BILLING_GROUP, billingProjection } from './billing/projection.ts';
import type { StripeSettings } from './billing/stripe.ts';
import { membersRouter } from './members/api.ts';
import { oauthRouter } from './oauth/api.ts';
import { createOidcLogin } from './oauth/commands.ts';
import { oidcProviders } from './oauth/providers.ts';
import { oauthStates } from './oauth/state.ts';
import { authRouter } from './sessions/api.ts';
import { projectSettingsRouter } from './setup/api.ts';
import { SETUP_GROUP, SETUP_TOPICS, SETUP_VIEW, setupProjection } from './setup/progress.ts';
import { sessionTokens } from './sessions/tokens.ts';
import { usersRouter } from './users/api.ts';
import { createUsersApi, type UsersApi } from './users/commands.ts';
import { projectUser, USERS_GROUP, USERS_VIEW } from './users/projection.ts';
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
  MEMBERS_VIEW,
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
export {
  accountsEnv,
  type BootstrapKeyVariables,
  checkBootstrapKeys,
  checkOidcProviders,
  type OidcProviderConfig,
  oidcProvidersOf,
} from './config.ts';
export { billingEnv, checkBilling, stripeSettingsOf } from './billing/config.ts';
export type { StripeSettings } from './billing/stripe.ts';

export type { UsersApi } from './users/commands.ts';

/** Dependencies of {@link createAccountsService}. */
export interface AccountsServiceDeps extends ServiceDeps {
  /** Signs session tokens (a key derived for them). */
  secrets: Secrets;
  /** STAMP_PUBLIC_URL: session cookies are Secure when it is https. */
  publicUrl: string;
  /** STAMP_SIGNUP: whether anybody may sign up (the first user of an installation always may). */
  signupOpen: boolean;
  /** The OpenID Connect providers users may log in with (`oidcProvidersOf`); none by default. */
  oidcProviders?: readonly OidcProviderConfig[];
  /** Billing through Stripe (`stripeSettingsOf`); absent or null: billing is off. */
  stripe?: StripeSettings | null;
}

/**
 * The accounts service: users, their sessions, projects and API keys (spec parts 2, 4 and 5).
 * `api` resolves keys and sessions for the gateway (KeysApi) and bootstraps the default project;
 * `publicRouter` serves `/auth/signup`, `/auth/login`, `/auth/logout`, the account links and
 * the OpenID Connect login (`/auth/oauth-config`, `/auth/oauth/:provider` and its callback) and
 * the Stripe notifications (`POST /webhooks/incoming/stripe`); `router` serves
 * `/users/@me`, `/users/@me/projects`, `POST /users/@me/projects/:id/regenerate-keys`, the
 * billing routes (`/users/@me/projects/:id/billing-limits`, `…/billing-consumption`,
 * `…/checkout`, `…/billing-portal`, `…/billing-invoices`) and the
 * project protection routes (`/projects/:id/security`…); `start()` runs the `accounts-keys`
 * projection (topic `project`) into the `projects`, `api_keys` and `project_members` views,
 * `accounts-users` (topic `user`) into `users`, and project protection (group
 * `accounts-protection`, topic `email`), which suspends a project whose bounce or complaint rate
 * passes its threshold, and `accounts-billing` (topic `project`) into `billingCustomers`.
 */
export function createAccountsService(
  deps: AccountsServiceDeps,
): ServiceModule & { api: AccountsApi & KeysApi; users: UsersApi } {
  const logger = deps.logger.child({ service: 'accounts' });
  const accounts = createAccountsApi({ ...deps, logger });
  const mail = accountMail({
    store: deps.store,
    views: deps.views,
    secrets: deps.secrets,
    tokens: accountTokens(deps.secrets),
    publicUrl: deps.publicUrl,
  });
  const users = createUsersApi({
    mail,
    store: deps.store,
    views: deps.views,
    awaitViews: deps.awaitViews,
    tokens: sessionTokens(deps.secrets),
    secrets: deps.secrets,
    defaultProject: async () => {
      const id = await accounts.defaultProjectId();
      if (id === null) return null;
      return { id, ownerId: (await accounts.project(id))?.ownerId ?? null };
    },
    signupOpen: deps.signupOpen,
  });
  const api: AccountsApi & KeysApi = {
    ...accounts,
    resolveSession: (token, projectId) => users.resolveSession(token, projectId),
  };
  let usersView: Consumer | null = null;
  let setup: Consumer | null = null;
  let consumer: Consumer | null = null;
  let protection: Consumer | null = null;
  let billingView: Consumer | null = null;
  const protectionDeps = {
    store: deps.store,
    views: deps.views,
    project: (projectId: string) => api.project(projectId),
  };
  const router = Router();
  router.use(usersRouter({ users }));
  const commandDeps = { store: deps.store, views: deps.views, awaitViews: deps.awaitViews };
  router.use(membersRouter({ ...commandDeps, mail }));
  router.use(projectSettingsRouter(commandDeps));
  router.use(projectsRouter({ api, awaitViews: deps.awaitViews }));
  router.use(protectionRouter({ ...protectionDeps, awaitViews: deps.awaitViews }));
  const billing = billingRouter({
    commands: billingCommands({ store: deps.store, views: deps.views }),
    views: deps.views,
    awaitViews: deps.awaitViews,
    publicUrl: deps.publicUrl,
    stripe: deps.stripe ?? null,
  });
  router.use(billing.router);
  return {
    name: 'accounts',
    api,
    users,
    views: [
      { groupId: KEYS_GROUP, collections: [API_KEYS_VIEW, PROJECTS_VIEW, MEMBERS_VIEW] },
      { groupId: USERS_GROUP, collections: [USERS_VIEW] },
      { groupId: SETUP_GROUP, collections: [SETUP_VIEW] },
      { groupId: BILLING_GROUP, collections: [BILLING_CUSTOMERS_VIEW] },
    ],
    router,
    publicRouter: Router()
      .use(billing.publicRouter)
      .use(authRouter({ users, mail, awaitViews: deps.awaitViews, publicUrl: deps.publicUrl }))
      .use(
        oauthRouter({
          providers: oidcProviders(deps.oidcProviders ?? []),
          login: createOidcLogin({ store: deps.store, users }),
          states: oauthStates(deps.secrets, deps.publicUrl),
          publicUrl: deps.publicUrl,
        }),
      ),
    async start() {
      if (consumer !== null) return;
      await deps.views.collection(API_KEYS_VIEW).createIndex({ projectId: 1 });
      await deps.views.collection(PROJECTS_VIEW).createIndex({ ownerId: 1 });
      await deps.views.collection(MEMBERS_VIEW).createIndex({ userId: 1, createdAt: 1 });
      await deps.views.collection(USERS_VIEW).createIndex({ email: 1 });
      await createProtectionIndexes(deps.views);
      consumer = deps.bus.consume({
        groupId: KEYS_GROUP,
        topics: ['project'],
        handle: projectsProjection(deps.views),
        concurrency: 4,
      });
      usersView = deps.bus.consume({
        groupId: USERS_GROUP,
        topics: ['user'],
        handle: (event) => projectUser(deps.views, event),
      });
      setup = deps.bus.consume({
        groupId: SETUP_GROUP,
        topics: SETUP_TOPICS,
        handle: setupProjection(deps.views),
        concurrency: 4,
      });
      protection = deps.bus.consume({
        groupId: PROTECTION_GROUP,
        topics: ['email'],
        handle: (event) => protectOnFeedback(protectionDeps, event),
        concurrency: 4,
      });
      billingView = deps.bus.consume({
        groupId: BILLING_GROUP,
        topics: ['project'],
        handle: billingProjection(deps.views),
      });
    },
    async stop() {
      const running = [consumer, usersView, setup, protection, billingView];
      consumer = null;
      billingView = null;
      usersView = null;
      setup = null;
      protection = null;
      for (const one of running) if (one !== null) await one.stop();
    },
    projections() {
      return [consumer, usersView, setup, protection, billingView].filter(
        (one): one is Consumer => one !== null,
      );
    },
  };
}
