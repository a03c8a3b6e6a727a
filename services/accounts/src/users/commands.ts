/**
 * Users, their sessions and their projects (spec part 4, "Users, projects"; API reference,
 * "Dashboard authentication and members"): sign-up, login, the session look-up the gateway
 * makes on every cookie request, and the projects a user creates and belongs to.
 */
import type { AwaitViews, MemberRole, SessionResolution } from '@stamp/contracts';
import { ApiError, conflict, forbidden } from '@stamp/http-kit';
import {
  type EventStore,
  newId,
  type StreamAppend,
  type Secrets,
  type ViewStore,
  WrongExpectedRevisionError,
} from '@stamp/platform';

import { generateKey } from '../keys.ts';
import { createProject } from '../projects/decide.ts';
import { initialProjectState, projectStreamId } from '../projects/events.ts';
import {
  MEMBERS_VIEW,
  type MemberView,
  memberId,
  PROJECTS_VIEW,
  type ProjectView,
} from '../projects/projection.ts';
import { type AccountMail, PASSWORD_PURPOSE } from '../account-mail/commands.ts';
import { SESSION_RENEW_AFTER_S, type SessionTokens } from '../sessions/tokens.ts';
import { registerUser } from './decide.ts';
import { initialUserState, userEmailStreamId, userStreamId } from './events.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { USERS_VIEW, type UserView } from './projection.ts';

/** Claim stream of the first owner of the default project (one per data folder). */
export const BOOTSTRAP_OWNER_STREAM = 'bootstrap-owner';

/** A user as the API answers it (never the password hash). */
export interface UserResource {
  id: string;
  email: string;
  name: string;
  /** Whether the address was confirmed with the link sent to it. */
  emailVerified: boolean;
  createdAt: string;
}

/** A project as its member sees it in their list. */
export interface MemberProject {
  id: string;
  name: string;
  role: MemberRole;
  createdAt: string;
  publicKeyHint: string | null;
  secretKeyHint: string | null;
}

/** Dependencies of {@link createUsersApi}. */
export interface UsersApiDeps {
  store: EventStore;
  views: ViewStore;
  awaitViews: AwaitViews;
  tokens: SessionTokens;
  /** Seals password hashes, so that the log and the topics never carry them in the clear. */
  secrets: Secrets;
  /** Verification emails, and the invitations a sign-up may carry. */
  mail: AccountMail;
  /**
   * The default project and the placeholder user who owns it since the bootstrap, whom the first
   * user to sign up replaces as its owner; null before the bootstrap.
   */
  defaultProject: () => Promise<{ id: string; ownerId: string | null } | null>;
  /** STAMP_SIGNUP: whether anybody may sign up (the first user always may). */
  signupOpen: boolean;
  /** Clock, epoch ms. */
  now?: () => number;
}

const toResource = (user: UserView): UserResource => ({
  id: user._id,
  email: user.email,
  name: user.name,
  emailVerified: user.emailVerified,
  createdAt: user.createdAt,
});

/** The users API (see the module comment). */
export function createUsersApi(deps: UsersApiDeps) {
  const { store, views, tokens } = deps;
  const now = deps.now ?? Date.now;
  const users = () => views.collection<UserView>(USERS_VIEW);
  const members = () => views.collection<MemberView>(MEMBERS_VIEW);

  /** The user `userId` as the API answers it, once the views show it. */
  async function user(userId: string): Promise<UserResource | null> {
    const found = await users().findOne({ _id: userId });
    return found === null ? null : toResource(found);
  }

  /** The projects `userId` is a member of, oldest first. */
  async function projectsOf(userId: string): Promise<MemberProject[]> {
    const memberships = await members().find(
      { userId, active: true },
      { sort: { createdAt: 1, _id: 1 } },
    );
    const projects = await views
      .collection<ProjectView>(PROJECTS_VIEW)
      .find({ _id: { $in: memberships.map((membership) => membership.projectId) } });
    const byId = new Map(projects.map((project) => [project._id, project]));
    return memberships.flatMap((membership) => {
      const project = byId.get(membership.projectId);
      if (project === undefined) return [];
      return [
        {
          id: project._id,
          name: project.name,
          role: membership.role,
          createdAt: project.createdAt,
          publicKeyHint: project.publicKeyHint,
          secretKeyHint: project.secretKeyHint,
        },
      ];
    });
  }

  /** The new user `userId` and a session token, once the views reflect `position`. */
  async function signedIn(userId: string, position: number) {
    await deps.awaitViews(position);
    const created = await user(userId);
    if (created === null) throw new Error(`user ${userId} is not in the view`);
    return { user: created, token: await tokens.issue(userId) };
  }

  /**
   * Appends a new account (`account`: the email's claim and the user's stream). The first user
   * of an installation also becomes the OWNER of the default project in place of the
   * bootstrap's placeholder, whatever `signupOpen` says; anybody else needs `signupOpen`.
   * @returns the log position of the append.
   * @throws ApiError 403 FORBIDDEN when sign-up is closed; 409 CONFLICT when the email's claim
   *   exists.
   */
  async function openAccount(
    userId: string,
    email: string,
    account: StreamAppend[],
    metadata: { correlationId: string },
  ): Promise<number> {
    const defaultProject = await deps.defaultProject();
    let position: number;
    try {
      if (defaultProject === null) {
        throw new WrongExpectedRevisionError(BOOTSTRAP_OWNER_STREAM, 'no_stream', 0);
      }
      ({ position } = await store.append([
        {
          streamId: BOOTSTRAP_OWNER_STREAM,
          expectedRevision: 'no_stream',
          events: [{ type: 'BootstrapOwnerClaimed', data: { userId }, metadata }],
        },
        ...account,
        {
          streamId: projectStreamId(defaultProject.id),
          expectedRevision: 'any',
          events: [
            { type: 'ProjectMemberAdded', data: { userId, role: 'OWNER' } },
            // The bootstrap's placeholder administrator, who cannot log in, steps aside.
            ...(defaultProject.ownerId === null
              ? []
              : [{ type: 'ProjectMemberRemoved', data: { userId: defaultProject.ownerId } }]),
          ].map((event) => ({
            ...event,
            metadata: { ...metadata, projectId: defaultProject.id },
          })),
        },
      ]));
    } catch (error) {
      if (!isConflictOn(error, BOOTSTRAP_OWNER_STREAM)) throw taken(error, email);
      if (!deps.signupOpen) {
        throw forbidden('Sign-up is closed on this installation: ask for an invitation');
      }
      try {
        ({ position } = await store.append(account));
      } catch (second) {
        throw taken(second, email);
      }
    }
    return position;
  }

  return {
    user,

    /**
     * Registers a user with a password. The first user of an installation becomes the OWNER of
     * the default project in place of the bootstrap's placeholder, whatever `signupOpen` says.
     * With an invitation's token (sent to this email), the user joins its project with its role,
     * even when sign-up is closed, and the address counts as confirmed; otherwise a verification
     * email is sent.
     * @returns the user and a session token.
     * @throws ApiError 400 BAD_REQUEST for an invalid, expired, used or another address's
     *   invitation; 403 FORBIDDEN when sign-up is closed; 409 CONFLICT when an account has this
     *   email; 422 VALIDATION_ERROR for a bad email or name.
     */
    async signup(input: {
      email: string;
      password: string;
      name?: string;
      inviteToken?: string;
      correlationId: string;
    }): Promise<{ user: UserResource; token: string }> {
      const email = input.email.trim().toLowerCase();
      const name = input.name?.trim() || email.split('@')[0] || email;
      const passwordHash = deps.secrets.seal(PASSWORD_PURPOSE, await hashPassword(input.password));
      const userId = newId();
      const events = registerUser(initialUserState, { email, name, passwordHash });
      const metadata = { correlationId: input.correlationId };
      const account = [
        {
          streamId: userEmailStreamId(email),
          expectedRevision: 'no_stream' as const,
          events: [{ type: 'UserEmailClaimed', data: { userId }, metadata }],
        },
        {
          streamId: userStreamId(userId),
          expectedRevision: 'no_stream' as const,
          events: events.map((event) => ({ ...event, metadata })),
        },
      ];
      if (input.inviteToken !== undefined) {
        const invitation = await deps.mail.claimsOf(input.inviteToken, 'INVITATION');
        if (invitation.email !== email || invitation.projectId === undefined) {
          throw new ApiError(400, 'BAD_REQUEST', 'This invitation is for another address');
        }
        const joined = {
          streamId: projectStreamId(invitation.projectId),
          expectedRevision: 'any' as const,
          events: [
            {
              type: 'ProjectMemberAdded',
              data: { userId, role: invitation.role ?? 'MEMBER' },
              metadata: { ...metadata, projectId: invitation.projectId },
            },
          ],
        };
        const verified = { type: 'UserEmailVerified', data: { email }, metadata };
        const [claim, registered] = account;
        let joinedAt: number;
        try {
          joinedAt = await deps.mail.useToken(invitation.jti, 'INVITATION', input.correlationId, [
            ...(claim === undefined ? [] : [claim]),
            ...(registered === undefined
              ? []
              : [{ ...registered, events: [...registered.events, verified] }]),
            joined,
          ]);
        } catch (error) {
          throw taken(error, email);
        }
        return signedIn(userId, joinedAt);
      }
      const position = await openAccount(userId, email, account, metadata);
      const signed = await signedIn(userId, position);
      await deps.mail.sendVerification({ id: userId, email }, input.correlationId);
      return signed;
    },

    /**
     * Registers a user whose address an identity provider vouched for (OpenID Connect login):
     * no password, `events` (decided by the caller: registration, confirmed address, linked
     * identity) on the new user's stream, and the email's claim. The sign-up rules are
     * {@link UsersApi.signup}'s: the installation's first user owns the default project;
     * anybody else needs `signupOpen`. No verification email is sent.
     * @returns the user and a session token.
     * @throws ApiError 403 FORBIDDEN when sign-up is closed; 409 CONFLICT when an account has
     *   this email.
     */
    async registerConfirmed(input: {
      userId: string;
      email: string;
      events: { type: string; data: object }[];
      correlationId: string;
    }): Promise<{ user: UserResource; token: string }> {
      const email = input.email.trim().toLowerCase();
      const metadata = { correlationId: input.correlationId };
      const account = [
        {
          streamId: userEmailStreamId(email),
          expectedRevision: 'no_stream' as const,
          events: [{ type: 'UserEmailClaimed', data: { userId: input.userId }, metadata }],
        },
        {
          streamId: userStreamId(input.userId),
          expectedRevision: 'no_stream' as const,
          events: input.events.map((event) => ({ ...event, metadata })),
        },
      ];
      return signedIn(input.userId, await openAccount(input.userId, email, account, metadata));
    },

    /**
     * The user `userId` and a new session token, once the views reflect log position
     * `position` (0: nothing to wait for).
     * @throws Error when the user is not in the view by then.
     */
    signIn: signedIn,

    /**
     * Checks an email and password.
     * @returns the user and a session token, or null for an unknown email or a wrong password
     *   (which take the same time).
     */
    async login(
      email: string,
      password: string,
    ): Promise<{ user: UserResource; token: string } | null> {
      const found = await users().findOne({ email: email.trim().toLowerCase() });
      const sealed = found?.passwordHash ?? null;
      const matches = await verifyPassword(
        sealed === null ? null : deps.secrets.open(PASSWORD_PURPOSE, sealed),
        password,
      );
      if (found === null || !matches) return null;
      return { user: toResource(found), token: await tokens.issue(found._id) };
    },

    /** See KeysApi.resolveSession. */
    async resolveSession(
      token: string,
      projectId: string | null,
    ): Promise<SessionResolution | null> {
      const verified = await tokens.verify(token);
      if (verified === null) return null;
      const known = await users().findOne({ _id: verified.userId });
      if (known === null) return null;
      // A password reset ends the sessions issued before it.
      const changedAt = known.passwordChangedAt;
      if (changedAt !== null && verified.issuedAt < Math.floor(Date.parse(changedAt) / 1000)) {
        return null;
      }
      const membership =
        projectId === null
          ? null
          : await members().findOne({ _id: memberId(projectId, known._id), active: true });
      const age = Math.floor(now() / 1000) - verified.issuedAt;
      return {
        userId: known._id,
        role: membership?.role ?? null,
        ...(age > SESSION_RENEW_AFTER_S ? { renewed: await tokens.issue(known._id) } : {}),
      };
    },

    projectsOf,

    /**
     * Creates a project owned by `userId`, with a new key pair (shown this once).
     * @throws ApiError 422 VALIDATION_ERROR for a name outside 1..100 characters.
     */
    async createProject(userId: string, name: string, correlationId: string) {
      const projectId = newId();
      const keys = { publicKey: generateKey('public'), secretKey: generateKey('secret') };
      const events = createProject(initialProjectState, { name, ownerId: userId, keys });
      const { position } = await store.append([
        {
          streamId: projectStreamId(projectId),
          expectedRevision: 'no_stream',
          events: events.map((event) => ({ ...event, metadata: { projectId, correlationId } })),
        },
      ]);
      await deps.awaitViews(position);
      const [created] = (await projectsOf(userId)).filter((project) => project.id === projectId);
      if (created === undefined) throw new Error(`project ${projectId} is not in the views`);
      return { ...created, publicKey: keys.publicKey, secretKey: keys.secretKey };
    },
  };
}

/** The users API. */
export type UsersApi = ReturnType<typeof createUsersApi>;

/** Whether `error` is a lost race for stream `streamId`. */
function isConflictOn(error: unknown, streamId: string): boolean {
  return error instanceof WrongExpectedRevisionError && error.streamId === streamId;
}

/** 409 CONFLICT when `error` says the email's claim exists; otherwise `error` itself. */
function taken(error: unknown, email: string): unknown {
  if (isConflictOn(error, userEmailStreamId(email))) {
    return conflict('An account with this email exists: log in instead');
  }
  return error;
}
