import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openPGlite } from '../db/client.js';
import { SAMPLE_STREETS_FILE } from '../db/seed.js';
import { runCliProcess } from '../../../tests/helpers/cli-process.js';
import { emptyDataDir } from '../../../tests/helpers/data-dir.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function tempDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-cli-'));
  dirs.push(d);
  return d;
}
/** A data directory whose embedded database is initialised and empty, as a first start finds it. */
const dataDirWithCluster = () => emptyDataDir('compost-cli-', dirs);

/** Runs `npm run <script> -- args` on its own data directory. */
const run = (script: 'agents-import' | 'streets-import' | 'admin-password', args: string[], dataDir: string, env: NodeJS.ProcessEnv = {}) =>
  runCliProcess(script, args, { DATA_DIR: dataDir, ...env });

// Each command starts tsx and opens an embedded database: slow on a busy machine.
describe('import commands', { timeout: 180_000 }, () => {
  it('import streets then agents into the database of DATA_DIR, and close it', async () => {
    const dataDir = await dataDirWithCluster();
    const streets = await run('streets-import', [SAMPLE_STREETS_FILE], dataDir);
    expect(streets.stderr).toBe('');
    expect(streets.code).toBe(0);
    expect(streets.stdout).toMatch(/^Import des rues terminé : \d+ ligne\(s\) d’adresse lue\(s\), \d+ rue\(s\) distincte\(s\), [1-9]\d* nouvelle\(s\) rue\(s\) enregistrée\(s\), \d+ point\(s\) d’adresse enregistré\(s\), \d+ site\(s\) localisé\(s\)\.$/m);

    const agentsFile = path.join(dataDir, 'agents.csv');
    fs.writeFileSync(agentsFile, 'identifiant;prenom;nom;email\njdupont;Jean;Dupont;jean.dupont@exemple.fr\nsans-mail;Paul;Martin;\n');
    const agents = await run('agents-import', [agentsFile], dataDir);
    expect(agents.code).toBe(0);
    expect(agents.stdout).toContain('Import des agents terminé : 1 créé, 0 mis à jour, 0 inchangé, 1 ligne rejetée.');
    expect(agents.stdout).toContain('  ligne 3 : adresse mail manquante');

    // Both commands released the directory: it opens, and holds what they wrote.
    expect(fs.existsSync(path.join(dataDir, 'db', 'compost.lock'))).toBe(false);
    const h = await openPGlite(path.join(dataDir, 'db'));
    try {
      const rues = await sql<{ nom: string }>`SELECT nom FROM rue WHERE code_insee = '29019'`.execute(h.db);
      expect(rues.rows.map((r) => r.nom)).toContain('Rue de Siam');
      const agent = await h.db.selectFrom('account').select(['kind', 'nom', 'actif']).where('identifiant', '=', 'jdupont').executeTakeFirst();
      expect(agent).toEqual({ kind: 'agent', nom: 'DUPONT', actif: true });
    } finally {
      await h.close();
    }
  });

  it('give an agent who lost their password a new one, printed once, and close their sessions', async () => {
    const dataDir = await dataDirWithCluster();
    const file = path.join(dataDir, 'agents.csv');
    fs.writeFileSync(file, 'identifiant;prenom;nom;email\njdupont;Jean;Dupont;jean.dupont@exemple.fr\n');
    expect((await run('agents-import', [file], dataDir)).code).toBe(0);
    let h = await openPGlite(path.join(dataDir, 'db'));
    try {
      const agent = await h.db.selectFrom('account').select('id').where('identifiant', '=', 'jdupont').executeTakeFirstOrThrow();
      await h.db.updateTable('account').set({ actif: false }).where('id', '=', agent.id).execute();
      await sql`INSERT INTO session (id_hash, account_id, expires_at) VALUES ('x', ${agent.id}, now() + interval '1 day')`.execute(h.db);
    } finally {
      await h.close();
    }

    const res = await run('admin-password', ['JDupont'], dataDir);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Nouveau mot de passe de « jdupont » enregistré ; ses sessions ouvertes sont fermées.');
    expect(res.stdout).toContain('Rôles : aucun (donnez-lui un rôle sur /admin/role)');
    const password = /notez-le\) : (\S+)/.exec(res.stdout)?.[1];
    expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);

    h = await openPGlite(path.join(dataDir, 'db'));
    try {
      const { verifyPassword } = await import('../passwords.js');
      const row = await h.db.selectFrom('account').select(['id', 'password_hash', 'actif']).where('identifiant', '=', 'jdupont').executeTakeFirstOrThrow();
      expect(row.actif).toBe(true);
      expect(await verifyPassword(row.password_hash, password!)).toBe(true);
      const sessions = await h.db.selectFrom('session').select('id_hash').where('account_id', '=', row.id).execute();
      expect(sessions).toEqual([]);
    } finally {
      await h.close();
    }

    const unknown = await run('admin-password', ['personne'], dataDir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Aucun agent n’a l’identifiant « personne ».');
  });

  it('explain their use when the file is missing or absent', async () => {
    const dataDir = tempDir();
    const noArg = await run('agents-import', [], dataDir);
    expect(noArg.code).toBe(1);
    expect(noArg.stderr).toContain('Usage : npm run agents:import -- fichier.csv');
    const absent = await run('streets-import', [path.join(dataDir, 'absent.csv')], dataDir);
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain('Fichier introuvable : ');
    // Nothing was opened for a bad command line.
    expect(fs.existsSync(path.join(dataDir, 'db'))).toBe(false);
  });

  it('stop with the reason when the file has not the expected format', async () => {
    const dataDir = await dataDirWithCluster();
    const file = path.join(dataDir, 'rues.csv');
    fs.writeFileSync(file, 'nom;ville\nRue de Siam;Brest\n');
    const res = await run('streets-import', [file], dataDir);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('colonnes nom_voie et code_insee attendues (format Base Adresse Nationale)');
    expect(fs.existsSync(path.join(dataDir, 'db', 'compost.lock'))).toBe(false);
  });

  it('refuse to open the embedded database while another process holds it', async () => {
    const dataDir = await dataDirWithCluster();
    const held = await openPGlite(path.join(dataDir, 'db'));
    try {
      const file = path.join(dataDir, 'agents.csv');
      fs.writeFileSync(file, 'identifiant;prenom;nom;email\n');
      const res = await run('agents-import', [file], dataDir);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('est déjà ouverte par un autre processus');
    } finally {
      await held.close();
    }
  });
});
