import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, createAccount, createTestApp } from '../../../../tests/helpers/test-app.js';
import { AgentsImportError, formatAgentsImportSummary, importAgents, splitCsvLine } from './agents-import.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-agents-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let fileCounter = 0;
function csv(content: string): string {
  const file = path.join(dir, `agents-${++fileCounter}.csv`);
  fs.writeFileSync(file, content);
  return file;
}

describe('CSV lines', () => {
  it('splits on semicolons, trims, and reads quoted fields with doubled quotes', () => {
    expect(splitCsvLine('a; b ;c')).toEqual(['a', 'b', 'c']);
    expect(splitCsvLine('"Le Gall; fils";"dit ""Yann""";')).toEqual(['Le Gall; fils', 'dit "Yann"', '']);
  });
});

describe.each(TEST_DRIVERS)('agents import (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  beforeAll(async () => {
    ctx = await createTestApp(driver);
  });
  afterAll(() => ctx.close());

  const agent = (identifiant: string) =>
    ctx.db.selectFrom('account').selectAll().where(sql`lower(identifiant)`, '=', identifiant.toLowerCase()).executeTakeFirst();

  it('creates active, validated agents without password from a file with a BOM and CRLF line ends', async () => {
    const file = csv('\uFEFFidentifiant;prenom;nom;email\r\njdupont;jean-marc;Dupont;jean.dupont@brest-metropole.fr\r\nakerv;anne;Kervella;anne.kervella@brest-metropole.fr\r\n');
    const r = await importAgents(ctx.db, file);
    expect(r).toEqual({ created: 2, updated: 0, unchanged: 0, rejected: [] });
    expect(await agent('jdupont')).toMatchObject({
      kind: 'agent',
      identifiant: 'jdupont',
      prenom: 'Jean-Marc',
      nom: 'DUPONT',
      email: 'jean.dupont@brest-metropole.fr',
      password_hash: null,
      actif: true,
      email_valide: true,
      type_user_id: null,
    });
    const roles = await ctx.db.selectFrom('account_role').where('account_id', '=', (await agent('akerv'))!.id).selectAll().execute();
    expect(roles).toEqual([]);
  });

  it('lets a new agent choose a password with the forgotten-password link, then log in by identifiant', async () => {
    await importAgents(ctx.db, csv('identifiant;prenom;nom;email\nmlebris;Marie;Le Bris;marie.lebris@brest-metropole.fr\n'));
    expect((await ctx.app.inject({ method: 'PUT', url: '/api/password', payload: { mail: 'marie.lebris@brest-metropole.fr' } })).statusCode).toBe(200);
    const mail = ctx.mailer.sent.filter((m) => m.to === 'marie.lebris@brest-metropole.fr').at(-1)!;
    const token = mail.text.match(/\/reset\/([\w-]+)/)![1];
    const update = await ctx.app.inject({ method: 'PUT', url: `/api/password/update/${token}`, payload: { password: 'mon-secret-1', confirmPassword: 'mon-secret-1' } });
    expect(update.statusCode).toBe(200);
    const login = await ctx.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'mlebris', password: 'mon-secret-1' } });
    expect(login.json()).toMatchObject({ status: 'success', user: { username: 'mlebris', nom: 'LE BRIS', prenom: 'Marie', roles: [] } });
  });

  it('updates a known agent matched on its identifiant, keeps its password and roles, and reactivates it', async () => {
    await importAgents(ctx.db, csv('identifiant;prenom;nom;email\nplouarn;Paul;Louarn;paul.louarn@exemple.fr\n'));
    const before = (await agent('plouarn'))!;
    await ctx.db.updateTable('account').set({ password_hash: 'hash-existant', actif: false }).where('id', '=', before.id).execute();
    await ctx.db.insertInto('account_role').values({ account_id: before.id, role_id: 2 }).execute();

    // Columns in another order, identifiant in another case, and an extra column are fine.
    const r = await importAgents(ctx.db, csv('Email;NOM;Prenom;Identifiant;service\npaul.louarn@brest-metropole.fr;Louarn;Paul;PLOUARN;Déchets\n'));
    expect(r).toEqual({ created: 0, updated: 1, unchanged: 0, rejected: [] });
    const after = (await agent('plouarn'))!;
    expect(after).toMatchObject({ id: before.id, identifiant: 'PLOUARN', email: 'paul.louarn@brest-metropole.fr', password_hash: 'hash-existant', actif: true });
    expect(await ctx.db.selectFrom('account_role').select('role_id').where('account_id', '=', before.id).execute()).toEqual([{ role_id: 2 }]);

    const again = await importAgents(ctx.db, csv('identifiant;prenom;nom;email\nPLOUARN;Paul;Louarn;paul.louarn@brest-metropole.fr\n'));
    expect(again).toEqual({ created: 0, updated: 0, unchanged: 1, rejected: [] });
  });

  it('rejects invalid rows with their line number and reason, and imports the others', async () => {
    const taken = await createAccount(ctx.db);
    const file = csv(
      [
        'identifiant;prenom;nom;email',
        'ok.un;Alice;Martin;alice.martin@exemple.fr',
        ';Bob;Sans;bob@exemple.fr',
        'ok.deux;Chloé;;chloe@exemple.fr',
        'ok.trois;Denis;Durand;pas-une-adresse',
        'jean dupont;Jean;Dupont;jean.d@exemple.fr',
        'ok.un;Alice;Martin;alice2@exemple.fr',
        `ok.quatre;Eve;Morvan;${taken.email.toUpperCase()}`,
        '',
        'ok.cinq;Fanch;Le Goff;ALICE.MARTIN@exemple.fr',
        'ok.six;;Organisation;contact@exemple.fr',
      ].join('\n'),
    );
    const r = await importAgents(ctx.db, file);
    expect(r.created).toBe(2);
    expect(r.rejected).toEqual([
      { line: 3, reason: 'identifiant manquant' },
      { line: 4, reason: 'nom manquant' },
      { line: 5, reason: 'adresse mail « pas-une-adresse » invalide' },
      { line: 6, reason: 'identifiant « jean dupont » invalide (2 à 50 lettres sans accent, chiffres, « . », « _ » ou « - »)' },
      { line: 7, reason: 'identifiant « ok.un » déjà présent ligne 2' },
      { line: 8, reason: `adresse mail « ${taken.email.toUpperCase()} » déjà utilisée par un autre compte` },
      { line: 10, reason: 'adresse mail « ALICE.MARTIN@exemple.fr » déjà présente ligne 2' },
    ]);
    expect(await agent('ok.six')).toMatchObject({ prenom: null, nom: 'ORGANISATION' });
    expect(await agent('ok.quatre')).toBeUndefined();
  });

  it('refuses a file without the expected columns, changing nothing', async () => {
    const before = await ctx.db.selectFrom('account').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
    const file = csv('login;prenom;nom;mail\njdoe;John;Doe;john@exemple.fr\n');
    await expect(importAgents(ctx.db, file)).rejects.toBeInstanceOf(AgentsImportError);
    await expect(importAgents(ctx.db, file)).rejects.toThrow('colonnes attendues identifiant;prenom;nom;email (séparateur « ; »), manquantes : identifiant, email');
    await expect(importAgents(ctx.db, csv('identifiant,prenom,nom,email\njdoe,John,Doe,john@exemple.fr\n'))).rejects.toThrow(
      'le fichier semble séparé par des virgules',
    );
    const after = await ctx.db.selectFrom('account').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
    await expect(importAgents(ctx.db, csv(''))).rejects.toThrow('fichier vide');
    await expect(importAgents(ctx.db, path.join(dir, 'absent.csv'))).rejects.toThrow('fichier introuvable ou illisible');
  });

  it('rejects a line that is not valid UTF-8', async () => {
    const file = path.join(dir, 'latin1.csv');
    fs.writeFileSync(file, Buffer.concat([Buffer.from('identifiant;prenom;nom;email\nhlegall;'), Buffer.from([0xc9]), Buffer.from('lise;Le Gall;h@exemple.fr\n')]));
    const r = await importAgents(ctx.db, file);
    expect(r.rejected).toEqual([{ line: 2, reason: 'caractères illisibles : enregistrez le fichier en UTF-8' }]);
  });
});

describe('import summary', () => {
  it('says in French what was created, updated, left and rejected, and how new agents get a password', () => {
    const text = formatAgentsImportSummary({ created: 2, updated: 1, unchanged: 0, rejected: [{ line: 4, reason: 'nom manquant' }] });
    expect(text).toBe(
      [
        'Import des agents terminé : 2 créés, 1 mis à jour, 0 inchangé, 1 ligne rejetée.',
        '  ligne 4 : nom manquant',
        'Les nouveaux agents choisissent leur mot de passe avec « Mot de passe oublié » sur la page de connexion.',
      ].join('\n'),
    );
    expect(formatAgentsImportSummary({ created: 0, updated: 0, unchanged: 3, rejected: [] })).toBe(
      'Import des agents terminé : 0 créé, 0 mis à jour, 3 inchangés, 0 ligne rejetée.',
    );
  });
});
