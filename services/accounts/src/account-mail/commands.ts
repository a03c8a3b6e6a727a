/**
 * Account mail and the single-use links it carries (spec part 4, "/auth/verify-email",
 * "/auth/request-verification", "/auth/request-password-reset", "/auth/reset-password"; API
 * reference, "Dashboard authentication and members"). Each email is asked of the sending service
 * as AccountEmailRequested (body sealed); each link's use appends AccountTokenUsed to its claim
 * stream in the same commit as its effect, so it works once.
 */
import {
  ACCOUNT_EMAIL_CATEGORY,
  ACCOUNT_EMAIL_SEAL,
  type AccountEmailKind,
  type AccountEmailRequestedData,
} from '@stamp/contracts';
import { ApiError } from '@stamp/http-kit';
import {
  type EventStore,
  newId,
  type Secrets,
  type StreamAppend,
  type ViewStore,
  WrongExpectedRevisionError,
} from '@stamp/platform';

import { userStreamId } from '../users/events.ts';
import { hashPassword } from '../users/passwords.ts';
import { USERS_VIEW, type UserView } from '../users/projection.ts';
import { accountLink, accountMessage } from './messages.ts';
import { type AccountTokens, tokenClaimStream, type TokenClaims } from './tokens.ts';

/** Purpose of the sealing of password hashes (see `Secrets.seal`). */
export const PASSWORD_PURPOSE = 'password-hash';

/** Dependencies of {@link accountMail}. */
export interface AccountMailDeps {
  store: EventStore;
  views: ViewStore;
  secrets: Secrets;
  tokens: AccountTokens;
  /** STAMP_PUBLIC_URL: the base of the links. */
  publicUrl: string;
}

const invalidLink = () =>
  new ApiError(400, 'BAD_REQUEST', 'This link is invalid or expired', {
    suggestion: 'Ask for a new email.',
  });
const usedLink = () => new ApiError(400, 'BAD_REQUEST', 'This link was already used');

/** The account mail commands (see the module comment). */
export function accountMail(deps: AccountMailDeps) {
  const users = () => deps.views.collection<UserView>(USERS_VIEW);

  /** Asks the sending service for an email of `kind` to `to`. */
  async function request(
    kind: AccountEmailKind,
    to: string,
    token: string,
    correlationId: string,
    projectName?: string,
  ): Promise<void> {
    const message = accountMessage(kind, accountLink(deps.publicUrl, kind, token), projectName);
    const data: AccountEmailRequestedData = {
      kind,
      to,
      subject: message.subject,
      html: deps.secrets.seal(ACCOUNT_EMAIL_SEAL, message.html),
    };
    await deps.store.append([
      {
        streamId: `${ACCOUNT_EMAIL_CATEGORY}-${newId()}`,
        expectedRevision: 'no_stream',
        events: [{ type: 'AccountEmailRequested', data, metadata: { correlationId } }],
      },
    ]);
  }

  /**
   * Appends `effects` with the claim of token `jti`, so the token works once.
   * @throws ApiError 400 BAD_REQUEST when it was used already.
   */
  async function useToken(
    jti: string,
    purpose: AccountEmailKind,
    correlationId: string,
    effects: StreamAppend[],
  ): Promise<number> {
    const claim = tokenClaimStream(jti);
    try {
      const { position } = await deps.store.append([
        {
          streamId: claim,
          expectedRevision: 'no_stream',
          events: [{ type: 'AccountTokenUsed', data: { purpose }, metadata: { correlationId } }],
        },
        ...effects,
      ]);
      return position;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError && error.streamId === claim) throw usedLink();
      throw error;
    }
  }

  /** The claims of a valid `token` of `purpose`; 400 BAD_REQUEST otherwise. */
  async function claimsOf(token: string, purpose: AccountEmailKind) {
    const claims = await deps.tokens.verify(token, purpose);
    if (claims === null) throw invalidLink();
    return claims;
  }

  return {
    useToken,
    claimsOf,

    /** Sends `user` the link that confirms their address. */
    async sendVerification(user: { id: string; email: string }, correlationId: string) {
      const token = await deps.tokens.issue('VERIFY_EMAIL', { userId: user.id, email: user.email });
      await request('VERIFY_EMAIL', user.email, token, correlationId);
    },

    /**
     * Confirms the address a verification link was sent to.
     * @returns the log position of the change.
     * @throws ApiError 400 BAD_REQUEST for an invalid, expired or used link.
     */
    async verifyEmail(token: string, correlationId: string): Promise<number> {
      const claims = await claimsOf(token, 'VERIFY_EMAIL');
      const user =
        claims.userId === undefined ? null : await users().findOne({ _id: claims.userId });
      if (user === null || user.email !== claims.email) throw invalidLink();
      return useToken(claims.jti, 'VERIFY_EMAIL', correlationId, [
        {
          streamId: userStreamId(user._id),
          expectedRevision: 'any',
          events: [
            { type: 'UserEmailVerified', data: { email: user.email }, metadata: { correlationId } },
          ],
        },
      ]);
    },

    /**
     * Sends a password reset link to the account of `email`; nothing when there is none (the
     * caller answers the same either way).
     */
    async requestPasswordReset(email: string, correlationId: string): Promise<void> {
      const user = await users().findOne({ email: email.trim().toLowerCase() });
      if (user === null || user.passwordHash === null) return;
      const token = await deps.tokens.issue('RESET_PASSWORD', {
        userId: user._id,
        email: user.email,
      });
      await request('RESET_PASSWORD', user.email, token, correlationId);
    },

    /**
     * Sets a new password with a reset link; the sessions issued before end.
     * @returns the log position of the change.
     * @throws ApiError 400 BAD_REQUEST for an invalid, expired or used link.
     */
    async resetPassword(token: string, password: string, correlationId: string): Promise<number> {
      const claims = await claimsOf(token, 'RESET_PASSWORD');
      const user =
        claims.userId === undefined ? null : await users().findOne({ _id: claims.userId });
      if (user === null) throw invalidLink();
      const passwordHash = deps.secrets.seal(PASSWORD_PURPOSE, await hashPassword(password));
      return useToken(claims.jti, 'RESET_PASSWORD', correlationId, [
        {
          streamId: userStreamId(user._id),
          expectedRevision: 'any',
          events: [
            { type: 'UserPasswordChanged', data: { passwordHash }, metadata: { correlationId } },
          ],
        },
      ]);
    },

    /** Sends `email` an invitation to `projectId` with `role`. */
    async invite(
      invitation: Required<Pick<TokenClaims, 'email' | 'projectId' | 'role'>>,
      projectName: string,
      correlationId: string,
    ): Promise<void> {
      const token = await deps.tokens.issue('INVITATION', invitation);
      await request('INVITATION', invitation.email, token, correlationId, projectName);
    },
  };
}

/** The account mail commands. */
export type AccountMail = ReturnType<typeof accountMail>;
