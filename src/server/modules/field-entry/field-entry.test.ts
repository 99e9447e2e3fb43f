import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createCell, createEquippedSite, createPendingDemande, createSite } from './test-factories.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Block = { composteur?: number | null; action?: number | null; valeur?: number | string | null; bacDestination?: number | null; observations?: string | null; demandeIntervention?: number | null };

const DAY_MS = 24 * 3600 * 1000;
const PAST = '2024-05-10T08:00:00.000Z';

function submission(site: number, values: Block[], extra: Partial<{ clientId: string; date: string }> = {}) {
  return { clientId: crypto.randomUUID(), site, date: new Date(Date.now() - 3600_000).toISOString(), values, ...extra };
}

describe.each(TEST_DRIVERS)('field entry API (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Awaited<ReturnType<typeof loggedAs>>;
  let site: Awaited<ReturnType<typeof createEquippedSite>>;
  let otherSite: Awaited<ReturnType<typeof createEquippedSite>>;
  /** Only those who work the requests board (ROLE_ADMIN, providers) close requests. */
  let closer: Awaited<ReturnType<typeof loggedAs>>;

  const post = (cookie: string | undefined, payload: unknown) =>
    ctx.app.inject({ method: 'POST', url: '/api/admin/intervention/add', headers: cookie ? { cookie } : {}, payload: payload as object });
  const interventionsOf = (clientId: string) => ctx.db.selectFrom('intervention').where('client_id', '=', clientId).selectAll().orderBy('id').execute();

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN_SITE'], { nom: 'MARTIN', prenom: 'Jeanne' });
    closer = await loggedAs(ctx, ['ROLE_ADMIN']);
    site = await createEquippedSite(ctx.db);
    otherSite = await createEquippedSite(ctx.db);
  });
  afterAll(() => ctx.close());

  describe('validation of a submission', () => {
    async function errorsFor(values: Block[], extra: Partial<{ clientId: string; date: string }> = {}, target = site.id) {
      const res = await post(admin.cookie, submission(target, values, extra));
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body.status).toBe('error');
      // General for a missing field, else the first error itself (each case below checks its errors).
      expect(['Veuillez renseigner les champs obligatoires', body.errors[0].error]).toContain(body.message);
      return body.errors as { key: string; error: string }[];
    }

    it('asks for a cell and an action on each block', async () => {
      const errors = await errorsFor([{ composteur: null, action: null }]);
      expect(errors).toEqual(
        expect.arrayContaining([
          { key: 'values0.composteur', error: 'Veuillez choisir une cellule' },
          { key: 'values0.action', error: 'Veuillez choisir une action' },
        ]),
      );
    });

    it('keys errors by the index of the faulty block', async () => {
      const errors = await errorsFor([{ composteur: site.apport, action: 1 }, { composteur: site.apport, action: 13 }]);
      expect(errors).toEqual([{ key: 'values1.observations', error: 'Les observations sont obligatoires pour cette action' }]);
    });

    it('requires observations for action 13 and accepts them when given', async () => {
      expect(await errorsFor([{ composteur: site.apport, action: 13, observations: '   ' }])).toEqual([
        { key: 'values0.observations', error: 'Les observations sont obligatoires pour cette action' },
      ]);
      const ok = await post(admin.cookie, submission(site.id, [{ composteur: site.apport, action: 13, observations: 'Couvercle remis' }]));
      expect(ok.statusCode).toBe(200);
    });

    it('refuses observations longer than 1000 characters', async () => {
      expect(await errorsFor([{ composteur: site.apport, action: 1, observations: 'x'.repeat(1001) }])).toEqual([
        { key: 'values0.observations', error: 'Les observations ne doivent pas dépasser 1000 caractères' },
      ]);
    });

    it('refuses a date in the future but tolerates a phone clock a minute ahead', async () => {
      const future = new Date(Date.now() + 10 * 60_000).toISOString();
      expect(await errorsFor([{ composteur: site.apport, action: 1 }], { date: future })).toEqual([
        { key: 'date', error: 'La date ne peut pas être dans le futur' },
      ]);
      const skewed = new Date(Date.now() + 60_000).toISOString();
      expect((await post(admin.cookie, submission(site.id, [{ composteur: site.apport, action: 1 }], { date: skewed }))).statusCode).toBe(200);
    });

    it('lists a date in the future together with every block error, in one answer', async () => {
      const future = new Date(Date.now() + 10 * 60_000).toISOString();
      const errors = await errorsFor(
        [
          { composteur: site.apport, action: 13, observations: '' },
          { composteur: otherSite.apport, action: 1 },
          { composteur: site.apport, action: 4, valeur: 20_000 },
          { composteur: site.apport, action: 1, observations: 'x'.repeat(1001) },
        ],
        { date: future },
      );
      // The schema's error (block 3) comes in the same answer as the date and the catalogue's.
      expect(errors).toEqual([
        { key: 'values3.observations', error: 'Les observations ne doivent pas dépasser 1000 caractères' },
      ]);
      const fixedLength = await errorsFor(
        [
          { composteur: site.apport, action: 13, observations: '' },
          { composteur: otherSite.apport, action: 1 },
          { composteur: site.apport, action: 4, valeur: 20_000 },
        ],
        { date: future },
      );
      expect(fixedLength).toEqual([
        { key: 'date', error: 'La date ne peut pas être dans le futur' },
        { key: 'values0.observations', error: 'Les observations sont obligatoires pour cette action' },
        { key: 'values1.composteur', error: "Cette cellule n'appartient pas à ce site" },
        { key: 'values2.valeur', error: 'La quantité doit être un nombre entier de litres entre 0 et 10 000' },
      ]);
    });

    it('refuses dates before 2000, such as the year 0 no database stores', async () => {
      for (const date of ['0000-01-01T00:00:00Z', '1999-12-31T23:59:59Z']) {
        expect(await errorsFor([{ composteur: site.apport, action: 1 }], { date })).toEqual([{ key: 'date', error: 'Date invalide' }]);
      }
      expect((await post(admin.cookie, submission(site.id, [{ composteur: site.apport, action: 1 }], { date: '2000-01-01T00:00:00Z' }))).statusCode).toBe(200);
    });

    it('refuses ids beyond the int32 range and control characters with field errors, not a server error', async () => {
      const big = 2_147_483_648;
      const bad = await post(admin.cookie, { ...submission(big, [{ composteur: site.apport, action: 1, demandeIntervention: big, bacDestination: big }]) });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual(
        expect.arrayContaining([
          { key: 'site', error: 'Veuillez choisir un site' },
          { key: 'values0.demandeIntervention', error: "Cette demande d'intervention n'est pas en attente sur ce site" },
          { key: 'values0.bacDestination', error: 'La destination doit être une cellule de maturation active du site' },
        ]),
      );
      expect(await errorsFor([{ composteur: site.apport, action: 1, observations: 'a\u0000b' }])).toEqual([
        { key: 'values0.observations', error: 'Caractères non autorisés' },
      ]);
      expect(await errorsFor([{ composteur: site.apport, action: 14, valeur: 'charni\u0007re' }])).toEqual([
        { key: 'values0.valeur', error: 'Caractères non autorisés' },
      ]);
      // Tabs and line breaks are ordinary text.
      expect((await post(admin.cookie, submission(site.id, [{ composteur: site.apport, action: 13, observations: 'Couvercle\tremis\r\nSac retiré' }]))).statusCode).toBe(200);
    });

    it('refuses a submission without blocks or with a malformed client id', async () => {
      const res = await post(admin.cookie, { ...submission(site.id, []), clientId: 'pas-un-uuid' });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual(
        expect.arrayContaining([
          { key: 'values', error: 'Veuillez ajouter au moins une action' },
          { key: 'clientId', error: 'Identifiant de saisie invalide' },
        ]),
      );
    });

    it('refuses a cell of another site', async () => {
      expect(await errorsFor([{ composteur: otherSite.apport, action: 1 }])).toEqual([
        { key: 'values0.composteur', error: "Cette cellule n'appartient pas à ce site" },
      ]);
    });

    it('refuses a deactivated cell', async () => {
      expect(await errorsFor([{ composteur: site.inactive, action: 1 }])).toEqual([{ key: 'values0.composteur', error: 'Cette cellule est désactivée' }]);
    });

    it('refuses an action not allowed on the cell type', async () => {
      // 7 Niveau de broyat is for broyat cells only.
      expect(await errorsFor([{ composteur: site.apport, action: 7, valeur: 1 }])).toEqual([
        { key: 'values0.action', error: 'Action non autorisée sur cette cellule' },
      ]);
    });

    it.each([
      ['litres missing', 4, null, 'Veuillez renseigner une quantité en litres'],
      ['litres not whole', 4, 12.5, 'La quantité doit être un nombre entier de litres entre 0 et 10 000'],
      ['litres above 10 000', 15, 10_001, 'La quantité doit être un nombre entier de litres entre 0 et 10 000'],
      ['litres negative', 4, -1, 'La quantité doit être un nombre entier de litres entre 0 et 10 000'],
      ['temperature missing', 6, null, 'Veuillez renseigner une température'],
      ['temperature above 90', 6, 90.5, 'La température doit être comprise entre -20 et 90 °C'],
      ['temperature below -20', 6, -21, 'La température doit être comprise entre -20 et 90 °C'],
      ['temperature not a number', 6, 'chaud', 'La température doit être comprise entre -20 et 90 °C'],
      ['constant missing', 16, null, 'Veuillez choisir une valeur'],
      ['constant of another action', 16, 12, 'Valeur non autorisée pour cette action'],
      ['state constant of another action', 9, 6, 'Valeur non autorisée pour cette action'],
      ['free text missing', 18, '  ', 'Veuillez renseigner une précision'],
      ['free text longer than 500', 14, 'x'.repeat(501), 'La précision ne doit pas dépasser 500 caractères'],
      ['a value on an action without one', 1, 5, 'Cette action ne prend pas de valeur'],
    ])('refuses the value when %s', async (_name, action, valeur, error) => {
      expect(await errorsFor([{ composteur: site.apport, action, valeur }])).toEqual([{ key: 'values0.valeur', error }]);
    });

    it.each([
      ['is missing', () => null, 'Veuillez choisir une cellule de destination'],
      ['is not a maturation cell', () => site.broyat, 'La destination doit être une cellule de maturation active du site'],
      ['belongs to another site', () => otherSite.maturation, 'La destination doit être une cellule de maturation active du site'],
      ['is the source cell', () => site.apport, "La destination doit être différente de la cellule d'origine"],
    ])('refuses a transfer whose destination %s', async (_name, dest, error) => {
      expect(await errorsFor([{ composteur: site.apport, action: 3, valeur: 200, bacDestination: dest() }])).toEqual([{ key: 'values0.bacDestination', error }]);
    });

    it('refuses a transfer to a deactivated maturation cell', async () => {
      const retired = await createCell(ctx.db, site.id, 3, 9, { actif: false });
      expect(await errorsFor([{ composteur: site.apport, action: 3, valeur: 200, bacDestination: retired }])).toEqual([
        { key: 'values0.bacDestination', error: 'La destination doit être une cellule de maturation active du site' },
      ]);
    });

    it('refuses a destination on an action other than a transfer', async () => {
      expect(await errorsFor([{ composteur: site.apport, action: 15, valeur: 10, bacDestination: site.maturation }])).toEqual([
        { key: 'values0.bacDestination', error: 'Cette action ne prend pas de cellule de destination' },
      ]);
    });

    it('writes nothing on a refused submission, so the corrected entry can be sent again under the same id', async () => {
      const clientId = crypto.randomUUID();
      const bad = await post(admin.cookie, submission(site.id, [{ composteur: site.apport, action: 1 }, { composteur: site.apport, action: 4 }], { clientId }));
      expect(bad.statusCode).toBe(400);
      expect(await interventionsOf(clientId)).toHaveLength(0);
      const fixed = await post(admin.cookie, submission(site.id, [{ composteur: site.apport, action: 1 }, { composteur: site.apport, action: 4, valeur: 80 }], { clientId }));
      expect(fixed.statusCode).toBe(200);
      expect(await interventionsOf(clientId)).toHaveLength(2);
    });
  });

  describe('saving a submission', () => {
    it('stores each block in the column of its value kind, in one answer', async () => {
      const clientId = crypto.randomUUID();
      const res = await post(
        admin.cookie,
        submission(
          site.id,
          [
            { composteur: site.apport, action: 3, valeur: 200, bacDestination: site.maturation },
            { composteur: site.maturation, action: 6, valeur: '54,5' },
            { composteur: site.broyat, action: 8, valeur: 7 },
            { composteur: site.apport, action: 14, valeur: '  Charnière changée ' },
            { composteur: site.apport, action: 2, observations: '  ' },
          ],
          { clientId, date: PAST },
        ),
      );
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ status: 'success', message: 'Intervention(s) ajouté(s)', demandes: [] });
      const rows = await interventionsOf(clientId);
      expect(rows.map((r) => r.id)).toEqual(body.interventions);
      expect(rows.map((r) => [r.type_action_id, r.valeur_nombre === null ? null : Number(r.valeur_nombre), r.valeur_constante, r.valeur_texte, r.bac_destination_id])).toEqual([
        [3, 200, null, null, site.maturation],
        [6, 54.5, null, null, null],
        [8, null, 7, null, null],
        [14, null, null, 'Charnière changée', null],
        [2, null, null, null, null],
      ]);
      for (const r of rows) {
        expect(r).toMatchObject({ site_id: site.id, intervenant_id: admin.id, observations: null, demande_intervention_id: null });
        expect(new Date(r.date).toISOString()).toBe(PAST);
      }
    });
  });

  describe('who may record', () => {
    const block = () => [{ composteur: site.apport, action: 1 }];

    it('refuses anybody not logged in', async () => {
      expect((await post(undefined, submission(site.id, block()))).statusCode).toBe(401);
      expect((await ctx.app.inject(`/api/admin/site/get/infos/pour/intervention/${site.id}`)).statusCode).toBe(401);
    });

    it('lets a referent record on their own site and not on another', async () => {
      const referent = await loggedAs(ctx, ['ROLE_USER']);
      const own = await createEquippedSite(ctx.db, { referents: [referent.id] });
      const ok = await post(referent.cookie, submission(own.id, [{ composteur: own.apport, action: 1 }]));
      expect(ok.statusCode).toBe(200);
      const refused = await post(referent.cookie, submission(site.id, block()));
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ status: 'error', message: 'Accès non authorisé.' });
    });

    it('lets a provider and a site administrator record on any active site', async () => {
      const provider = await loggedAs(ctx, ['ROLE_PRESTATAIRE']);
      expect((await post(provider.cookie, submission(site.id, block()))).statusCode).toBe(200);
      expect((await post(provider.cookie, submission(otherSite.id, [{ composteur: otherSite.apport, action: 1 }]))).statusCode).toBe(200);
      expect((await post(admin.cookie, submission(otherSite.id, [{ composteur: otherSite.apport, action: 1 }]))).statusCode).toBe(200);
    });

    it('refuses a user administrator', async () => {
      const userAdmin = await loggedAs(ctx, ['ROLE_ADMIN_USER']);
      expect((await post(userAdmin.cookie, submission(site.id, block()))).statusCode).toBe(403);
    });

    it('answers 404 for an unknown site or a site that is only requested', async () => {
      const requested = await createSite(ctx.db, { statut: 2 });
      const cell = await createCell(ctx.db, requested.id, 1, 1);
      const res = await post(admin.cookie, submission(requested.id, [{ composteur: cell, action: 1 }]));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ status: 'error', message: 'Site introuvable' });
      expect((await post(admin.cookie, submission(999_999, block()))).statusCode).toBe(404);
    });
  });

  describe('replays of one entry', () => {
    const blocks = () => [
      { composteur: site.apport, action: 4, valeur: 120 },
      { composteur: site.apport, action: 18, valeur: 'Planche cassée' },
    ];

    it('answers the stored result to a replay and writes nothing more', async () => {
      const payload = submission(site.id, blocks());
      const first = await post(admin.cookie, payload);
      const second = await post(admin.cookie, payload);
      expect(first.statusCode).toBe(200);
      expect(second.statusCode).toBe(200);
      expect(second.json()).toEqual(first.json());
      expect(await interventionsOf(payload.clientId)).toHaveLength(2);
      const demandes = await ctx.db.selectFrom('demande_intervention').where('intervention_declenchante_id', 'in', first.json().interventions).selectAll().execute();
      expect(demandes).toHaveLength(1);
    });

    it('treats the same date written with another offset as the same entry', async () => {
      const payload = submission(site.id, blocks(), { date: '2024-05-10T10:00:00+02:00' });
      const first = await post(admin.cookie, payload);
      const second = await post(admin.cookie, { ...payload, date: PAST });
      expect(second.statusCode).toBe(200);
      expect(second.json()).toEqual(first.json());
    });

    it('answers 409 to the same id with a different content and writes nothing', async () => {
      const payload = submission(site.id, blocks());
      await post(admin.cookie, payload);
      const changed = await post(admin.cookie, { ...payload, values: [{ composteur: site.apport, action: 4, valeur: 121 }] });
      expect(changed.statusCode).toBe(409);
      expect(changed.json()).toEqual({ status: 'error', message: 'Cette saisie a déjà été envoyée avec un contenu différent.' });
      expect(await interventionsOf(payload.clientId)).toHaveLength(2);
    });

    it('answers 409 when another account sends an id already used', async () => {
      const payload = submission(site.id, blocks());
      await post(admin.cookie, payload);
      const provider = await loggedAs(ctx, ['ROLE_PRESTATAIRE']);
      expect((await post(provider.cookie, payload)).statusCode).toBe(409);
    });

    it('writes one set of rows when posts of one id arrive together, and all succeed with the same ids', async () => {
      const payload = submission(site.id, blocks());
      const answers = await Promise.all([1, 2, 3, 4].map(() => post(admin.cookie, payload)));
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200]);
      for (const a of answers) expect(a.json()).toEqual(answers[0].json());
      const rows = await interventionsOf(payload.clientId);
      expect(rows.map((r) => r.id)).toEqual(answers[0].json().interventions);
      const submissions = await ctx.db.selectFrom('intervention_submission').where('client_id', '=', payload.clientId).selectAll().execute();
      expect(submissions).toHaveLength(1);
    });
  });

  describe('requests raised by the rules', () => {
    // Each case on a bin of its own: a request pending on a bin takes the next matching entries
    // as further calls for it (request-lifecycle.test.ts) instead of raising another.
    let ruled: Awaited<ReturnType<typeof createEquippedSite>>;
    async function raise(block: Block) {
      const res = await post(admin.cookie, submission(ruled.id, [block], { date: PAST }));
      expect(res.statusCode).toBe(200);
      const body = res.json() as { interventions: number[]; demandes: number[] };
      const rows = await ctx.db.selectFrom('demande_intervention').where('intervention_declenchante_id', '=', body.interventions[0]).selectAll().execute();
      expect(rows.map((r) => r.id)).toEqual(body.demandes);
      return rows;
    }

    it.each([
      ['18 Réparation à effectuer, always', () => ({ composteur: ruled.apport, action: 18, valeur: 'Porte arrachée' }), () => ruled.apport, 14, 14],
      ['9 État du composteur Endommagé', () => ({ composteur: ruled.maturation, action: 9, valeur: 12 }), () => ruled.maturation, 14, 14],
      ["16 Niveau d'apport 3/4", () => ({ composteur: ruled.apport, action: 16, valeur: 4 }), () => ruled.apport, 3, 7],
      ["16 Niveau d'apport Plein", () => ({ composteur: ruled.apport, action: 16, valeur: 5 }), () => ruled.apport, 3, 7],
      ['7 Niveau de broyat Vide', () => ({ composteur: ruled.broyat, action: 7, valeur: 1 }), () => ruled.broyat, 12, 7],
      ['7 Niveau de broyat 1/4', () => ({ composteur: ruled.broyat, action: 7, valeur: 2 }), () => ruled.broyat, 12, 7],
      ['19 Niveau de matière Plein', () => ({ composteur: ruled.maturation, action: 19, valeur: 5 }), () => ruled.maturation, 17, 30],
    ])('raises a pending request after %s', async (_name, block, cell, programmee, delay) => {
      ruled = await createEquippedSite(ctx.db);
      const rows = await raise(block());
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ site_id: ruled.id, site_composteur_id: cell(), statut_id: 3, type_action_programmee_id: programmee, intervention_realisee_id: null });
      expect(new Date(rows[0].date_echeance).getTime()).toBe(new Date(PAST).getTime() + delay * DAY_MS);
    });

    it.each([
      ['9 État du composteur Usé', () => ({ composteur: ruled.apport, action: 9, valeur: 11 })],
      ['9 État du composteur Bon état', () => ({ composteur: ruled.apport, action: 9, valeur: 10 })],
      ["16 Niveau d'apport 1/2", () => ({ composteur: ruled.apport, action: 16, valeur: 3 })],
      ["16 Niveau d'apport 1/4", () => ({ composteur: ruled.apport, action: 16, valeur: 2 })],
      ['7 Niveau de broyat 1/2', () => ({ composteur: ruled.broyat, action: 7, valeur: 3 })],
      ['7 Niveau de broyat Plein', () => ({ composteur: ruled.broyat, action: 7, valeur: 5 })],
      ['19 Niveau de matière 3/4', () => ({ composteur: ruled.maturation, action: 19, valeur: 4 })],
      ['14 Réparation effectuée', () => ({ composteur: ruled.apport, action: 14, valeur: 'Faite' })],
    ])('raises nothing after %s', async (_name, block) => {
      ruled = await createEquippedSite(ctx.db);
      expect(await raise(block())).toEqual([]);
    });

    it('follows a rule changed in the table without a release', async () => {
      ruled = await createEquippedSite(ctx.db);
      await ctx.db.insertInto('demande_rule').values({ type_action_declenchante_id: 15, id_constante: null, type_action_programmee_id: 1, delai_jours: 3 }).execute();
      try {
        const rows = await raise({ composteur: ruled.apport, action: 15, valeur: 20 });
        expect(rows.map((r) => r.type_action_programmee_id)).toEqual([1]);
      } finally {
        await ctx.db.deleteFrom('demande_rule').where('type_action_declenchante_id', '=', 15).execute();
      }
    });
  });

  describe('processing a pending request', () => {
    it('links the request and the intervention both ways and marks the request done', async () => {
      const demande = await createPendingDemande(ctx.db, site.id, site.apport, 14);
      const scheduled = await createPendingDemande(ctx.db, site.id, site.apport, 3, 4);
      const res = await post(
        closer.cookie,
        submission(site.id, [
          { composteur: site.apport, action: 14, valeur: 'Réparée', demandeIntervention: demande },
          { composteur: site.apport, action: 3, valeur: 300, bacDestination: site.maturation, demandeIntervention: scheduled },
        ]),
      );
      expect(res.statusCode).toBe(200);
      const [first, second] = res.json().interventions as number[];
      const rows = await ctx.db.selectFrom('demande_intervention').where('id', 'in', [demande, scheduled]).select(['id', 'statut_id', 'intervention_realisee_id']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: demande, statut_id: 5, intervention_realisee_id: first },
        { id: scheduled, statut_id: 5, intervention_realisee_id: second },
      ]);
      const interventions = await ctx.db.selectFrom('intervention').where('id', 'in', [first, second]).select(['id', 'demande_intervention_id']).orderBy('id').execute();
      expect(interventions.map((i) => i.demande_intervention_id)).toEqual([demande, scheduled]);
    });

    it('refuses a request of another site, an unknown one, or the same request twice, writing nothing', async () => {
      const elsewhere = await createPendingDemande(ctx.db, otherSite.id, otherSite.apport, 14);
      const pending = await createPendingDemande(ctx.db, site.id, site.apport, 14);
      const payload = submission(site.id, [
        { composteur: site.apport, action: 14, valeur: 'a', demandeIntervention: elsewhere },
        { composteur: site.apport, action: 14, valeur: 'b', demandeIntervention: 2_147_483_647 },
        { composteur: site.apport, action: 14, valeur: 'c', demandeIntervention: pending },
        { composteur: site.apport, action: 14, valeur: 'd', demandeIntervention: pending },
      ]);
      const res = await post(closer.cookie, payload);
      expect(res.statusCode).toBe(400);
      const message = "Cette demande d'intervention n'est pas en attente sur ce site";
      expect(res.json().errors).toEqual([
        { key: 'values0.demandeIntervention', error: message },
        { key: 'values1.demandeIntervention', error: message },
        { key: 'values3.demandeIntervention', error: message },
      ]);
      expect(await interventionsOf(payload.clientId)).toHaveLength(0);
      const stillPending = await ctx.db.selectFrom('demande_intervention').where('id', '=', pending).select('statut_id').executeTakeFirstOrThrow();
      expect(stillPending.statut_id).toBe(3);
      expect(await ctx.db.selectFrom('intervention_submission').where('client_id', '=', payload.clientId).selectAll().execute()).toEqual([]);
    });
  });

  describe('a request processed or cancelled elsewhere', () => {
    const closedMessage = "Cette demande d'intervention a déjà été traitée ou annulée";

    it.each([
      ['already processed', 5],
      ['cancelled', 6],
    ])('answers 409 for a request %s, writing nothing', async (_name, statut) => {
      const closed = await createPendingDemande(ctx.db, site.id, site.apport, 14, statut);
      const payload = submission(site.id, [{ composteur: site.apport, action: 14, valeur: 'Réparée', demandeIntervention: closed }]);
      const res = await post(closer.cookie, payload);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ status: 'error', message: closedMessage });
      expect(await interventionsOf(payload.clientId)).toHaveLength(0);
      expect(await ctx.db.selectFrom('intervention_submission').where('client_id', '=', payload.clientId).selectAll().execute()).toEqual([]);
    });

    it('lists the field errors first when the entry also has some', async () => {
      const closed = await createPendingDemande(ctx.db, site.id, site.apport, 14, 5);
      const res = await post(
        closer.cookie,
        submission(site.id, [
          { composteur: site.apport, action: 14, valeur: 'Réparée', demandeIntervention: closed },
          { composteur: site.apport, action: 13 },
        ]),
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ key: 'values1.observations', error: 'Les observations sont obligatoires pour cette action' }]);
    });

    it('lets exactly one of two phones processing one request at once link it; the other gets 409', async () => {
      const demande = await createPendingDemande(ctx.db, site.id, site.apport, 14);
      const provider = await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3 });
      const a = submission(site.id, [{ composteur: site.apport, action: 14, valeur: 'Réparée par A', demandeIntervention: demande }]);
      const b = submission(site.id, [{ composteur: site.apport, action: 14, valeur: 'Réparée par B', demandeIntervention: demande }]);
      const answers = await Promise.all([post(closer.cookie, a), post(provider.cookie, b)]);
      expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      const loser = answers.find((r) => r.statusCode === 409)!;
      expect(loser.json().message).toBe(closedMessage);
      const linked = await ctx.db.selectFrom('intervention').where('demande_intervention_id', '=', demande).select('id').execute();
      expect(linked).toHaveLength(1);
      const winner = answers.find((r) => r.statusCode === 200)!;
      expect(linked[0].id).toBe((winner.json().interventions as number[])[0]);
      const row = await ctx.db.selectFrom('demande_intervention').where('id', '=', demande).select(['statut_id', 'intervention_realisee_id']).executeTakeFirstOrThrow();
      expect(row).toEqual({ statut_id: 5, intervention_realisee_id: linked[0].id });
      const written = await ctx.db.selectFrom('intervention').where('client_id', 'in', [a.clientId, b.clientId]).select('id').execute();
      expect(written).toHaveLength(1);
    });
  });

  describe('site information for the site sheet', () => {
    it('gives the site header and its active cells only', async () => {
      const res = await ctx.app.inject({ url: `/api/admin/site/get/infos/pour/intervention/${site.id}`, headers: { cookie: admin.cookie } });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ id: site.id, code: site.code, ville: 'Brest', cp: '29200', typeSite: 'Quartier' });
      expect(body.siteComposteurs).toEqual([
        { id: site.apport, numero: 1, typeBac: 1, libelleTypeBac: 'Apport', volume: 400, actif: true },
        { id: site.broyat, numero: 2, typeBac: 2, libelleTypeBac: 'Broyat', volume: 400, actif: true },
        { id: site.maturation, numero: 3, typeBac: 3, libelleTypeBac: 'Maturation', volume: 400, actif: true },
      ]);
    });

    it('answers 403 to a referent of other sites and to a user administrator, 404 for unknown or requested sites', async () => {
      const referent = await loggedAs(ctx, ['ROLE_USER']);
      const url = (id: number) => `/api/admin/site/get/infos/pour/intervention/${id}`;
      expect((await ctx.app.inject({ url: url(site.id), headers: { cookie: referent.cookie } })).statusCode).toBe(403);
      const userAdmin = await loggedAs(ctx, ['ROLE_ADMIN_USER']);
      expect((await ctx.app.inject({ url: url(site.id), headers: { cookie: userAdmin.cookie } })).statusCode).toBe(403);
      const requested = await createSite(ctx.db, { statut: 2, referents: [referent.id] });
      const res = await ctx.app.inject({ url: url(requested.id), headers: { cookie: referent.cookie } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ status: 'error', message: 'Site introuvable' });
      expect((await ctx.app.inject({ url: url(999_999), headers: { cookie: admin.cookie } })).statusCode).toBe(404);
    });
  });
});
