// Rules of the account lifecycle (docs/domain.md, accounts): signup of an external
// user with a validation link, the link that validates the address, and the forgotten-password
// flow. Links carry a random token; only its hash is stored, it expires and works once.
import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { formatNom, formatPrenom, type PasswordUpdateInput, type signupSchema } from '../../../shared/schemas/account.js';
import { TYPE_USER } from '../../../shared/domain.js';
import type { z } from 'zod';
import { NotFoundError } from '../../errors.js';
import { hashPassword } from '../../passwords.js';
import { hashToken, newToken } from '../../tokens.js';
import { createAccountRepository, isEmailTaken, type TokenPurpose } from './account.repository.js';
import { confirmationMail, resetMail, signupAttemptMail } from './account.mails.js';

export const CONFIRMATION_TTL_MS = 7 * 24 * 3600 * 1000;
export const RESET_TTL_MS = 60 * 60 * 1000;
export const ACCOUNT_NOT_FOUND = 'Compte introuvable';

export type SignupPayload = z.output<typeof signupSchema>;

/** Tokens are 43 characters (256 bits in base64url); anything much longer is not one of ours. */
const MAX_TOKEN_LENGTH = 200;

export function createAccountService(deps: AppDeps, log: FastifyBaseLogger) {
  const repo = createAccountRepository(deps.db);
  const { config, mailer } = deps;
  /** Mails sent after the answer; waited for when the server closes. */
  const pending = new Set<Promise<void>>();

  function tokenHashOf(token: string): string | null {
    return token.length > 0 && token.length <= MAX_TOKEN_LENGTH ? hashToken(token) : null;
  }

  async function usableAccount(token: string, purpose: TokenPurpose): Promise<number> {
    const hash = tokenHashOf(token);
    const accountId = hash ? await repo.usableTokenAccount(hash, purpose) : undefined;
    if (accountId === undefined) throw new NotFoundError(ACCOUNT_NOT_FOUND);
    return accountId;
  }

  /** Mails the owner of an address someone tried to sign up with; sent before the answer, like a validation link. */
  async function tellOwnerOfSignupAttempt(email: string): Promise<void> {
    const account = await repo.findByEmail(email);
    if (!account) return;
    await mailer.send(
      signupAttemptMail({
        appName: config.APP_NAME,
        to: account.email,
        nom: account.nom,
        prenom: account.prenom,
        loginLink: `${config.publicUrl}/login`,
        passwordLink: `${config.publicUrl}/password`,
      }),
    );
  }

  return {
    /**
     * Creates an inactive external account and mails its validation link. For an address
     * that already has an account nothing is created and its owner is told by mail; the
     * answer is the same either way (and as slow: the password is hashed all the same), so
     * signup cannot be used to find out who has an account.
     */
    async signup(input: SignupPayload): Promise<void> {
      const passwordHash = await hashPassword(input.password);
      if (await repo.emailExists(input.email)) return tellOwnerOfSignupAttempt(input.email);
      const token = newToken();
      let accountId: number;
      try {
        accountId = await repo.inTransaction(async (trx) => {
          const id = await trx.insertExternalAccount({
            type_user_id: input.type,
            // Only organisations name one (the signup form's rule).
            organisme: input.type === TYPE_USER.organisme ? input.organisme : null,
            nom: formatNom(input.nom),
            prenom: input.prenom ? formatPrenom(input.prenom) : null,
            tel: input.tel,
            email: input.email,
            password_hash: passwordHash,
          });
          await trx.insertToken({ tokenHash: hashToken(token), accountId: id, purpose: 'confirm', expiresAt: new Date(Date.now() + CONFIRMATION_TTL_MS) });
          return id;
        });
      } catch (e) {
        // Signed up at the same moment by another request.
        if (isEmailTaken(e)) return tellOwnerOfSignupAttempt(input.email);
        throw e;
      }
      try {
        await mailer.send(
          confirmationMail({
            appName: config.APP_NAME,
            to: input.email,
            nom: formatNom(input.nom),
            prenom: input.prenom ? formatPrenom(input.prenom) : null,
            link: `${config.publicUrl}/confirmation/${token}`,
          }),
        );
      } catch (e) {
        // Without its link the account could never be validated, and its address would stay
        // taken: remove it so that the person can simply sign up again.
        await repo.deleteAccount(accountId);
        throw e;
      }
    },

    async confirm(token: string): Promise<void> {
      const hash = tokenHashOf(token);
      await repo.inTransaction(async (trx) => {
        const accountId = hash ? await trx.consumeToken(hash, 'confirm') : undefined;
        if (accountId === undefined) throw new NotFoundError(ACCOUNT_NOT_FOUND);
        await trx.markEmailValidated(accountId);
      });
    },

    /**
     * Records a reset link when the address has an account and mails it after the answer,
     * so that neither the answer nor its delay tells whether the address is known.
     */
    async requestReset(mail: string): Promise<void> {
      if (!mail) return;
      const account = await repo.findByEmail(mail);
      if (!account) return;
      const token = newToken();
      await repo.insertToken({ tokenHash: hashToken(token), accountId: account.id, purpose: 'reset', expiresAt: new Date(Date.now() + RESET_TTL_MS) });
      const sending = mailer
        .send(resetMail({ appName: config.APP_NAME, to: account.email, nom: account.nom, prenom: account.prenom, link: `${config.publicUrl}/reset/${token}` }))
        .catch((err: unknown) => log.error({ err, account: account.id }, 'Mail de réinitialisation du mot de passe non envoyé'))
        .finally(() => pending.delete(sending));
      pending.add(sending);
    },

    async checkReset(token: string): Promise<void> {
      await usableAccount(token, 'reset');
    },

    /** Sets the new password and logs the account out everywhere. */
    async updatePassword(token: string, input: PasswordUpdateInput): Promise<void> {
      // Checked before the slow hash, and again atomically when the token is consumed.
      await usableAccount(token, 'reset');
      const hash = await hashPassword(input.password);
      const tokenHash = tokenHashOf(token)!;
      await repo.inTransaction(async (trx) => {
        const accountId = await trx.consumeToken(tokenHash, 'reset');
        if (accountId === undefined) throw new NotFoundError(ACCOUNT_NOT_FOUND);
        await trx.setPasswordHash(accountId, hash);
        await trx.retireTokens(accountId, 'reset');
        // The link reached its mailbox, which proves the address as well as the signup link does.
        await trx.markEmailValidated(accountId);
        await trx.deleteSessions(accountId);
      });
    },

    /** Resolves once the mails sent after their answer have left. */
    async flush(): Promise<void> {
      await Promise.allSettled([...pending]);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
