// The board in bulk: a selection of requests cancelled with one reason or planned on one date,
// and a selection of public reports closed or merged, each as one change that is made whole or
// not at all, whose answer says how many it changed and whose refusal names every item that
// stopped it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite, createPendingDemande } from '../field-entry/test-factories.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Logged = Awaited<ReturnType<typeof loggedAs>>;
type Site = Awaited<ReturnType<typeof createEquippedSite>>;

const DAY_MS = 24 * 3600 * 1000;
const PARIS_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit' });
/** 'YYYY-MM-DD' of an instant in Paris. */
const parisDay = (d: Date) => PARIS_DAY.format(d);
const inDays = (n: number) => parisDay(new Date(Date.now() + n * DAY_MS));

const CANCELLED = "Demande(s) d'intervention(s) annulée(s) avec succès";
const SCHEDULED = "Demande(s) d'intervention(s) programmée(s) avec succès";
const CLOSED = "Cette demande d'intervention a déjà été réalisée ou annulée";
const NOT_FOUND = "Demande d'intervention introuvable";
const OUT_OF_RANGE = "La date prévue de réalisation doit être comprise entre aujourd'hui et la date d'échéance";

describe.each(TEST_DRIVERS)('the requests board in bulk (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Logged;
  let provider: Logged;

  const call = (method: 'GET' | 'PUT' | 'POST', url: string, cookie: string, payload?: object) =>
    ctx.app.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload }) });
  const cancel = (payload: object, who = provider) => call('PUT', '/api/admin/demande/intervention/delete', who.cookie, payload);
  const schedule = (values: object[], who = provider) => call('POST', '/api/admin/demande/intervention/programmer', who.cookie, { values });
  /** The requests' rows, in the order of `ids`. */
  const rows = async (ids: number[]) => {
    const found = await ctx.db
      .selectFrom('demande_intervention')
      .where('id', 'in', ids)
      .select(['id', 'statut_id', 'motif_annulation', 'annulee_par_id', 'date_programmee', 'programme_par_id'])
      .execute();
    return ids.map((id) => found.find((r) => r.id === id)!);
  };
  /** n pending requests, created one after the other (ids in the order returned). */
  const pendingOf = async (site: Site, n: number) => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push(await createPendingDemande(ctx.db, site.id, site.apport, 14));
    return ids;
  };
  const dueIn = (id: number, days: number) =>
    ctx.db
      .updateTable('demande_intervention')
      .set({ date_echeance: new Date(Date.now() + days * DAY_MS) })
      .where('id', '=', id)
      .execute();

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN'], { nom: 'DURAND', prenom: 'Alice' });
    provider = await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3, nom: 'VERT', prenom: 'Paul' });
  });
  afterAll(() => ctx.close());

  describe('cancelling a selection', () => {
    it('cancels every selected request with the one reason given, says how many, and the history shows the reason', async () => {
      const site = await createEquippedSite(ctx.db);
      const ids = await pendingOf(site, 3);
      const res = await cancel({ demandesInterventions: ids, motif: '  Bacs retirés par la mairie\npour travaux  ' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: CANCELLED, count: 3 });
      for (const row of await rows(ids)) {
        expect(row).toMatchObject({ statut_id: 6, motif_annulation: 'Bacs retirés par la mairie\npour travaux', annulee_par_id: provider.id });
      }

      const history = await call('GET', `/api/admin/demande/intervention/get/all/by/filters?filter[site]=${site.id}`, admin.cookie);
      expect(history.statusCode).toBe(200);
      const shown = history.json().demandesInterventions as Record<string, unknown>[];
      expect(shown.map((r) => [r.id, r.statut, r.annuleePar, r.motifAnnulation]).sort()).toEqual(
        ids.map((id) => [id, 'Annulée', 'VERT Paul', 'Bacs retirés par la mairie\npour travaux']).sort(),
      );

      const [one] = await pendingOf(site, 1);
      expect((await cancel({ demandesInterventions: [one], motif: 'Doublon' })).json()).toEqual({ status: 'success', message: CANCELLED, count: 1 });
    });

    it('still cancels without a reason (older clients), stores a blank one as none, and refuses one too long or with control characters', async () => {
      const site = await createEquippedSite(ctx.db);
      const [a, b, c] = await pendingOf(site, 3);
      expect((await cancel({ demandesInterventions: [a] })).json()).toEqual({ status: 'success', message: CANCELLED, count: 1 });
      expect((await cancel({ demandesInterventions: [b], motif: ' \n ' })).statusCode).toBe(200);
      expect((await rows([a, b])).map((r) => [r.statut_id, r.motif_annulation])).toEqual([
        [6, null],
        [6, null],
      ]);
      const history = await call('GET', `/api/admin/demande/intervention/get/all/by/filters?filter[site]=${site.id}&filter[statut]=6`, admin.cookie);
      expect((history.json().demandesInterventions as Record<string, unknown>[]).map((r) => r.motifAnnulation)).toEqual([null, null]);

      const long = await cancel({ demandesInterventions: [c], motif: 'x'.repeat(501) });
      expect(long.statusCode).toBe(400);
      expect(long.json().errors).toEqual([{ key: 'motif', error: "Le motif d'annulation ne doit pas dépasser 500 caractères" }]);
      const control = await cancel({ demandesInterventions: [c], motif: 'Bac\u0007cassé' });
      expect(control.statusCode).toBe(400);
      expect(control.json().errors).toEqual([{ key: 'motif', error: 'Caractères non autorisés' }]);
      expect((await rows([c]))[0]).toMatchObject({ statut_id: 3, motif_annulation: null });
      // 500 characters exactly are kept whole.
      expect((await cancel({ demandesInterventions: [c], motif: 'é'.repeat(500) })).statusCode).toBe(200);
      expect((await rows([c]))[0].motif_annulation).toBe('é'.repeat(500));
    });

    it('changes nothing when one request of the selection is already done or cancelled, and names every such request at once', async () => {
      const site = await createEquippedSite(ctx.db);
      const [a, c] = await pendingOf(site, 2);
      const done = await createPendingDemande(ctx.db, site.id, site.apport, 14, 5);
      const cancelled = await createPendingDemande(ctx.db, site.id, site.apport, 14, 6);
      const res = await cancel({ demandesInterventions: [a, done, c, cancelled], motif: 'Site fermé' });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        status: 'error',
        message: CLOSED,
        errors: [
          { key: 'demandesInterventions1', error: CLOSED },
          { key: 'demandesInterventions3', error: CLOSED },
        ],
      });
      expect((await rows([a, c])).map((r) => [r.statut_id, r.motif_annulation, r.annulee_par_id])).toEqual([
        [3, null, null],
        [3, null, null],
      ]);

      // An unknown request too: 404, every unknown and closed one named.
      const unknown = await cancel({ demandesInterventions: [a, 2_000_000_000, done], motif: 'Site fermé' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({
        status: 'error',
        message: NOT_FOUND,
        errors: [
          { key: 'demandesInterventions1', error: NOT_FOUND },
          { key: 'demandesInterventions2', error: CLOSED },
        ],
      });
      expect((await rows([a]))[0].statut_id).toBe(3);
    });
  });

  describe('planning a selection', () => {
    it('plans every selected request on one date in one call and says how many', async () => {
      const site = await createEquippedSite(ctx.db);
      const ids = await pendingOf(site, 3);
      const day = inDays(2);
      const res = await schedule(ids.map((id) => ({ demandeIntervention: id, date: day })));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: SCHEDULED, count: 3 });
      for (const row of await rows(ids)) {
        expect(row).toMatchObject({ statut_id: 4, programme_par_id: provider.id });
        expect(parisDay(new Date(row.date_programmee!))).toBe(day);
      }
    });

    it('plans nothing when the date is outside the window of some of them, and names each of those items', async () => {
      const site = await createEquippedSite(ctx.db);
      const [a, b, c] = await pendingOf(site, 3);
      // a is already planned on today; b and c are due tomorrow (a is due in 7 days).
      expect((await schedule([{ demandeIntervention: a, date: inDays(0) }])).statusCode).toBe(200);
      await dueIn(b, 1);
      await dueIn(c, 1);
      const day = inDays(3);
      const res = await schedule([a, b, c].map((id) => ({ demandeIntervention: id, date: day })));
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        status: 'error',
        message: OUT_OF_RANGE,
        errors: [
          { key: 'values1.date', error: OUT_OF_RANGE },
          { key: 'values2.date', error: OUT_OF_RANGE },
        ],
      });
      const after = await rows([a, b, c]);
      expect(after.map((r) => r.statut_id)).toEqual([4, 3, 3]);
      expect(parisDay(new Date(after[0].date_programmee!))).toBe(inDays(0));
      expect(after[1].date_programmee).toBeNull();
      expect(after[2].date_programmee).toBeNull();

      // A closed request in the selection: nothing planned either, and it is named.
      const done = await createPendingDemande(ctx.db, site.id, site.apport, 14, 5);
      const closed = await schedule([
        { demandeIntervention: b, date: inDays(0) },
        { demandeIntervention: done, date: inDays(0) },
      ]);
      expect(closed.statusCode).toBe(409);
      expect(closed.json().errors).toEqual([{ key: 'values1.demandeIntervention', error: CLOSED }]);
      expect((await rows([b]))[0].statut_id).toBe(3);
    });
  });

  describe('public reports on the board', () => {
    let site: Site;
    const reportOn = async (s: Site, texte: string) =>
      (
        await ctx.db
          .insertInto('signalement_public')
          .values({ site_id: s.id, categorie: 'bac_plein', texte, reponse_demandee: false })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const reports = (ids: number[]) => ctx.db.selectFrom('signalement_public').where('id', 'in', ids).select(['id', 'statut', 'occurrences', 'fusionne_dans_id']).orderBy('id').execute();
    const close = (ids: number[]) => call('PUT', '/api/admin/signalement/classer', admin.cookie, { ids, motif: 'Réglé sur place.' });
    const merge = (idConserve: number, ids: number[]) => call('PUT', '/api/admin/signalement/fusionner', admin.cookie, { idConserve, ids });

    beforeAll(async () => {
      site = await createEquippedSite(ctx.db);
    });

    it('closes a selection all or none and says how many', async () => {
      const [a, b, handled] = [await reportOn(site, 'Bac plein côté rue.'), await reportOn(site, 'Couvercle ouvert.'), await reportOn(site, 'Odeurs fortes.')];
      expect((await close([handled])).json()).toEqual({ status: 'success', message: '1 signalement clôturé', count: 1 });
      const refused = await close([a, b, handled]);
      expect(refused.statusCode).toBe(409);
      expect((await reports([a, b])).map((r) => r.statut)).toEqual(['nouveau', 'nouveau']);
      expect((await close([a, b])).json()).toEqual({ status: 'success', message: '2 signalements clôturés', count: 2 });
      expect((await reports([a, b])).map((r) => r.statut)).toEqual(['classe', 'classe']);
    });

    it('turns a selection of one site into one request, all or none, and says how many', async () => {
      const transform = (payload: object) => call('PUT', '/api/admin/signalement/transformer', admin.cookie, payload);
      const other = await createEquippedSite(ctx.db);
      const [a, b, elsewhere, handled] = [await reportOn(site, 'Bac plein.'), await reportOn(site, 'Bac qui déborde.'), await reportOn(other, 'Bac plein aussi.'), await reportOn(site, 'Déjà réglé.')];
      expect((await close([handled])).statusCode).toBe(200);
      const body = { actionProgrammee: 3, composteur: site.apport, dateEcheance: inDays(7) };
      const requestsBefore = Number((await ctx.db.selectFrom('demande_intervention').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      // Another site's report, or one already handled, in the selection: nothing changes.
      const mixed = await transform({ ...body, ids: [a, b, elsewhere] });
      expect(mixed.statusCode).toBe(400);
      expect(mixed.json().errors).toContainEqual({ key: 'ids', error: 'Seuls des signalements du même site peuvent devenir une même demande' });
      expect((await transform({ ...body, ids: [a, b, handled] })).statusCode).toBe(409);
      expect((await reports([a, b])).map((r) => r.statut)).toEqual(['nouveau', 'nouveau']);
      expect(Number((await ctx.db.selectFrom('demande_intervention').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(requestsBefore);

      const res = await transform({ ...body, ids: [a, b] });
      expect(res.statusCode).toBe(200);
      const { idDemande, ...rest } = res.json();
      expect(rest).toEqual({ status: 'success', message: '2 signalements transformés en une demande d’intervention', count: 2 });
      const linked = await ctx.db.selectFrom('signalement_public').where('id', 'in', [a, b]).select(['statut', 'demande_intervention_id']).execute();
      expect(linked).toEqual([
        { statut: 'transforme', demande_intervention_id: idDemande },
        { statut: 'transforme', demande_intervention_id: idDemande },
      ]);
      const request = await ctx.db.selectFrom('demande_intervention').where('id', '=', idDemande).select(['site_id', 'site_composteur_id', 'statut_id']).executeTakeFirstOrThrow();
      expect(request).toEqual({ site_id: site.id, site_composteur_id: site.apport, statut_id: 3 });
    });

    it('merges a selection into the one kept, all or none, and says how many', async () => {
      const kept = await reportOn(site, 'Le bac déborde.');
      const [a, b, handled] = [await reportOn(site, 'Bac qui déborde.'), await reportOn(site, 'Plus de place.'), await reportOn(site, 'Déjà vu.')];
      expect((await close([handled])).statusCode).toBe(200);
      const refused = await merge(kept, [a, b, handled]);
      expect(refused.statusCode).toBe(409);
      expect((await reports([kept, a, b])).map((r) => [r.statut, r.occurrences, r.fusionne_dans_id])).toEqual([
        ['nouveau', 1, null],
        ['nouveau', 1, null],
        ['nouveau', 1, null],
      ]);
      const res = await merge(kept, [a, b]);
      expect(res.json()).toEqual({ status: 'success', message: `2 signalements fusionnés dans le signalement n° ${kept}`, count: 2 });
      expect((await reports([kept, a, b])).map((r) => [r.statut, r.occurrences, r.fusionne_dans_id])).toEqual([
        ['nouveau', 3, null],
        ['classe', 1, kept],
        ['classe', 1, kept],
      ]);
    });
  });
});
