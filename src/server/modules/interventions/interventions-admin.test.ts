import crypto from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createAccount, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import { storeTestPhoto } from '../photos/test-factories.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Site = Awaited<ReturnType<typeof createEquippedSite>>;

const LIST = '/api/admin/intervention/get/list/by/filters';

describe.each(TEST_DRIVERS)('interventions administration API (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Awaited<ReturnType<typeof loggedAs>>;
  let siteAdmin: Awaited<ReturnType<typeof loggedAs>>;
  let updater: Awaited<ReturnType<typeof loggedAs>>;
  let deleter: Awaited<ReturnType<typeof loggedAs>>;
  let referent: Awaited<ReturnType<typeof loggedAs>>;
  let epinette: Site;
  let bouleau: Site;
  let alice: number;
  let bob: number;
  const r: Record<string, number> = {};

  const get = (cookie: string | undefined, url: string) => ctx.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
  const put = (cookie: string | undefined, url: string, payload?: object) =>
    ctx.app.inject({ method: 'PUT', url, headers: cookie ? { cookie } : {}, ...(payload ? { payload } : {}) });
  const ids = (body: { interventions: { id: number }[] }) => body.interventions.map((i) => i.id);

  async function insert(row: { site: Site; cell: 'apport' | 'broyat' | 'maturation'; action: number; date: string; by: number; nombre?: number; constante?: number; texte?: string; observations?: string }) {
    const inserted = await ctx.db
      .insertInto('intervention')
      .values({
        date: new Date(row.date),
        site_id: row.site.id,
        site_composteur_id: row.site[row.cell],
        type_action_id: row.action,
        valeur_nombre: row.nombre ?? null,
        valeur_constante: row.constante ?? null,
        valeur_texte: row.texte ?? null,
        observations: row.observations ?? null,
        intervenant_id: row.by,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return inserted.id;
  }

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN']);
    siteAdmin = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
    updater = await loggedAs(ctx, ['ROLE_ADMIN_SITE', 'ROLE_ADMIN_UPDATE'], { nom: 'LEROY', prenom: 'Paul' });
    deleter = await loggedAs(ctx, ['ROLE_ADMIN_SITE', 'ROLE_ADMIN_DELETE'], { nom: 'PETIT', prenom: 'Anne' });
    referent = await loggedAs(ctx, ['ROLE_USER']);
    alice = (await createAccount(ctx.db, { nom: 'DURAND', prenom: 'Alice' })).id;
    bob = (await createAccount(ctx.db, { nom: 'ARNAUD', prenom: 'Bob' })).id;
    epinette = await createEquippedSite(ctx.db, { nom: 'Épinette' });
    bouleau = await createEquippedSite(ctx.db, { nom: 'Bouleau' });
    // Paris is UTC+1 in winter, UTC+2 in summer: the displayed dates are in the comments.
    r.r1 = await insert({ site: epinette, cell: 'apport', action: 6, nombre: 55, date: '2025-12-31T23:30:00Z', by: alice }); // 01/01/2026 00:30
    r.r2 = await insert({ site: epinette, cell: 'apport', action: 1, date: '2025-12-31T22:30:00Z', by: bob, observations: '=1+1' }); // 31/12/2025 23:30
    r.r3 = await insert({ site: bouleau, cell: 'broyat', action: 7, constante: 1, date: '2025-12-12T13:35:00Z', by: alice }); // 12/12/2025 14:35
    r.r4 = await insert({ site: bouleau, cell: 'maturation', action: 11, nombre: 200, date: '2026-03-12T08:00:00Z', by: bob }); // 12/03/2026 09:00
    r.r5 = await insert({ site: epinette, cell: 'maturation', action: 1, date: '2025-07-12T12:31:00Z', by: alice }); // 12/07/2025 14:31
  });
  afterAll(() => ctx.close());

  describe('the list', () => {
    const list = async (qs: string) => {
      const res = await get(admin.cookie, `${LIST}?${qs}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { count: number; countCapped: boolean; interventions: Record<string, unknown>[] };
    };

    it('shows every intervention, newest first, with its site, intervenant, cell and displayed value', async () => {
      const body = await list('');
      expect(body.count).toBe(5);
      expect(body.countCapped).toBe(false);
      expect(ids(body as never)).toEqual([r.r4, r.r1, r.r2, r.r3, r.r5]);
      expect(body.interventions[1]).toMatchObject({
        site: 'Épinette',
        intervenant: 'DURAND Alice',
        typeBac: 'Apport',
        numeroBac: 1,
        typeAction: 'Température',
        valeur: '55 °C',
        modificationAgent: null,
        locked: false,
        pendingDemande: false,
      });
      expect(body.interventions[3]).toMatchObject({ typeAction: 'Niveau de broyat', valeur: 'Vide', typeBac: 'Broyat', numeroBac: 2 });
    });

    it.each([
      ['date', 'asc', ['r5', 'r3', 'r2', 'r1', 'r4']],
      ['site', 'asc', ['r3', 'r4', 'r5', 'r2', 'r1']],
      ['site', 'desc', ['r1', 'r2', 'r5', 'r4', 'r3']],
      ['intervenant', 'asc', ['r2', 'r4', 'r5', 'r3', 'r1']],
      ['action', 'asc', ['r4', 'r3', 'r5', 'r2', 'r1']],
      ['action', 'desc', ['r1', 'r2', 'r5', 'r3', 'r4']],
      ['typeBac', 'asc', ['r2', 'r1', 'r3', 'r5', 'r4']],
      ['numeroBac', 'desc', ['r4', 'r5', 'r3', 'r1', 'r2']],
    ])('sorts by %s %s, then by date', async (name, direction, expected) => {
      const body = await list(`sort[name]=${name}&sort[direction]=${direction}`);
      expect(ids(body as never)).toEqual(expected.map((k) => r[k]));
    });

    it('pages in the same order', async () => {
      const first = await list('sort[name]=site&sort[direction]=asc&rowsPerPage=5&page=0');
      expect(first.count).toBe(5);
      const second = await list('sort[name]=site&sort[direction]=asc&rowsPerPage=5&page=1');
      expect(second.interventions).toEqual([]);
      expect(second.count).toBe(5);
    });

    it('gives each row of a page the ids of its photos, oldest first, and the edit dialog those of its intervention', async () => {
      const first = await storeTestPhoto(ctx.db, r.r1);
      const second = await storeTestPhoto(ctx.db, r.r1);
      const other = await storeTestPhoto(ctx.db, r.r3);
      const body = await list('');
      expect(body.interventions.map((i) => [i.id, i.photos])).toEqual([
        [r.r4, []],
        [r.r1, [{ id: first }, { id: second }]],
        [r.r2, []],
        [r.r3, [{ id: other }]],
        [r.r5, []],
      ]);
      // One site's rows (the sites screen's dialog): r4 and r3.
      const site = await list(`id=${bouleau.id}`);
      expect(site.interventions.map((i) => [i.id, i.photos])).toEqual([
        [r.r4, []],
        [r.r3, [{ id: other }]],
      ]);
      const detail = await get(admin.cookie, `/api/admin/intervention/get/${r.r1}`);
      expect(detail.statusCode).toBe(200);
      expect(detail.json().intervention.photos).toEqual([{ id: first }, { id: second }]);
      expect((await get(admin.cookie, `/api/admin/intervention/get/${r.r2}`)).json().intervention.photos).toEqual([]);
    });

    it('filters by site and by action, with exact counts', async () => {
      const bySite = await list(`filter[site]=${bouleau.id}`);
      expect(ids(bySite as never)).toEqual([r.r4, r.r3]);
      expect(bySite.count).toBe(2);
      const byAction = await list('filter[action]=1');
      expect(ids(byAction as never)).toEqual([r.r2, r.r5]);
      expect(byAction.count).toBe(2);
      const both = await list(`filter[action]=1&filter[site]=${bouleau.id}&sort[name]=intervenant&sort[direction]=asc`);
      expect(both).toMatchObject({ count: 0, interventions: [] });
    });

    it.each([
      ['2026', ['r4', 'r1']],
      ['31/12', ['r2']],
      ['12/2025', ['r2', 'r3']],
      ['25/12/2025', []],
      ['12/0', ['r4', 'r5']],
      ['14:3', ['r3', 'r5']],
      ['00:30', ['r1']],
      ['01/01/2026', ['r1']],
      ['31/12/2025 23', ['r2']],
      ['1', ['r4', 'r1', 'r2', 'r3', 'r5']],
      ['abc', []],
    ])('matches the Paris-time display with the date filter %s', async (term, expected) => {
      const body = await list(`filter[date]=${encodeURIComponent(term)}`);
      expect(ids(body as never)).toEqual(expected.map((k) => r[k]));
      expect(body.count).toBe(expected.length);
      const sorted = await list(`filter[date]=${encodeURIComponent(term)}&sort[name]=action&sort[direction]=asc`);
      expect(new Set(ids(sorted as never))).toEqual(new Set(expected.map((k) => r[k])));
    });

    it('combines the date filter with a site restriction (the sites screen dialog)', async () => {
      const body = await list(`id=${epinette.id}&filter[date]=2025&sort[name]=intervenant&sort[direction]=desc`);
      // durand alice: r5 only (r1 is in 2026); arnaud bob: r2.
      expect(ids(body as never)).toEqual([r.r5, r.r2]);
      expect(body.count).toBe(2);
    });

    it('answers 404 for the list of an unknown site and 400 for an unknown sort or filter', async () => {
      expect((await get(admin.cookie, `${LIST}?id=999999`)).statusCode).toBe(404);
      expect((await get(admin.cookie, `${LIST}?sort[name]=valeur`)).statusCode).toBe(400);
      expect((await get(admin.cookie, `${LIST}?filter[typeBac]=1`)).statusCode).toBe(400);
      expect((await get(admin.cookie, `${LIST}?filter[site]=0x10`)).statusCode).toBe(400);
    });

    it('answers the public per-site list, ordered and filtered the same way', async () => {
      const res = await get(undefined, `/api/intervention/get/list/by/site/${epinette.id}?filter[date]=12%2F0&sort[name]=date&sort[direction]=desc`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        count: 1,
        countCapped: false,
        interventions: [
          {
            id: r.r5,
            date: '2025-07-12T12:31:00.000Z',
            idAction: 1,
            typeAction: 'Retournement',
            actionValeur: false,
            typeBac: 'Maturation',
            idTypeBac: 3,
            numeroBac: 3,
            idSiteComposteur: epinette.maturation,
            idBacDestination: null,
            idSite: epinette.id,
            site: 'Épinette',
            siteNom: 'Épinette',
            valeur: '',
            observations: null,
            referent: null,
            modificationAgent: null,
            idStatut: null,
            demandeIntervention: null,
            interventionRealisee: null,
          },
        ],
      });
      const byNumero = await get(undefined, `/api/intervention/get/list/by/site/${epinette.id}?sort[name]=numeroBac&sort[direction]=asc&filter[typeBac]=1`);
      expect(byNumero.json().interventions.map((i: { id: number }) => i.id)).toEqual([r.r2, r.r1]);
    });

    it('exports export.csv with the filters and sort of the table, BOM, semicolons and the formula guard', async () => {
      const res = await get(siteAdmin.cookie, '/api/admin/intervention/export?filter[site]=' + epinette.id + '&sort[name]=action&sort[direction]=asc');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-disposition']).toBe('attachment; filename="export.csv"');
      expect(res.body.startsWith('\uFEFF')).toBe(true);
      const lines = res.body.slice(1).split('\r\n');
      expect(lines[0]).toBe('Date;Site;Intervenant;Type Cellule;N° Cellule;Action;Valeur;Unité;Observations;Modifiée par');
      // Retournement (r5 then r2 by date), then Température (r1): its value a number, its unit apart.
      expect(lines.slice(1, 4)).toEqual([
        '12/07/2025 14:31;Épinette;DURAND Alice;Maturation;3;Retournement;;;;',
        "31/12/2025 23:30;Épinette;ARNAUD Bob;Apport;1;Retournement;;;'=1+1;",
        '01/01/2026 00:30;Épinette;DURAND Alice;Apport;1;Température;55;°C;;',
      ]);
      expect(lines[4]).toBe('');
    });
  });

  describe('roles', () => {
    it('lets ROLE_ADMIN and ROLE_ADMIN_SITE read, and nobody else', async () => {
      expect((await get(undefined, LIST)).statusCode).toBe(401);
      expect((await get(referent.cookie, LIST)).statusCode).toBe(403);
      expect((await get(admin.cookie, LIST)).statusCode).toBe(200);
      expect((await get(siteAdmin.cookie, LIST)).statusCode).toBe(200);
      expect((await get(referent.cookie, `/api/admin/intervention/get/${r.r1}`)).statusCode).toBe(403);
      expect((await get(referent.cookie, '/api/admin/intervention/export')).statusCode).toBe(403);
    });

    it('refuses update and delete to ROLE_ADMIN alone (403)', async () => {
      const body = { date: '2025-12-31T23:30:00.000Z', values: [{ composteur: epinette.apport, action: 6, valeur: 40 }] };
      expect((await put(admin.cookie, `/api/admin/intervention/update/${r.r1}`, body)).statusCode).toBe(403);
      expect((await put(admin.cookie, `/api/admin/intervention/delete/${r.r1}`)).statusCode).toBe(403);
      expect((await put(deleter.cookie, `/api/admin/intervention/update/${r.r1}`, body)).statusCode).toBe(403);
      expect((await put(updater.cookie, `/api/admin/intervention/delete/${r.r1}`)).statusCode).toBe(403);
      expect((await put(undefined, `/api/admin/intervention/delete/${r.r1}`)).statusCode).toBe(401);
    });

    it('answers 404 Intervention introuvable for an unknown id', async () => {
      const body = { date: '2025-12-31T23:30:00.000Z', values: [{ composteur: epinette.apport, action: 6, valeur: 40 }] };
      for (const res of [
        await get(admin.cookie, '/api/admin/intervention/get/999999'),
        await put(updater.cookie, '/api/admin/intervention/update/999999', body),
        await put(deleter.cookie, '/api/admin/intervention/delete/999999'),
      ]) {
        expect(res.statusCode).toBe(404);
        expect(res.json().message).toBe('Intervention introuvable');
      }
      expect((await get(admin.cookie, '/api/admin/intervention/get/1e3')).statusCode).toBe(400);
    });
  });

  describe('correction', () => {
    it('lets ROLE_ADMIN_SITE with ROLE_ADMIN_UPDATE correct a temperature, and records who and when', async () => {
      const res = await put(updater.cookie, `/api/admin/intervention/update/${r.r1}`, {
        date: '2025-12-31T23:45:00.000Z',
        values: [{ composteur: epinette.apport, action: 6, valeur: '42,5', observations: ' Sonde recalibrée ' }],
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ status: 'success', message: 'Intervention modifiée', demandesAnnulees: [], demandesCreees: [] });
      const detail = (await get(admin.cookie, `/api/admin/intervention/get/${r.r1}`)).json();
      expect(detail.intervention).toMatchObject({ valeur: '42.5 °C', valeurSaisie: 42.5, observations: 'Sonde recalibrée', modificationAgent: 'LEROY Paul', date: '2025-12-31T23:45:00.000Z' });
      expect(detail.site).toMatchObject({ id: epinette.id, nom: 'Épinette' });
      expect(detail.site.siteComposteurs.map((c: { id: number }) => c.id)).toEqual([epinette.apport, epinette.broyat, epinette.maturation, epinette.inactive]);
      expect(detail.lastChange).toMatchObject({ agent: 'LEROY Paul', action: 'update' });
      const audit = await ctx.db.selectFrom('intervention_audit').where('intervention_id', '=', r.r1).selectAll().execute();
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ action: 'update', agent_id: updater.id, agent_nom: 'LEROY Paul' });
      expect(audit[0].before).toMatchObject({ valeurNombre: 55, observations: null, date: '2025-12-31T23:30:00.000Z' });
      expect(audit[0].after).toMatchObject({ valeurNombre: 42.5, observations: 'Sonde recalibrée' });
      const row = (await get(admin.cookie, `${LIST}?filter[site]=${epinette.id}&filter[action]=6`)).json().interventions[0];
      expect(row.modificationAgent).toBe('LEROY Paul');
      expect(Math.abs(Date.parse(row.modifiedAt) - Date.now())).toBeLessThan(60_000);
    });

    it('applies the rules of the add route with the same keys', async () => {
      const res = await put(updater.cookie, `/api/admin/intervention/update/${r.r1}`, {
        date: new Date(Date.now() + 3_600_000).toISOString(),
        values: [{ composteur: epinette.apport, action: 13, observations: '  ' }],
      });
      expect(res.statusCode).toBe(400);
      // The first error is not a missing field: the message names it (the dialog's own message
      // for missing fields stays for a refusal that starts with one).
      expect(res.json().message).toBe('La date ne peut pas être dans le futur');
      expect(res.json().errors).toEqual([
        { key: 'date', error: 'La date ne peut pas être dans le futur' },
        { key: 'values0.observations', error: 'Les observations sont obligatoires pour cette action' },
      ]);
      const wrongCell = await put(updater.cookie, `/api/admin/intervention/update/${r.r1}`, {
        date: '2025-12-31T23:45:00.000Z',
        values: [{ composteur: bouleau.apport, action: 7, valeur: 1 }],
      });
      expect(wrongCell.json().errors).toEqual([
        { key: 'values0.composteur', error: "Cette cellule n'appartient pas à ce site" },
      ]);
      const notAllowed = await put(updater.cookie, `/api/admin/intervention/update/${r.r1}`, {
        date: '2025-12-31T23:45:00.000Z',
        values: [{ composteur: epinette.apport, action: 7, valeur: 1 }],
      });
      expect(notAllowed.json().errors).toEqual([{ key: 'values0.action', error: 'Action non autorisée sur cette cellule' }]);
      const twoBlocks = await put(updater.cookie, `/api/admin/intervention/update/${r.r1}`, {
        date: '2025-12-31T23:45:00.000Z',
        values: [
          { composteur: epinette.apport, action: 1 },
          { composteur: epinette.apport, action: 1 },
        ],
      });
      expect(twoBlocks.statusCode).toBe(400);
    });

    it('re-evaluates the rules when the action or value of a trigger with a pending request changes', async () => {
      const add = await ctx.app.inject({
        method: 'POST',
        url: '/api/admin/intervention/add',
        headers: { cookie: updater.cookie },
        payload: { clientId: crypto.randomUUID(), site: bouleau.id, date: '2026-01-10T09:00:00.000Z', values: [{ composteur: bouleau.apport, action: 16, valeur: 5 }] },
      });
      expect(add.statusCode, add.body).toBe(200);
      const id: number = add.json().interventions[0];
      const [transfert] = add.json().demandes as number[];
      const demandes = () => ctx.db.selectFrom('demande_intervention').where('intervention_declenchante_id', '=', id).selectAll().orderBy('id').execute();
      expect((await get(admin.cookie, `${LIST}?filter[site]=${bouleau.id}&filter[action]=16`)).json().interventions[0].pendingDemande).toBe(true);

      // Niveau d'apport 1/4 no longer calls for a transfer: the request is cancelled, by whom and when.
      const quarter = await put(updater.cookie, `/api/admin/intervention/update/${id}`, {
        date: '2026-01-10T09:00:00.000Z',
        values: [{ composteur: bouleau.apport, action: 16, valeur: 2 }],
      });
      expect(quarter.json()).toMatchObject({ demandesAnnulees: [transfert], demandesCreees: [] });
      let rows = await demandes();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: transfert, statut_id: 6, annulee_par_id: updater.id });
      expect(rows[0].date_annulation).not.toBeNull();

      // État du composteur 'Endommagé' calls for a repair, due 14 days after the intervention.
      const broken = await put(updater.cookie, `/api/admin/intervention/update/${id}`, {
        date: '2026-01-10T09:00:00.000Z',
        values: [{ composteur: bouleau.apport, action: 9, valeur: 12 }],
      });
      expect(broken.statusCode, broken.body).toBe(200);
      const [repair] = broken.json().demandesCreees as number[];
      rows = await demandes();
      expect(rows.find((d) => d.id === repair)).toMatchObject({ statut_id: 3, type_action_programmee_id: 14, site_composteur_id: bouleau.apport });
      expect(new Date(rows.find((d) => d.id === repair)!.date_echeance).toISOString()).toBe('2026-01-24T09:00:00.000Z');

      // Back to Niveau d'apport Plein: the repair goes, a new transfer is raised.
      const full = await put(updater.cookie, `/api/admin/intervention/update/${id}`, {
        date: '2026-01-10T09:00:00.000Z',
        values: [{ composteur: bouleau.apport, action: 16, valeur: 5 }],
      });
      expect(full.json().demandesAnnulees).toEqual([repair]);
      expect(full.json().demandesCreees).toHaveLength(1);
      const audit = await ctx.db.selectFrom('intervention_audit').where('intervention_id', '=', id).select(['action', 'before', 'after']).orderBy('id').execute();
      expect(audit.map((a) => a.action)).toEqual(['update', 'update', 'update']);
      expect(audit[1].after).toMatchObject({ action: 9, valeurConstante: 12, demandesCreees: [repair] });
    });
  });

  describe('locks and deletion', () => {
    async function demande(opts: { statut: number; declenchante?: number; realisee?: number }) {
      const row = await ctx.db
        .insertInto('demande_intervention')
        .values({
          site_id: bouleau.id,
          site_composteur_id: bouleau.apport,
          statut_id: opts.statut,
          type_action_programmee_id: 14,
          intervention_declenchante_id: opts.declenchante ?? null,
          intervention_realisee_id: opts.realisee ?? null,
          date_echeance: new Date('2026-02-01T00:00:00Z'),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    }
    const body = (composteur: number) => ({ date: '2026-01-15T10:00:00.000Z', values: [{ composteur, action: 14, valeur: 'Charnière changée' }] });

    it('locks the result of a processed request and the trigger of a request already processed', async () => {
      const trigger = await insert({ site: bouleau, cell: 'apport', action: 18, texte: 'Charnière cassée', date: '2026-01-14T10:00:00Z', by: alice });
      const result = await insert({ site: bouleau, cell: 'apport', action: 14, texte: 'Charnière changée', date: '2026-01-15T10:00:00Z', by: alice });
      const d = await demande({ statut: 5, declenchante: trigger, realisee: result });
      await ctx.db.updateTable('intervention').set({ demande_intervention_id: d }).where('id', '=', result).execute();

      for (const id of [trigger, result]) {
        const upd = await put(updater.cookie, `/api/admin/intervention/update/${id}`, body(bouleau.apport));
        expect(upd.statusCode).toBe(409);
        expect(upd.json().message).toBe('Impossible de modifier car liée à une autre intervention');
        const del = await put(deleter.cookie, `/api/admin/intervention/delete/${id}`);
        expect(del.statusCode).toBe(409);
        expect(del.json().message).toBe('Impossible à supprimer car liée à une autre intervention');
      }
      const rows = (await get(admin.cookie, `${LIST}?filter[site]=${bouleau.id}&filter[date]=2026`)).json().interventions as { id: number; locked: boolean }[];
      expect(rows.filter((x) => x.id === trigger || x.id === result).map((x) => x.locked)).toEqual([true, true]);
    });

    it('deletes a trigger whose request was cancelled, keeping the request in the history', async () => {
      const trigger = await insert({ site: bouleau, cell: 'apport', action: 18, texte: 'Couvercle fendu', date: '2026-01-16T10:00:00Z', by: alice });
      const d = await demande({ statut: 6, declenchante: trigger });
      const res = await put(deleter.cookie, `/api/admin/intervention/delete/${trigger}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: 'Intervention supprimée', demandeSupprimee: null });
      expect(await ctx.db.selectFrom('demande_intervention').where('id', '=', d).select(['statut_id', 'intervention_declenchante_id']).executeTakeFirst()).toEqual({
        statut_id: 6,
        intervention_declenchante_id: null,
      });
    });

    it('deletes a repair-to-do and its pending request together, and audits it', async () => {
      const trigger = await insert({ site: bouleau, cell: 'apport', action: 18, texte: 'Trappe bloquée', date: '2026-01-17T10:00:00Z', by: alice });
      const d = await demande({ statut: 4, declenchante: trigger });
      const row = (await get(admin.cookie, `${LIST}?filter[site]=${bouleau.id}&filter[date]=17%2F01`)).json().interventions[0];
      expect(row).toMatchObject({ id: trigger, locked: false, pendingDemande: true });
      const res = await put(deleter.cookie, `/api/admin/intervention/delete/${trigger}`);
      expect(res.json()).toEqual({ status: 'success', message: "Intervention et demande d'intervention liée supprimées", demandeSupprimee: d });
      expect(await ctx.db.selectFrom('intervention').where('id', '=', trigger).select('id').executeTakeFirst()).toBeUndefined();
      expect(await ctx.db.selectFrom('demande_intervention').where('id', '=', d).select('id').executeTakeFirst()).toBeUndefined();
      const audit = await ctx.db.selectFrom('intervention_audit').where('intervention_id', '=', trigger).selectAll().execute();
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ action: 'delete', agent_nom: 'PETIT Anne', after: null });
      expect(audit[0].before).toMatchObject({ action: 18, valeurTexte: 'Trappe bloquée', demandesSupprimees: [d] });
      expect((await get(admin.cookie, `/api/admin/intervention/get/${trigger}`)).statusCode).toBe(404);
    });

    it('leaves both rows when the second delete fails', async () => {
      const trigger = await insert({ site: bouleau, cell: 'apport', action: 18, texte: 'Vis manquante', date: '2026-01-18T10:00:00Z', by: alice });
      const d = await demande({ statut: 3, declenchante: trigger });
      await sql
        .raw(
          `CREATE FUNCTION h10_fail() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'panne simulée'; END $$;
           CREATE TRIGGER h10_fail BEFORE DELETE ON intervention FOR EACH ROW WHEN (OLD.id = ${trigger}) EXECUTE FUNCTION h10_fail();`,
        )
        .execute(ctx.db);
      try {
        const res = await put(deleter.cookie, `/api/admin/intervention/delete/${trigger}`);
        expect(res.statusCode).toBe(500);
      } finally {
        await sql.raw('DROP TRIGGER h10_fail ON intervention; DROP FUNCTION h10_fail();').execute(ctx.db);
      }
      expect(await ctx.db.selectFrom('intervention').where('id', '=', trigger).select('id').executeTakeFirst()).toEqual({ id: trigger });
      expect(await ctx.db.selectFrom('demande_intervention').where('id', '=', d).select('statut_id').executeTakeFirst()).toEqual({ statut_id: 3 });
      expect(await ctx.db.selectFrom('intervention_audit').where('intervention_id', '=', trigger).select('id').execute()).toEqual([]);
    });

    it('keeps the per-site and per-action counts exact through inserts, moves and deletes', async () => {
      const counts = await ctx.db
        .selectFrom('intervention_count')
        .select(['site_id', 'type_action_id', 'n'])
        .where('n', '<>', 0)
        .where('type_action_id', '<>', 0)
        .orderBy('site_id')
        .orderBy('type_action_id')
        .execute();
      const truth = await ctx.db
        .selectFrom('intervention')
        .select(['site_id', 'type_action_id', sql<number>`count(*)::int`.as('n')])
        .groupBy(['site_id', 'type_action_id'])
        .orderBy('site_id')
        .orderBy('type_action_id')
        .execute();
      expect(counts).toEqual(truth);
      const totals = await ctx.db.selectFrom('intervention_count').where('type_action_id', '=', 0).where('n', '<>', 0).select(['site_id', 'n']).orderBy('site_id').execute();
      const perSite = await ctx.db.selectFrom('intervention').select(['site_id', sql<number>`count(*)::int`.as('n')]).groupBy('site_id').orderBy('site_id').execute();
      expect(totals).toEqual(perSite);
    });
  });
});
