// Rules of the external account lifecycle (docs/domain.md, accounts): an administrator
// activates a validated account, deactivates or refuses one, edits its type and its sites,
// and deletes an inactive one. Each change is one transaction on a locked account row.
import type { AppDeps } from '../../deps.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { createSessionsRepository } from '../../plugins/sessions.repository.js';
import { TYPE_PRESTATAIRE, USER_MESSAGES } from '../../../shared/schemas/users.js';
import { createUsersRepository, type ExternalUser } from './users.repository.js';

function externalRoleFor(typeUserId: number | null): 'ROLE_USER' | 'ROLE_PRESTATAIRE' {
  return typeUserId === TYPE_PRESTATAIRE ? 'ROLE_PRESTATAIRE' : 'ROLE_USER';
}

function activationMail(user: ExternalUser, appName: string, publicUrl: string) {
  const name = [user.prenom, user.nom].filter(Boolean).join(' ');
  const loginUrl = `${publicUrl}/login`;
  return {
    to: user.email,
    subject: `${appName} : votre compte est activé`,
    text: [
      `Bonjour ${name},`,
      '',
      `Votre compte ${appName} a été activé par un administrateur.`,
      `Vous pouvez dès maintenant vous connecter avec votre adresse mail : ${loginUrl}`,
      '',
      `L'équipe ${appName}`,
    ].join('\n'),
  };
}

export function createUsersService({ db, mailer, config }: AppDeps) {
  const repo = createUsersRepository(db);

  async function locked<T>(id: number, fn: (trx: typeof db, user: ExternalUser) => Promise<T>): Promise<T> {
    return db.transaction().execute(async (trx) => {
      const user = await repo.findForUpdate(trx, id);
      if (!user) throw new NotFoundError(USER_MESSAGES.notFound);
      return fn(trx, user);
    });
  }

  return {
    repo,

    async activate(id: number) {
      const user = await locked(id, async (trx, u) => {
        if (u.actif) throw new ConflictError(USER_MESSAGES.alreadyActive);
        if (!u.emailValide) throw new ConflictError(USER_MESSAGES.emailNotValidated);
        await repo.setActif(trx, id, true);
        await repo.setExternalRole(trx, id, externalRoleFor(u.typeUserId));
        return u;
      });
      // Sent after the commit: a mail about an activation that rolled back would be a lie.
      await mailer.send(activationMail(user, config.APP_NAME, config.publicUrl));
    },

    /** 'Désactiver' an active account or 'Refuser' a pending one: no login, no session left. */
    async refuse(id: number) {
      await locked(id, async (trx) => {
        await repo.setActif(trx, id, false);
        await repo.setExternalRole(trx, id, null);
        await createSessionsRepository(trx).deleteForAccount(id);
      });
    },

    async updateType(id: number, type: number) {
      if (!(await repo.typeExists(type))) throw new ValidationError([{ key: 'type', error: USER_MESSAGES.typeUnknown }]);
      await locked(id, async (trx, u) => {
        if (!u.emailValide) throw new ConflictError(USER_MESSAGES.emailNotValidated);
        await repo.setType(trx, id, type);
        // An active account keeps the role that follows from its (new) type.
        if (u.actif) await repo.setExternalRole(trx, id, externalRoleFor(type));
      });
    },

    async updateSites(id: number, siteIds: number[]) {
      const unique = [...new Set(siteIds)];
      const existing = new Set(await repo.existingSiteIds(unique));
      const missing = unique.findIndex((s) => !existing.has(s));
      if (missing >= 0) throw new ValidationError([{ key: 'site', error: USER_MESSAGES.siteUnknown }]);
      await locked(id, async (trx, u) => {
        if (!u.actif || u.typeUserId === TYPE_PRESTATAIRE) throw new ConflictError(USER_MESSAGES.sitesForbidden);
        await repo.replaceSites(trx, id, unique);
      });
    },

    async delete(id: number) {
      await locked(id, async (trx, u) => {
        if (u.actif) throw new ValidationError([], USER_MESSAGES.deleteActive);
        if (await repo.hasHistory(trx, id)) throw new ConflictError(USER_MESSAGES.deleteLinked);
        await repo.delete(trx, id);
      });
    },
  };
}
