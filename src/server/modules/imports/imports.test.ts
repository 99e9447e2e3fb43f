import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import iconv from 'iconv-lite';
import ExcelJS from 'exceljs';
import { createApp } from '../../app.js';
import { createMemoryMailer } from '../../mailer.js';
import { seedCities } from '../../db/seed.js';
import type { Db } from '../../db/client.js';
import { TEST_CONFIG, TEST_DRIVERS, createAccount, login, openTestDatabase } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import importsRoutes from './imports.routes.js';
import type { ImportReport } from '../../../shared/schemas/imports.js';

/** The test app of tests/helpers/test-app.ts, with the imports routes mounted when the app does not mount them yet. */
async function createImportApp(driver: 'pglite' | 'postgres') {
  const handle = await openTestDatabase(driver);
  await seedCities(handle.db, '242900314');
  const mailer = createMemoryMailer();
  const deps = { db: handle.db, mailer, authChanges: handle.changes, config: TEST_CONFIG };
  const app = await createApp(deps);
  if (!app.hasRoute({ method: 'POST', url: '/api/admin/import/:kind' })) await app.register(importsRoutes, { prefix: '/api', ...deps });
  await app.ready();
  const admin = await createAccount(handle.db, { roles: ['ROLE_ADMIN'], nom: 'ADMIN', prenom: 'Alice' });
  const cookie = await login(app, admin.login);
  return { app, db: handle.db, mailer, admin, cookie, close: async () => (await app.close(), await handle.close()) };
}
type Ctx = Awaited<ReturnType<typeof createImportApp>>;

const csv = (rows: (string | number)[][], sep = ';') => Buffer.from('\uFEFF' + rows.map((r) => r.join(sep)).join('\r\n') + '\r\n');

function multipart(buf: Buffer, filename = 'fichier.csv') {
  const boundary = `----compost${crypto.randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="fichier"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  return { payload: Buffer.concat([head, buf, Buffer.from(`\r\n--${boundary}--\r\n`)]), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function send(ctx: Ctx, kind: string, buf: Buffer, query = '', filename?: string) {
  const { payload, headers } = multipart(buf, filename);
  return ctx.app.inject({ method: 'POST', url: `/api/admin/import/${kind}${query}`, payload, headers: { ...headers, cookie: ctx.cookie } });
}
async function report(ctx: Ctx, kind: string, buf: Buffer, query = ''): Promise<ImportReport> {
  const res = await send(ctx, kind, buf, query);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const get = async (ctx: Ctx, url: string) => {
  const res = await ctx.app.inject({ method: 'GET', url, headers: { cookie: ctx.cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
};

const SITE_HEAD = ['Code', 'Nom', 'Numéro', 'Adresse', 'Précisions', 'CP', 'Ville', 'Type', 'Statut', 'Cadena', 'Date Convention', 'Date Implantation', 'Date inauguration', 'Latitude', 'Longitude', 'Observations', 'Référent(s)', 'Cellules'];
const site = (code: string, over: Partial<Record<string, string>> = {}) => {
  const base: Record<string, string> = {
    Code: code, Nom: `Jardin ${code}`, Numéro: '3', Adresse: 'rue de Siam', Précisions: '', CP: '29200', Ville: 'Brest', Type: 'Quartier', Statut: 'Actif', Cadena: '1234',
    'Date Convention': '15/03/2021', 'Date Implantation': '2021-04-02', 'Date inauguration': '', Latitude: '', Longitude: '', Observations: '', 'Référent(s)': '',
    Cellules: 'n°1 Apport (400 L) | n°2 Broyat (400 L - Bac bois 400 L) | n°3 Maturation (Bac bois 600 L)',
  };
  return SITE_HEAD.map((h) => over[h] ?? base[h]);
};
const USER_HEAD = ['Type', 'Nom', 'Prénom', 'E-mail', 'Téléphone', 'Organisme', 'Sites'];
const INT_HEAD = ['Date', 'Site', 'Intervenant', 'Type Cellule', 'N° Cellule', 'Action', 'Valeur', 'Unité', 'Observations', 'Modifiée par'];

const count = async (db: Db, table: 'site' | 'site_composteur' | 'intervention' | 'account' | 'demande_intervention') =>
  Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

describe.each(TEST_DRIVERS)('moving in (%s)', (driver) => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await createImportApp(driver);
  });
  afterAll(async () => ctx.close());

  it('gives each template with its French header and one example line, to administrators only', async () => {
    const sites = await get(ctx, '/api/admin/import/sites/modele');
    expect(sites.startsWith('\uFEFF' + SITE_HEAD.join(';') + '\r\n')).toBe(true);
    expect(sites.trim().split('\r\n')).toHaveLength(2);
    expect((await get(ctx, '/api/admin/import/utilisateurs/modele')).split('\r\n')[0]).toBe('\uFEFF' + USER_HEAD.join(';'));
    expect((await get(ctx, '/api/admin/import/interventions/modele')).split('\r\n')[0]).toBe('\uFEFF' + INT_HEAD.join(';'));
    const other = await createAccount(ctx.db, { roles: ['ROLE_ADMIN_SITE'] });
    const res = await ctx.app.inject({ method: 'GET', url: '/api/admin/import/sites/modele', headers: { cookie: await login(ctx.app, other.login) } });
    expect(res.statusCode).toBe(403);
  });

  it('imports the sites template filled in as given: the example line itself is a valid site', async () => {
    const template = Buffer.from(await get(ctx, '/api/admin/import/sites/modele'));
    const r = await report(ctx, 'sites', template);
    expect(r).toMatchObject({ mode: 'essai', lignes: 1, crees: 1, erreurs: [] });
    expect(r.avertissements[0].colonne).toBe('Référent(s)');
  });

  it('imports sites after a dry run that writes nothing, and a second time changes nothing', async () => {
    const file = csv([SITE_HEAD, site('IMP001'), site('IMP002', { Statut: 'Demande', Cellules: '' })]);
    const before = await count(ctx.db, 'site');
    expect(await report(ctx, 'sites', file)).toMatchObject({ mode: 'essai', lignes: 2, crees: 2, modifies: 0, inchanges: 0, erreurs: [] });
    expect(await count(ctx.db, 'site')).toBe(before);
    expect(await report(ctx, 'sites', file, '?mode=import')).toMatchObject({ mode: 'import', crees: 2, erreurs: [] });
    const s = await ctx.db.selectFrom('site').where('code', '=', 'IMP001').selectAll().executeTakeFirstOrThrow();
    expect(s).toMatchObject({ nom: 'Jardin IMP001', ville: 'Brest', cp: '29200', statut_id: 1, nb_composteurs: 3, cadena: '1234' });
    const cells = await ctx.db.selectFrom('site_composteur').where('site_id', '=', s.id).select(['type_bac_id', 'numero']).orderBy('numero').execute();
    expect(cells).toEqual([{ type_bac_id: 1, numero: 1 }, { type_bac_id: 2, numero: 2 }, { type_bac_id: 3, numero: 3 }]);
    expect(await report(ctx, 'sites', file, '?mode=import')).toMatchObject({ crees: 0, modifies: 0, inchanges: 2 });
    const changed = csv([SITE_HEAD, site('IMP001', { Nom: 'Jardin renommé', Cellules: 'n°1 Apport (400 L) | Désactivé - n°2 Broyat (400 L) | n°3 Maturation (600 L) | n°4 Apport (800 L)' }), site('IMP002', { Statut: 'Demande', Cellules: '' })]);
    expect(await report(ctx, 'sites', changed, '?mode=import')).toMatchObject({ crees: 0, modifies: 1, inchanges: 1 });
    const after = await ctx.db.selectFrom('site_composteur').where('site_id', '=', s.id).select(['numero', 'actif']).orderBy('numero').execute();
    expect(after).toEqual([{ numero: 1, actif: true }, { numero: 2, actif: false }, { numero: 3, actif: true }, { numero: 4, actif: true }]);
  });

  it('lists every bad site line with its line and column, and writes nothing even when asked to import', async () => {
    const before = await count(ctx.db, 'site');
    const file = csv([
      SITE_HEAD,
      site('BAD001', { Ville: 'Paris' }),
      site('BAD002', { Type: 'Château' }),
      site('BAD001'),
      site('BAD003', { Cellules: 'n°1 Apport (400 L) | bac 2', 'Date Convention': '31/02/2021' }),
      site('BAD004', { Cellules: 'n°1 Apport (400 L) | n°1 Maturation (400 L)' }),
      site('', { Nom: '"=HYPERLINK(""http://x"")"' }),
    ]);
    const r = await report(ctx, 'sites', file, '?mode=import');
    expect(r.erreurs.map((e) => [e.ligne, e.colonne])).toEqual([
      [2, 'Ville'],
      [3, 'Type'],
      [4, 'Code'],
      [5, 'Date Convention'],
      [5, 'Cellules'],
      [6, 'Cellules'],
      [7, 'Code'],
    ]);
    expect(r.erreurs[2].message).toBe('Code déjà présent à la ligne 2 du fichier');
    expect(await count(ctx.db, 'site')).toBe(before);
  });

  it('imports referents and providers active without a password, invites them only when asked, links their sites', async () => {
    const file = csv([
      USER_HEAD,
      ['Particulier', 'MARTIN', 'Léa', 'lea.martin@exemple.fr', '06 11 22 33 44', '', 'IMP001, IMP002'],
      ['Prestataire', 'VERT', 'Paul', 'paul@vert.fr', '', 'Vert SARL', ''],
    ]);
    expect(await report(ctx, 'utilisateurs', file)).toMatchObject({ crees: 2, erreurs: [], invitations: 0 });
    const sentBefore = ctx.mailer.sent.length;
    expect(await report(ctx, 'utilisateurs', file, '?mode=import&envoyerInvitation=1')).toMatchObject({ crees: 2, invitations: 2 });
    await expect.poll(() => ctx.mailer.sent.length).toBe(sentBefore + 2);
    expect(ctx.mailer.sent.slice(sentBefore).map((m) => m.to).sort()).toEqual(['lea.martin@exemple.fr', 'paul@vert.fr']);
    expect(ctx.mailer.sent[sentBefore].text).toContain('/reset/');
    const lea = await ctx.db.selectFrom('account').where('email', '=', 'lea.martin@exemple.fr').selectAll().executeTakeFirstOrThrow();
    expect(lea).toMatchObject({ kind: 'user', actif: true, password_hash: null, tel: '0611223344', type_user_id: 1 });
    const roles = await ctx.db.selectFrom('account_role').innerJoin('role', 'role.id', 'account_role.role_id').where('account_id', '=', lea.id).select('code').execute();
    expect(roles.map((x) => x.code)).toEqual(['ROLE_USER']);
    expect(await ctx.db.selectFrom('site_referent').where('account_id', '=', lea.id).select('site_id').execute()).toHaveLength(2);
    // Again, without invitations: nothing changes and nobody gets a mail.
    const sent = ctx.mailer.sent.length;
    expect(await report(ctx, 'utilisateurs', file, '?mode=import')).toMatchObject({ crees: 0, modifies: 0, inchanges: 2, invitations: 0 });
    expect(ctx.mailer.sent.length).toBe(sent);
    // The sites file naming the referent now links her without a warning.
    const r = await report(ctx, 'sites', csv([SITE_HEAD, site('IMP003', { 'Référent(s)': 'lea.martin@exemple.fr' })]));
    expect(r).toMatchObject({ crees: 1, erreurs: [], avertissements: [] });
  });

  it('refuses bad user lines: an agent’s address, a provider with sites, an unknown site, a duplicate address', async () => {
    const file = csv([
      USER_HEAD,
      ['Particulier', 'ADMIN', 'Alice', ctx.admin.email, '', '', ''],
      ['Prestataire', 'BLEU', 'Jo', 'jo@bleu.fr', '', '', 'IMP001'],
      ['Organisme', 'ASSO', '', 'asso@exemple.fr', '12', '', 'NOPE99'],
      ['Particulier', 'BIS', 'Jo', 'JO@bleu.fr', '', '', ''],
      ['Chef', 'X', 'Y', 'pas-une-adresse', '', '', ''],
    ]);
    const r = await report(ctx, 'utilisateurs', file, '?mode=import');
    expect(r.erreurs.map((e) => `${e.ligne}:${e.colonne}`)).toEqual(['2:E-mail', '3:Sites', '4:Organisme', '4:Téléphone', '4:Sites', '5:E-mail', '6:Type', '6:E-mail']);
    expect(await ctx.db.selectFrom('account').where('email', '=', 'asso@exemple.fr').select('id').executeTakeFirst()).toBeUndefined();
  });

  it('imports interventions in the export’s columns, keeps unknown intervenants as names, and is idempotent', async () => {
    const s = await createEquippedSite(ctx.db, { nom: 'Site historique' });
    const ago = (days: number) => new Date(Date.now() - days * 86400_000);
    const fr = (d: Date) => d.toLocaleString('fr-FR', { timeZone: 'Europe/Paris', day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' }).replace(',', '');
    const file = csv([
      INT_HEAD,
      ['03/02/2020 10:15', 'Site historique', 'Jean Ancien', 'Apport', '1', 'Arrosage', '20', 'L', '=1+1', ''],
      ['2020-02-04', s.code, 'ADMIN Alice', 'Apport', '1', 'Température', '36,5', '°C', '', ''],
      ['05/02/2020 08:00', s.code, '', 'Apport', '1', 'Transfert', '100', 'L vers le composteur n°3', '', ''],
      ['05/02/2020 08:00', s.code, '', 'Broyat', '2', 'Niveau de broyat', 'Vide', '', '', ''],
      [fr(ago(400)), s.code, '', 'Apport', '1', 'Réparation à effectuer', 'Charnière', '', '', ''],
      [fr(ago(2)), s.code, '', 'Apport', '1', 'Réparation à effectuer', 'Porte', '', '', ''],
    ]);
    const requestsBefore = await count(ctx.db, 'demande_intervention');
    expect(await report(ctx, 'interventions', file)).toMatchObject({ lignes: 6, crees: 6, erreurs: [] });
    expect(await report(ctx, 'interventions', file, '?mode=import')).toMatchObject({ mode: 'import', crees: 6, erreurs: [] });
    const rows = await ctx.db.selectFrom('intervention').where('site_id', '=', s.id).selectAll().orderBy('date').orderBy('type_action_id').execute();
    expect(rows.map((x) => [x.type_action_id, x.valeur_nombre === null ? null : Number(x.valeur_nombre), x.valeur_constante, x.valeur_texte])).toEqual([
      [15, 20, null, null],
      [6, 36.5, null, null],
      [3, 100, null, null],
      [7, null, 1, null],
      [18, null, null, 'Charnière'],
      [18, null, null, 'Porte'],
    ]);
    expect(rows[0].observations).toBe('=1+1');
    expect(rows[2].bac_destination_id).toBe(s.maturation);
    expect(rows[1].intervenant_id).toBe(ctx.admin.id);
    expect(rows[3].intervenant_id).toBe(ctx.admin.id);
    const ancien = await ctx.db.selectFrom('account').where('id', '=', rows[0].intervenant_id).select(['kind', 'nom', 'email', 'actif', 'password_hash']).executeTakeFirstOrThrow();
    expect(ancien).toMatchObject({ kind: 'intervenant', nom: 'Jean Ancien', actif: false, password_hash: null });
    // A name, not a user: not in the users list, nor the users' export; nobody logs in or resets a password with it.
    const users = await ctx.app.inject({ method: 'GET', url: '/api/admin/user/get/list/by/filters?page=0&rowsPerPage=50&search=ancien', headers: { cookie: ctx.cookie } });
    expect(users.statusCode).toBe(200);
    expect(users.json().count).toBe(0);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/admin/import/utilisateurs/modele?donnees=1', headers: { cookie: ctx.cookie } })).body).not.toContain('Ancien');
    const sentBefore = ctx.mailer.sent.length;
    const reset = await ctx.app.inject({ method: 'PUT', url: '/api/password', payload: { mail: ancien.email } });
    expect(reset.statusCode).toBe(200);
    expect(ctx.mailer.sent.length).toBe(sentBefore);
    // The interventions export shows the name as the file gave it.
    const exported = await ctx.app.inject({ method: 'GET', url: '/api/admin/import/interventions/modele?donnees=1', headers: { cookie: ctx.cookie } });
    expect(exported.body).toContain('Jean Ancien');
    // History raises no request whose delay ran out (the old repair, the empty broyat of 2020): only the recent repair.
    const raised = await ctx.db.selectFrom('demande_intervention').where('site_id', '=', s.id).select(['type_action_programmee_id', 'intervention_declenchante_id']).execute();
    expect(raised).toEqual([{ type_action_programmee_id: 14, intervention_declenchante_id: rows[5].id }]);
    expect(await count(ctx.db, 'demande_intervention')).toBe(requestsBefore + 1);
    // Statistics follow the triggers.
    const stats = await ctx.db.selectFrom('intervention_stats_site_mois').where('site_id', '=', s.id).select((eb) => eb.fn.sum<number>('nb').as('n')).executeTakeFirstOrThrow();
    expect(Number(stats.n)).toBe(6);
    // Again: nothing changes; a changed observation updates its line.
    expect(await report(ctx, 'interventions', file, '?mode=import')).toMatchObject({ crees: 0, modifies: 0, inchanges: 6 });
    const edited = csv([INT_HEAD, ['03/02/2020 10:15', 'Site historique', 'Jean Ancien', 'Apport', '1', 'Arrosage', '20', 'L', 'corrigé', '']]);
    expect(await report(ctx, 'interventions', edited, '?mode=import')).toMatchObject({ crees: 0, modifies: 1 });
    expect(await count(ctx.db, 'demande_intervention')).toBe(requestsBefore + 1);
  });

  it('lists every bad intervention line at once and writes nothing', async () => {
    const s = await createEquippedSite(ctx.db, { nom: 'Site erreurs' });
    const before = await count(ctx.db, 'intervention');
    const file = csv([
      INT_HEAD,
      ['01/01/2021 10:00', 'Site inconnu', '', 'Apport', '1', 'Arrosage', '20', 'L', '', ''],
      ['01/01/2021 10:00', s.code, '', 'Apport', '9', 'Arrosage', '20', 'L', '', ''],
      ['01/01/2021 10:00', s.code, '', 'Apport', '1', 'Danse', '', '', '', ''],
      ['01/01/2021 10:00', s.code, '', 'Apport', '1', 'Arrosage', '20000', 'L', '', ''],
      ['01/01/2099 10:00', s.code, '', 'Apport', '1', 'Arrosage', '20', 'L', '', ''],
      ['32/01/2021', s.code, '', 'Apport', '1', 'Autre intervention', '', '', '', ''],
      ['01/01/2021 10:00', s.code, '', 'Broyat', '2', 'Arrosage', '5', 'L', '', ''],
      ['01/01/2021 10:00', s.code, '', 'Broyat', '2', 'Niveau de broyat', 'Débordant', '', '', ''],
      ['01/01/2021 10:00', s.code, '', 'Apport', '1', 'Transfert', '10', 'L vers le composteur n°9', '', ''],
    ]);
    const r = await report(ctx, 'interventions', file, '?mode=import');
    expect(r.erreurs.map((e) => `${e.ligne}:${e.colonne}`)).toEqual([
      '2:Site', '3:N° Cellule', '4:Action', '5:Valeur', '6:Date', '7:Date', '7:Observations', '8:Action', '9:Valeur', '10:Unité',
    ]);
    expect(r.erreurs[3].message).toBe('La quantité doit être un nombre entier de litres entre 0 et 10 000');
    expect(r.erreurs[4].message).toBe('La date ne peut pas être dans le futur');
    expect(await count(ctx.db, 'intervention')).toBe(before);
  });

  it('reads Windows-1252 CSV with commas and decimal commas, and XLSX workbooks', async () => {
    const s = await createEquippedSite(ctx.db, { nom: 'Site encodé' });
    const latin = iconv.encode(`Date,Site,Type Cellule,N° Cellule,Action,Valeur,Unité,Observations\r\n10/03/2022 09:00,${s.code},Apport,1,Température,"41,5",°C,très chaud élevé\r\n`, 'windows-1252');
    expect(latin.includes(Buffer.from('é'))).toBe(false);
    expect(await report(ctx, 'interventions', latin, '?mode=import')).toMatchObject({ crees: 1, erreurs: [] });
    const row = await ctx.db.selectFrom('intervention').where('site_id', '=', s.id).select(['valeur_nombre', 'observations']).executeTakeFirstOrThrow();
    expect([Number(row.valeur_nombre), row.observations]).toEqual([41.5, 'très chaud élevé']);

    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('Interventions');
    sheet.addRow(['date', 'SITE', 'type cellule', 'n° cellule', 'ACTION', 'valeur', 'unite', 'observations']);
    sheet.addRow([new Date(Date.UTC(2022, 2, 11, 9, 30)), s.code, 'Maturation', 3, 'Tamisage', 12, 'L', { formula: 'SUM(1,2)', result: 3 }]);
    const xlsx = Buffer.from(await wb.xlsx.writeBuffer());
    expect(await report(ctx, 'interventions', xlsx, '?mode=import')).toMatchObject({ crees: 1, erreurs: [] });
    const t = await ctx.db.selectFrom('intervention').where('site_id', '=', s.id).where('type_action_id', '=', 17).select(['date_paris' as never, 'observations']).executeTakeFirstOrThrow();
    expect(t).toEqual({ date_paris: '11/03/2022 09:30', observations: '=SUM(1,2)' });

    // A workbook whose first sheet is something else.
    const other = new ExcelJS.Workbook();
    other.addWorksheet('Notes').addRow(['Bonjour']);
    other.addWorksheet('Interventions').addRow(INT_HEAD);
    const res = await send(ctx, 'interventions', Buffer.from(await other.xlsx.writeBuffer()), '', 'f.xlsx');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^Colonnes manquantes : Date, Site, Type Cellule, N° Cellule, Action/);
  });

  it('answers a 400 that says why for files it cannot read', async () => {
    const cases: [Buffer, RegExp][] = [
      [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), /ni un CSV ni un classeur/],
      [Buffer.from('Date;Site;Type Cellule;N° Cellule;Action\r\n01/01/2021;"QUA'), /tronqué ou mal formé à partir de la ligne 2/],
      [Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), crypto.randomBytes(200)]), /Classeur Excel illisible/],
      [Buffer.from(''), /vide/],
      [Buffer.from('Date;Site\r\n'), /Colonnes manquantes : Type Cellule, N° Cellule, Action/],
      [Buffer.alloc(10 * 1024 * 1024 + 10, 'a'), /trop volumineux/],
    ];
    for (const [buf, message] of cases) {
      const res = await send(ctx, 'interventions', buf);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toMatch(message);
    }
    const lines = Buffer.from(`Code;Nom;Adresse;Ville;Type\r\n${'X;Y;Z;Brest;Quartier\r\n'.repeat(200_001)}`);
    const res = await send(ctx, 'sites', lines);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/Trop de lignes/);
  });

  it('round trip: the three files of one instance, imported into an empty one, give the same data and the same interventions export', async () => {
    // Instance A: data entered through the screens and the phone.
    const a = ctx;
    const lea = await a.db.selectFrom('account').where('email', '=', 'lea.martin@exemple.fr').select('id').executeTakeFirstOrThrow();
    const s = await createEquippedSite(a.db, { nom: 'Site aller-retour', referents: [lea.id] });
    const phone = await login(a.app, 'lea.martin@exemple.fr').catch(() => null);
    expect(phone).toBeNull(); // imported without a password: no login until the invitation is used
    const date = new Date(Date.UTC(2023, 5, 1, 8, 0)).toISOString();
    const add = await a.app.inject({
      method: 'POST',
      url: '/api/admin/intervention/add',
      headers: { cookie: a.cookie },
      payload: {
        clientId: crypto.randomUUID(),
        site: s.id,
        date,
        values: [
          { composteur: s.apport, action: 3, valeur: 50, bacDestination: s.maturation, observations: null, demandeIntervention: null },
          { composteur: s.broyat, action: 8, valeur: 7, bacDestination: null, observations: 'ok; "dit-il"', demandeIntervention: null },
          { composteur: s.apport, action: 14, valeur: 'Porte', bacDestination: null, observations: null, demandeIntervention: null },
        ],
      },
    });
    expect(add.statusCode, add.body).toBe(200);
    const files = await Promise.all(['sites', 'utilisateurs', 'interventions'].map((k) => get(a, `/api/admin/import/${k}/modele?donnees=1`)));
    const exportA = await get(a, '/api/admin/intervention/export');

    const b = await createImportApp(driver);
    try {
      for (const [i, kind] of ['sites', 'utilisateurs', 'interventions'].entries()) {
        const r = await report(b, kind, Buffer.from(files[i]), '?mode=import');
        expect(r.erreurs, kind).toEqual([]);
      }
      const again = await Promise.all(['sites', 'utilisateurs'].map((k) => get(b, `/api/admin/import/${k}/modele?donnees=1`)));
      expect(again).toEqual(files.slice(0, 2));
      expect(await get(b, '/api/admin/intervention/export')).toBe(exportA);
      expect(await count(b.db, 'site_composteur')).toBe(await count(a.db, 'site_composteur'));
      // Importing A's files into B again changes nothing.
      for (const [i, kind] of ['sites', 'utilisateurs', 'interventions'].entries()) {
        expect(await report(b, kind, Buffer.from(files[i]), '?mode=import')).toMatchObject({ crees: 0, modifies: 0 });
      }
    } finally {
      await b.close();
    }
  });

  it('reports the progress of an import under the id the screen gave', async () => {
    const s = await createEquippedSite(ctx.db, { nom: 'Site suivi' });
    const suivi = crypto.randomUUID();
    await report(ctx, 'interventions', csv([INT_HEAD, ['01/01/2021 10:00', s.code, '', 'Apport', '1', 'Brassage', '', '', '', '']]), `?mode=import&suivi=${suivi}`);
    expect(JSON.parse(await get(ctx, `/api/admin/import/progression/${suivi}`))).toEqual({ phase: 'termine', fait: 1, total: 1 });
    const res = await ctx.app.inject({ method: 'GET', url: `/api/admin/import/progression/${crypto.randomUUID()}`, headers: { cookie: ctx.cookie } });
    expect(res.statusCode).toBe(404);
  });
});
