// `npm run admin:password -- identifiant`: a new password for an agent who lost theirs (printed
// once; ADMIN_PASSWORD, when set, is used instead of a generated one).
import { runCli } from './cli-support.js';
import { formatAgentPasswordReset, resetAgentPassword } from '../modules/account/admin-password.js';

const given = process.env.ADMIN_PASSWORD?.trim() || undefined;
process.exitCode = await runCli(
  'admin:password',
  'identifiant',
  (login) => (/^[A-Za-z0-9._-]{2,64}$/.test(login) ? (given && given.length < 8 ? 'ADMIN_PASSWORD doit faire au moins 8 caractères' : null) : `Identifiant invalide : ${login}`),
  async (db, login) => formatAgentPasswordReset(await resetAgentPassword(db, login, given), login, !given),
);
