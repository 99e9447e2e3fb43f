// `npm run import -- KIND FILE [--apply] [--invitations]`: moving in from the command line, with
// the same checks as /admin/import. Without --apply it is a dry run: the report says what
// would be created, changed or left alone, and every error with its line and column. A file
// with errors writes nothing and the command exits with 1.
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { sql } from 'kysely';
import { cliConfig, withCliDatabase } from './cli-support.js';
import { createMailer } from '../mailer.js';
import { ValidationError } from '../errors.js';
import type { CurrentUser } from '../plugins/auth.js';
import { IMPORT_KINDS, type ImportKind, type ImportProgress } from '../../shared/schemas/imports.js';
import { createImportsService } from '../modules/imports/imports.service.js';

const USAGE = `Usage : npm run import -- ${IMPORT_KINDS.join('|')} fichier.csv|fichier.xlsx [--apply] [--invitations]`;
const PHASES: Record<ImportProgress['phase'], string> = { lecture: 'Lecture', verification: 'Vérification', ecriture: 'Écriture', termine: 'Terminé' };

/** One line redrawn in place: phase, bar and count. */
function progressBar(p: ImportProgress) {
  if (!process.stderr.isTTY && p.phase !== 'termine') return;
  const ratio = p.total > 0 ? Math.min(1, p.fait / p.total) : 1;
  const bar = '#'.repeat(Math.round(ratio * 30)).padEnd(30, '.');
  process.stderr.write(`\r${PHASES[p.phase].padEnd(12)} [${bar}] ${Math.round(ratio * 100)} %${p.phase === 'termine' ? '\n' : ''}`);
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const flags = new Set(args.filter((a) => a.startsWith('--')));
  const [kind, file, ...rest] = args.filter((a) => !a.startsWith('--'));
  if (!IMPORT_KINDS.includes(kind as ImportKind) || !file || rest.length || [...flags].some((f) => f !== '--apply' && f !== '--invitations')) {
    console.error(USAGE);
    return 1;
  }
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
    console.error(`Fichier introuvable : ${file}`);
    return 1;
  }
  const config = cliConfig();
  if (!config) return 2;
  const log = pino({ level: 'warn' });
  return withCliDatabase(
    config,
    async (handle) => {
      // Lines with no intervenant are put on the first administrator, as the screen puts them on whoever imports.
      const admin = await sql<CurrentUser>`
        SELECT a.id, a.kind, coalesce(a.identifiant, a.email) AS username, a.nom, a.prenom, ARRAY['ROLE_ADMIN'] AS roles
        FROM account a JOIN account_role ar ON ar.account_id = a.id JOIN role r ON r.id = ar.role_id
        WHERE r.code = 'ROLE_ADMIN' AND a.actif ORDER BY a.id LIMIT 1`.execute(handle.db);
      if (!admin.rows[0]) {
        console.error('Aucun administrateur actif : créez-en un avant d’importer.');
        return 1;
      }
      const mailer = createMailer({ smtpUrl: config.SMTP_URL, mailDir: path.join(config.dataDir, 'mail'), from: config.MAIL_FROM, log });
      const service = createImportsService({ db: handle.db, mailer, config }, log);
      const apply = flags.has('--apply');
      const report = await service.run(kind as ImportKind, fs.readFileSync(file), {
        mode: apply ? 'import' : 'essai',
        user: admin.rows[0],
        invite: flags.has('--invitations'),
        onProgress: progressBar,
      });
      for (const e of report.erreurs) console.log(`Ligne ${e.ligne}, colonne « ${e.colonne} » : ${e.message}`);
      for (const e of report.avertissements) console.log(`Avertissement ligne ${e.ligne}, colonne « ${e.colonne} » : ${e.message}`);
      const done = apply && report.erreurs.length === 0;
      console.log(
        `${report.lignes} ligne(s) : ${report.crees} ${done ? 'créée(s)' : 'à créer'}, ${report.modifies} ${done ? 'modifiée(s)' : 'à modifier'}, ${report.inchanges} inchangée(s), ${report.erreurs.length} erreur(s).`,
      );
      if (report.erreurs.length) console.log('Le fichier contient des erreurs : rien n’a été importé.');
      else if (!apply) console.log('Essai seulement : relancez avec --apply pour importer.');
      if (report.invitations) console.log(`${report.invitations} invitation(s) envoyée(s).`);
      return report.erreurs.length ? 1 : 0;
    },
    { failure: (e) => (e instanceof ValidationError ? e.errors.map((x) => x.error).join('\n') : e.message) },
  );
}

process.exitCode = await main();
