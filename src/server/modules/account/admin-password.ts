// Recovery of an agent's access from the server's console (`npm run admin:password -- identifiant`):
// for the administrator who lost their password and has no working mail to reset it. Whoever
// can run commands on the server may already read the database, so this gives nothing away.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';
import { hashPassword } from '../../passwords.js';
import { createSessionsRepository } from '../../plugins/sessions.repository.js';

export interface AgentPasswordReset {
  identifiant: string;
  password: string;
  /** Roles the agent holds, so the console says what this login opens. */
  roles: string[];
}

/**
 * Gives the agent `identifiant` (case-insensitive) a new password, generated unless given,
 * reactivates the account, and ends its sessions. Undefined when no agent has that identifiant.
 */
export async function resetAgentPassword(db: Db, identifiant: string, given?: string): Promise<AgentPasswordReset | undefined> {
  const password = given ?? crypto.randomBytes(12).toString('base64url');
  const hash = await hashPassword(password);
  return db.transaction().execute(async (trx) => {
    const agent = await trx
      .selectFrom('account')
      .where('kind', '=', 'agent')
      .where(sql`lower(identifiant)`, '=', identifiant.toLowerCase())
      .select(['id', 'identifiant'])
      .executeTakeFirst();
    if (!agent) return undefined;
    await trx.updateTable('account').set({ password_hash: hash, actif: true, email_valide: true }).where('id', '=', agent.id).execute();
    const sessions = createSessionsRepository(trx);
    await sessions.deleteForAccount(agent.id);
    return { identifiant: agent.identifiant ?? identifiant, password, roles: await sessions.roles(agent.id) };
  });
}

export function formatAgentPasswordReset(reset: AgentPasswordReset | undefined, identifiant: string, generated: boolean): string {
  if (!reset) throw new Error(`Aucun agent n’a l’identifiant « ${identifiant} ».`);
  const lines = [`Nouveau mot de passe de « ${reset.identifiant} » enregistré ; ses sessions ouvertes sont fermées.`];
  if (generated) lines.push(`  Mot de passe (affiché une seule fois, notez-le) : ${reset.password}`);
  else lines.push('  Mot de passe : celui de ADMIN_PASSWORD.');
  lines.push(`  Rôles : ${reset.roles.length ? reset.roles.join(', ') : 'aucun (donnez-lui un rôle sur /admin/role)'}`);
  return lines.join('\n');
}
