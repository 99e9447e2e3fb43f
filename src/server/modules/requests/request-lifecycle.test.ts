// The life of a request between the entry that raises it, the entries that call for it again,
// the corrections and deletions of those entries, and the entry that closes it; the schedule
// item's full shape, the history's search and rows, the rules that cannot loop or repeat.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite, createPendingDemande } from '../field-entry/test-factories.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Logged = Awaited<ReturnType<typeof loggedAs>>;
type Site = Awaited<ReturnType<typeof createEquippedSite>>;
type Block = { composteur: number; action: number; valeur?: number | string | null; bacDestination?: number | null; observations?: string | null; demandeIntervention?: number | null };

const DAY_MS = 24 * 3600 * 1000;
const PARIS_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit' });
const parisDay = (d: Date) => PARIS_DAY.format(d);
const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
const plusDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
const frDay = (day: string) => day.split('-').reverse().join('/');
const ago = (days: number, hours = 0) => new Date(Date.now() - days * DAY_MS - hours * 3600_000);

describe.each(TEST_DRIVERS)('request lifecycle (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Logged;
  let provider: Logged;
  let referent: Logged;
  let siteAdmin: Logged;
  let updater: Logged;
  let deleter: Logged;

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, who: Logged, payload?: unknown) =>
    ctx.app.inject({ method, url, headers: { cookie: who.cookie }, ...(payload === undefined ? {} : { payload: payload as object }) });

  const record = (who: Logged, site: number, values: Block[], date = ago(0, 1), clientId: string = crypto.randomUUID()) =>
    call('POST', '/api/admin/intervention/add', who, { clientId, site, date: date.toISOString(), values: values.map((b) => ({ valeur: null, bacDestination: null, observations: null, demandeIntervention: null, ...b })) });

  async function recorded(who: Logged, site: number, values: Block[], date?: Date) {
    const res = await record(who, site, values, date);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { interventions: number[]; demandes: number[] };
  }

  const requestRow = (id: number) => ctx.db.selectFrom('demande_intervention').where('id', '=', id).selectAll().executeTakeFirst();
  const requestsOn = (cell: number, programmee?: number) => {
    let q = ctx.db.selectFrom('demande_intervention').where('site_composteur_id', '=', cell);
    if (programmee !== undefined) q = q.where('type_action_programmee_id', '=', programmee);
    return q.selectAll().orderBy('id').execute();
  };
  const pendingOn = async (cell: number, programmee?: number) => (await requestsOn(cell, programmee)).filter((d) => d.statut_id === 3 || d.statut_id === 4);

  async function cardOf(site: number, id: number) {
    const res = await call('GET', `/api/admin/demande/intervention/get/list?filter[site]=${site}`, provider);
    expect(res.statusCode).toBe(200);
    return (res.json().demandesInterventions as Record<string, unknown>[]).find((d) => d.id === id);
  }
  async function historyOf(site: number, id: number) {
    const res = await call('GET', `/api/admin/demande/intervention/get/all/by/filters?filter[site]=${site}&rowsPerPage=100`, provider);
    expect(res.statusCode).toBe(200);
    return (res.json().demandesInterventions as Record<string, unknown>[]).find((d) => d.id === id);
  }

  const edit = (id: number, date: Date, b: Block) =>
    call('PUT', `/api/admin/intervention/update/${id}`, updater, { date: date.toISOString(), values: [{ valeur: null, bacDestination: null, observations: null, ...b }] });
  const remove = (id: number) => call('PUT', `/api/admin/intervention/delete/${id}`, deleter);

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN'], { nom: 'DURAND', prenom: 'Alice' });
    provider = await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3, nom: 'VERT', prenom: 'Paul' });
    referent = await loggedAs(ctx, ['ROLE_USER'], { nom: 'MARTIN', prenom: 'Jeanne' });
    siteAdmin = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
    updater = await loggedAs(ctx, ['ROLE_ADMIN_SITE', 'ROLE_ADMIN_UPDATE'], { nom: 'LEROY', prenom: 'Marc' });
    deleter = await loggedAs(ctx, ['ROLE_ADMIN_SITE', 'ROLE_ADMIN_DELETE'], { nom: 'PETIT', prenom: 'Anne' });
  }, 120_000);
  afterAll(() => ctx.close());

  describe('who may close a request, and with which block', () => {
    let site: Site;
    beforeAll(async () => {
      site = await createEquippedSite(ctx.db, { referents: [referent.id] });
    });

    it('refuses a request processed by a referent or a site administrator, storing nothing', async () => {
      for (const who of [referent, siteAdmin]) {
        const demande = await createPendingDemande(ctx.db, site.id, site.apport, 14);
        const clientId = crypto.randomUUID();
        const res = await record(who, site.id, [{ composteur: site.apport, action: 14, valeur: 'Réparée', demandeIntervention: demande }], undefined, clientId);
        expect(res.statusCode).toBe(400);
        expect(res.json().errors).toEqual([
          { key: 'values0.demandeIntervention', error: "Seuls les prestataires et les administrateurs peuvent traiter une demande d'intervention" },
        ]);
        expect((await requestRow(demande))!.statut_id).toBe(3);
        expect(await ctx.db.selectFrom('intervention').where('client_id', '=', clientId).select('id').execute()).toEqual([]);
        expect(await ctx.db.selectFrom('intervention_submission').where('client_id', '=', clientId).select('client_id').execute()).toEqual([]);
      }
    });

    it('refuses a block of another cell or another action, with every error of the entry at once', async () => {
      const repair = await createPendingDemande(ctx.db, site.id, site.apport, 14);
      const transfer = await createPendingDemande(ctx.db, site.id, site.apport, 3);
      const clientId = crypto.randomUUID();
      const res = await record(
        provider,
        site.id,
        [
          { composteur: site.broyat, action: 14, valeur: 'Réparée', demandeIntervention: repair },
          { composteur: site.apport, action: 1, demandeIntervention: transfer },
          { composteur: site.apport, action: 13, observations: ' ' },
        ],
        undefined,
        clientId,
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([
        { key: 'values2.observations', error: 'Les observations sont obligatoires pour cette action' },
        { key: 'values0.demandeIntervention', error: "Cette demande d'intervention attend l'action « Réparation effectuée » sur la cellule n°1" },
        { key: 'values1.demandeIntervention', error: "Cette demande d'intervention attend l'action « Transfert » sur la cellule n°1" },
      ]);
      expect((await requestRow(repair))!.statut_id).toBe(3);
      expect((await requestRow(transfer))!.statut_id).toBe(3);
      expect(await ctx.db.selectFrom('intervention').where('client_id', '=', clientId).select('id').execute()).toEqual([]);
    });

    it('lets a provider close it with the cell and action it asks for, and ROLE_ADMIN on the destination a transfer trigger gave', async () => {
      const repair = await createPendingDemande(ctx.db, site.id, site.apport, 14);
      const done = await recorded(provider, site.id, [{ composteur: site.apport, action: 14, valeur: 'Réparée', demandeIntervention: repair }]);
      expect(await requestRow(repair)).toMatchObject({ statut_id: 5, intervention_realisee_id: done.interventions[0] });

      // A rule answering a transfer with a turning: processing is prefilled on the transfer's destination.
      const rule = await call('POST', '/api/admin/demande/regle/add', admin, { actionDeclenchante: 3, constante: null, actionProgrammee: 1, delaiJours: 5 });
      expect(rule.statusCode, rule.body).toBe(200);
      try {
        const raised = await recorded(referent, site.id, [{ composteur: site.apport, action: 3, valeur: 200, bacDestination: site.maturation }]);
        const [turning] = raised.demandes;
        expect(await requestRow(turning)).toMatchObject({ site_composteur_id: site.apport, type_action_programmee_id: 1 });
        const closed = await recorded(admin, site.id, [{ composteur: site.maturation, action: 1, demandeIntervention: turning }]);
        expect(await requestRow(turning)).toMatchObject({ statut_id: 5, intervention_realisee_id: closed.interventions[0] });
      } finally {
        await call('PUT', `/api/admin/demande/regle/delete/${rule.json().id as number}`, admin);
      }
    });
  });

  describe('one pending request per cell and scheduled action', () => {
    it("keeps one request for a weekly 'Plein', with the first due date, the count and the latest value", async () => {
      const site = await createEquippedSite(ctx.db, { referents: [referent.id] });
      const first = ago(21);
      const a = await recorded(referent, site.id, [{ composteur: site.apport, action: 16, valeur: 4 }], first);
      expect(a.demandes).toHaveLength(1);
      const b = await recorded(referent, site.id, [{ composteur: site.apport, action: 16, valeur: 5 }], ago(14));
      const latest = ago(7);
      const c = await recorded(provider, site.id, [{ composteur: site.apport, action: 16, valeur: 5 }], latest);
      expect(b.demandes).toEqual([]);
      expect(c.demandes).toEqual([]);
      expect(b.interventions).toHaveLength(1);
      const pending = await pendingOn(site.apport, 3);
      expect(pending.map((d) => d.id)).toEqual(a.demandes);
      expect(new Date(pending[0].date_echeance).toISOString()).toBe(new Date(first.getTime() + 7 * DAY_MS).toISOString());
      const card = await cardOf(site.id, a.demandes[0]);
      expect(card).toMatchObject({
        nbSignalements: 3,
        idInterventionDeclenchante: a.interventions[0],
        value: '3/4',
        dernierSignalement: { id: c.interventions[0], date: latest.toISOString(), idAction: 16, typeAction: "Niveau d'apport", valeur: 'Plein', intervenant: 'VERT Paul' },
        delaiJours: 7,
      });
      expect(await historyOf(site.id, a.demandes[0])).toMatchObject({ nbSignalements: 3, dernierSignalement: { id: c.interventions[0], valeur: 'Plein' } });
    });

    it('raises one request for two blocks of one entry on the same cell, and joins a scheduled one', async () => {
      const site = await createEquippedSite(ctx.db);
      const both = await recorded(admin, site.id, [
        { composteur: site.broyat, action: 7, valeur: 1 },
        { composteur: site.broyat, action: 7, valeur: 2 },
      ]);
      expect(both.demandes).toHaveLength(1);
      const [demande] = both.demandes;
      expect((await call('POST', '/api/admin/demande/intervention/programmer', provider, { values: [{ demandeIntervention: demande, date: parisDay(new Date()) }] })).statusCode).toBe(200);
      const again = await recorded(admin, site.id, [{ composteur: site.broyat, action: 7, valeur: 1 }]);
      expect(again.demandes).toEqual([]);
      expect(await pendingOn(site.broyat, 12)).toHaveLength(1);
      expect(await cardOf(site.id, demande)).toMatchObject({ idStatut: 4, nbSignalements: 3 });
    });

    it('raises a new request once the pending one is processed, and keeps requests of other cells apart', async () => {
      const site = await createEquippedSite(ctx.db);
      const first = await recorded(admin, site.id, [{ composteur: site.maturation, action: 19, valeur: 5 }]);
      await recorded(admin, site.id, [{ composteur: site.maturation, action: 17, valeur: 300, demandeIntervention: first.demandes[0] }]);
      const next = await recorded(admin, site.id, [{ composteur: site.maturation, action: 19, valeur: 5 }]);
      expect(next.demandes).toHaveLength(1);
      expect(next.demandes[0]).not.toBe(first.demandes[0]);
      const other = await recorded(admin, site.id, [{ composteur: site.apport, action: 18, valeur: 'Trou' }, { composteur: site.broyat, action: 18, valeur: 'Trou' }]);
      expect(other.demandes).toHaveLength(2);
    });

    it('raises exactly one request when two phones send the same trigger at once', async () => {
      const site = await createEquippedSite(ctx.db);
      const answers = await Promise.all([
        record(provider, site.id, [{ composteur: site.apport, action: 16, valeur: 5 }]),
        record(admin, site.id, [{ composteur: site.apport, action: 16, valeur: 5 }]),
      ]);
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200]);
      const pending = await pendingOn(site.apport, 3);
      expect(pending).toHaveLength(1);
      expect((await cardOf(site.id, pending[0].id))!.nbSignalements).toBe(2);
    });
  });

  describe('rules that cannot loop or repeat', () => {
    const add = (body: object) => call('POST', '/api/admin/demande/regle/add', admin, body);

    it('refuses a rule whose scheduled action leads back to its trigger, itself included', async () => {
      const self = await add({ actionDeclenchante: 14, constante: null, actionProgrammee: 14, delaiJours: 3 });
      expect(self.statusCode).toBe(400);
      expect(self.json().errors).toEqual([{ key: 'actionProgrammee', error: 'Cette règle ferait boucler les demandes : Réparation effectuée → Réparation effectuée' }]);
      const back = await add({ actionDeclenchante: 14, constante: null, actionProgrammee: 18, delaiJours: 3 });
      expect(back.statusCode).toBe(400);
      expect(back.json().errors).toEqual([
        { key: 'actionProgrammee', error: 'Cette règle ferait boucler les demandes : Réparation effectuée → Réparation à effectuer → Réparation effectuée' },
      ]);
      // Through a rule of its own: Tamisage (17) → Niveau de matière (19), whose 'Plein' calls for a Tamisage.
      const rules = (await call('GET', '/api/admin/demande/regle/get/all', admin)).json() as { id: number; idActionDeclenchante: number; idConstante: number | null }[];
      const matiere = rules.find((r) => r.idActionDeclenchante === 19 && r.idConstante === 5)!;
      const loop = await add({ actionDeclenchante: 17, constante: null, actionProgrammee: 19, delaiJours: 3 });
      expect(loop.json().errors).toEqual([{ key: 'actionProgrammee', error: 'Cette règle ferait boucler les demandes : Tamisage → Niveau de matière → Tamisage' }]);
      const onItself = await call('PUT', `/api/admin/demande/regle/update/${matiere.id}`, admin, { actionDeclenchante: 19, constante: 5, actionProgrammee: 19, delaiJours: 30 });
      expect(onItself.statusCode).toBe(400);
      expect(onItself.json().errors).toEqual([{ key: 'actionProgrammee', error: 'Cette règle ferait boucler les demandes : Niveau de matière → Niveau de matière' }]);
      const names = (await call('GET', '/api/admin/demande/regle/get/all', admin)).json() as unknown[];
      expect(names).toHaveLength(rules.length);
    });

    it('refuses with 409 a second rule for one trigger and value, naming the first; a rule may still be changed', async () => {
      const dup = await add({ actionDeclenchante: 16, constante: 5, actionProgrammee: 13, delaiJours: 2 });
      expect(dup.statusCode).toBe(409);
      expect(dup.json()).toEqual({ status: 'error', message: "Une règle existe déjà pour ce déclencheur : Niveau d'apport (Plein) → Transfert sous 7 jours" });
      const rules = (await call('GET', '/api/admin/demande/regle/get/all', admin)).json() as { id: number; idActionDeclenchante: number; idConstante: number | null }[];
      const plein = rules.find((r) => r.idActionDeclenchante === 16 && r.idConstante === 5)!;
      const quarter = rules.find((r) => r.idActionDeclenchante === 16 && r.idConstante === 4)!;
      expect((await call('PUT', `/api/admin/demande/regle/update/${plein.id}`, admin, { actionDeclenchante: 16, constante: 5, actionProgrammee: 3, delaiJours: 6 })).statusCode).toBe(200);
      const clash = await call('PUT', `/api/admin/demande/regle/update/${quarter.id}`, admin, { actionDeclenchante: 16, constante: 5, actionProgrammee: 3, delaiJours: 7 });
      expect(clash.statusCode).toBe(409);
      expect(clash.json().message).toBe("Une règle existe déjà pour ce déclencheur : Niveau d'apport (Plein) → Transfert sous 6 jours");
      await call('PUT', `/api/admin/demande/regle/update/${plein.id}`, admin, { actionDeclenchante: 16, constante: 5, actionProgrammee: 3, delaiJours: 7 });
    });
  });

  describe('overdue requests', () => {
    it("can be planned from today to today plus the rule's delay", async () => {
      const site = await createEquippedSite(ctx.db);
      const trigger = ago(20);
      const { demandes } = await recorded(admin, site.id, [{ composteur: site.apport, action: 18, valeur: 'Trappe' }], trigger);
      const [demande] = demandes;
      const today = parisDay(new Date());
      const dueDay = parisDay(new Date(trigger.getTime() + 14 * DAY_MS));
      expect(dayNumber(today) - dayNumber(dueDay)).toBeGreaterThanOrEqual(5);
      expect(await cardOf(site.id, demande)).toMatchObject({ delaiJours: 14, dateEcheance: new Date(trigger.getTime() + 14 * DAY_MS).toISOString() });
      const schedule = (date: string) => call('POST', '/api/admin/demande/intervention/programmer', provider, { values: [{ demandeIntervention: demande, date }] });
      const late = await schedule(plusDays(today, 15));
      expect(late.statusCode).toBe(409);
      expect(late.json().message).toBe(`L'échéance est dépassée : la date prévue de réalisation doit être comprise entre aujourd'hui et le ${frDay(plusDays(today, 14))}`);
      expect((await schedule(plusDays(today, -1))).statusCode).toBe(409);
      expect((await requestRow(demande))!.statut_id).toBe(3);
      expect((await schedule(today)).statusCode).toBe(200);
      expect((await schedule(plusDays(today, 14))).statusCode).toBe(200);
      expect(parisDay(new Date((await requestRow(demande))!.date_programmee!))).toBe(plusDays(today, 14));
    });
  });

  describe('a trigger and its request never disagree', () => {
    let site: Site;
    beforeAll(async () => {
      site = await createEquippedSite(ctx.db, { nom: 'Les Capucins', referents: [referent.id] });
    });

    async function repairOn(cell: number, date = ago(2), text = 'Couvercle cassé', who = referent) {
      const res = await recorded(who, site.id, [{ composteur: cell, action: 18, valeur: text }], date);
      expect(res.demandes).toHaveLength(1);
      return { intervention: res.interventions[0], demande: res.demandes[0] };
    }

    it('moves the due date with a corrected date', async () => {
      const { intervention, demande } = await repairOn(site.apport, ago(3));
      const corrected = ago(5);
      const res = await edit(intervention, corrected, { composteur: site.apport, action: 18, valeur: 'Couvercle cassé' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ demandesAnnulees: [], demandesCreees: [] });
      expect(new Date((await requestRow(demande))!.date_echeance).toISOString()).toBe(new Date(corrected.getTime() + 14 * DAY_MS).toISOString());
      await remove(intervention);
    });

    it('moves the request with a corrected cell, or merges it into the one pending there', async () => {
      const { intervention, demande } = await repairOn(site.apport);
      expect((await edit(intervention, ago(2), { composteur: site.broyat, action: 18, valeur: 'Couvercle cassé' })).statusCode).toBe(200);
      expect(await requestRow(demande)).toMatchObject({ statut_id: 3, site_composteur_id: site.broyat });
      expect(await cardOf(site.id, demande)).toMatchObject({ idBac: site.broyat, numero: 2 });

      const there = await repairOn(site.maturation, ago(1), 'Trappe bloquée');
      const res = await edit(intervention, ago(2), { composteur: site.maturation, action: 18, valeur: 'Couvercle cassé' });
      expect(res.json()).toMatchObject({ demandesAnnulees: [demande], demandesCreees: [] });
      expect(await requestRow(demande)).toMatchObject({ statut_id: 6, annulee_par_id: updater.id });
      expect(await cardOf(site.id, there.demande)).toMatchObject({ nbSignalements: 2, idBac: site.maturation });
      await remove(intervention);
      await remove(there.intervention);
    });

    it('cancels the request, by the editor, when the corrected value calls for nothing', async () => {
      const res = await recorded(referent, site.id, [{ composteur: site.apport, action: 9, valeur: 12 }]);
      const [demande] = res.demandes;
      const upd = await edit(res.interventions[0], ago(0, 1), { composteur: site.apport, action: 9, valeur: 11 });
      expect(upd.json()).toMatchObject({ demandesAnnulees: [demande], demandesCreees: [] });
      expect(await historyOf(site.id, demande)).toMatchObject({ idStatut: 6, statut: 'Annulée', annuleePar: 'LEROY Marc', dateAnnulation: expect.any(String) });
      expect(await cardOf(site.id, demande)).toBeUndefined();
    });

    it('keeps a request other entries call for: the next one takes the place of a trigger corrected away or deleted', async () => {
      const first = ago(6);
      const a = await repairOn(site.apport, first, 'Charnière');
      const second = ago(4);
      const b = await recorded(provider, site.id, [{ composteur: site.apport, action: 18, valeur: 'Charnière et vis' }], second);
      const c = await recorded(admin, site.id, [{ composteur: site.apport, action: 18, valeur: 'Toujours cassé' }], ago(2));
      expect([b.demandes, c.demandes]).toEqual([[], []]);
      expect((await cardOf(site.id, a.demande))!.nbSignalements).toBe(3);

      // The latest entry corrected to something else: one call less, nothing else moves.
      const upd = await edit(c.interventions[0], ago(2), { composteur: site.apport, action: 5 });
      expect(upd.json()).toMatchObject({ demandesAnnulees: [], demandesCreees: [] });
      expect(await cardOf(site.id, a.demande)).toMatchObject({ nbSignalements: 2, idInterventionDeclenchante: a.intervention, dernierSignalement: { id: b.interventions[0] } });

      // The trigger deleted: the request stays, under the next entry and its due date.
      const del = await remove(a.intervention);
      expect(del.json()).toEqual({ status: 'success', message: "Intervention supprimée ; la demande d'intervention liée reste ouverte pour ses autres signalements", demandeSupprimee: null });
      expect(await requestRow(a.demande)).toMatchObject({ statut_id: 3, intervention_declenchante_id: b.interventions[0] });
      expect(new Date((await requestRow(a.demande))!.date_echeance).toISOString()).toBe(new Date(second.getTime() + 14 * DAY_MS).toISOString());
      expect(await cardOf(site.id, a.demande)).toMatchObject({ nbSignalements: 1, value: 'Charnière et vis', referent: 'VERT Paul' });

      // Its last trigger deleted: the request goes with it.
      const last = await remove(b.interventions[0]);
      expect(last.json()).toEqual({ status: 'success', message: "Intervention et demande d'intervention liée supprimées", demandeSupprimee: a.demande });
      expect(await requestRow(a.demande)).toBeUndefined();
      await remove(c.interventions[0]);
    });

    it('moves only the entry that changed cell when others still call for the request', async () => {
      const a = await repairOn(site.apport, ago(3), 'Vis');
      const b = await recorded(provider, site.id, [{ composteur: site.apport, action: 18, valeur: 'Vis encore' }], ago(2));
      const res = await edit(b.interventions[0], ago(2), { composteur: site.broyat, action: 18, valeur: 'Vis encore' });
      const [moved] = res.json().demandesCreees as number[];
      expect(await requestRow(moved)).toMatchObject({ statut_id: 3, site_composteur_id: site.broyat, intervention_declenchante_id: b.interventions[0] });
      expect(await cardOf(site.id, a.demande)).toMatchObject({ nbSignalements: 1, idBac: site.apport });
      await remove(b.interventions[0]);
      await remove(a.intervention);
      expect(await pendingOn(site.broyat, 14)).toEqual([]);
    });

    it('raises the request a corrected value now calls for, or joins the pending one', async () => {
      const plain = await recorded(referent, site.id, [{ composteur: site.maturation, action: 19, valeur: 3 }]);
      expect(plain.demandes).toEqual([]);
      const upd = await edit(plain.interventions[0], ago(0, 1), { composteur: site.maturation, action: 19, valeur: 5 });
      const [raised] = upd.json().demandesCreees as number[];
      expect(await requestRow(raised)).toMatchObject({ statut_id: 3, type_action_programmee_id: 17, intervention_declenchante_id: plain.interventions[0] });
      const other = await recorded(referent, site.id, [{ composteur: site.maturation, action: 19, valeur: 4 }]);
      const joined = await edit(other.interventions[0], ago(0, 1), { composteur: site.maturation, action: 19, valeur: 5 });
      expect(joined.json()).toMatchObject({ demandesAnnulees: [], demandesCreees: [] });
      expect((await cardOf(site.id, raised))!.nbSignalements).toBe(2);
      await remove(other.interventions[0]);
      await remove(plain.interventions[0]);
      expect(await requestRow(raised)).toBeUndefined();
    });

    it('locks every entry that called for a request once it is processed', async () => {
      const a = await repairOn(site.apport, ago(3), 'Porte');
      const b = await recorded(referent, site.id, [{ composteur: site.apport, action: 18, valeur: 'Porte encore' }], ago(2));
      await recorded(provider, site.id, [{ composteur: site.apport, action: 14, valeur: 'Porte changée', demandeIntervention: a.demande }]);
      for (const id of [a.intervention, b.interventions[0]]) {
        const upd = await edit(id, ago(2), { composteur: site.apport, action: 18, valeur: 'Autre' });
        expect(upd.statusCode).toBe(409);
        expect(upd.json().message).toBe('Impossible de modifier car liée à une autre intervention');
        expect((await remove(id)).statusCode).toBe(409);
      }
      expect(await historyOf(site.id, a.demande)).toMatchObject({ idStatut: 5, nbSignalements: 2 });
    });
  });

  describe('schedule items as the contract gives them', () => {
    let site: Site;
    let demande: number;
    let due: string;
    beforeAll(async () => {
      site = await createEquippedSite(ctx.db);
      const res = await recorded(admin, site.id, [{ composteur: site.apport, action: 18, valeur: 'Trou' }], ago(1));
      demande = res.demandes[0];
      due = (await cardOf(site.id, demande))!.dateEcheance as string;
    });
    const schedule = (item: object) => call('POST', '/api/admin/demande/intervention/programmer', provider, { values: [{ demandeIntervention: demande, date: parisDay(new Date()), ...item }] });

    it('accepts {dateEcheance, date, actionProgrammee, demandeIntervention} that match the stored request', async () => {
      expect((await schedule({ dateEcheance: due, actionProgrammee: 14 })).statusCode).toBe(200);
      expect((await schedule({ dateEcheance: parisDay(new Date(due)), actionProgrammee: 'Réparation effectuée' })).statusCode).toBe(200);
      expect((await requestRow(demande))!.statut_id).toBe(4);
    });

    it('answers 409 when the due date or the action shown is no longer the request', async () => {
      for (const item of [{ dateEcheance: new Date(Date.parse(due) + DAY_MS).toISOString() }, { actionProgrammee: 3 }, { actionProgrammee: 'Transfert' }]) {
        const res = await schedule(item);
        expect(res.statusCode, JSON.stringify(item)).toBe(409);
        expect(res.json()).toEqual({ status: 'error', message: 'La demande a changé, rechargez la page.', errors: [{ key: 'values0', error: 'La demande a changé, rechargez la page.' }] });
      }
    });

    it('still refuses unknown keys and malformed values with field errors', async () => {
      const unknown = await schedule({ site: 1 });
      expect(unknown.statusCode).toBe(400);
      const bad = await schedule({ dateEcheance: 'demain', actionProgrammee: 0 });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual([
        { key: 'values0.dateEcheance', error: 'Date invalide' },
        { key: 'values0.actionProgrammee', error: 'Action à programmer invalide' },
      ]);
    });
  });

  describe('the history', () => {
    let site: Site;
    let repair: { interventions: number[]; demandes: number[] };
    beforeAll(async () => {
      site = await createEquippedSite(ctx.db, { nom: 'Square Wilson', referents: [referent.id] });
      repair = await recorded(referent, site.id, [{ composteur: site.apport, action: 18, valeur: 'Grille tordue' }], ago(1));
      const sieving = await recorded(referent, site.id, [{ composteur: site.maturation, action: 19, valeur: 5 }], ago(1));
      await call('PUT', '/api/admin/demande/intervention/delete', provider, { demandesInterventions: sieving.demandes });
    });
    const search = async (term: string, extra = '') => {
      const res = await call('GET', `/api/admin/demande/intervention/get/all/by/filters?search=${encodeURIComponent(term)}${extra}&rowsPerPage=100`, provider);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { count: number; demandesInterventions: { id: number; idSite: number; actionProgrammee: string; statut: string }[] };
    };

    it('gives every field of a request on each row', async () => {
      const row = await historyOf(site.id, repair.demandes[0]);
      const card = await cardOf(site.id, repair.demandes[0]);
      expect(row).toEqual({
        ...card,
        dateCreation: expect.any(String),
        dateAnnulation: null,
        annuleePar: null,
        motifAnnulation: null,
        interventionDeclenchante: { id: repair.interventions[0], date: expect.any(String), intervenant: 'MARTIN Jeanne', typeAction: 'Réparation à effectuer', valeur: 'Grille tordue', observations: null, photos: [] },
        interventionRealisee: null,
      });
      expect(row).toMatchObject({ adresse: expect.stringMatching(/rue de Siam, 29200 Brest$/), referent: 'MARTIN Jeanne', idAction: 18, actionDeclenchante: 'Réparation à effectuer', value: 'Grille tordue', idBac: site.apport });
    });

    it('searches on the server by site, scheduled action or status, accents and case aside', async () => {
      const bySite = await search('wilson');
      expect(bySite.count).toBe(2);
      expect(bySite.demandesInterventions.every((r) => r.idSite === site.id)).toBe(true);
      const byShort = await search('sq');
      expect(byShort.demandesInterventions.filter((r) => r.idSite === site.id)).toHaveLength(2);
      const byAction = await search('TAMISAGE', `&filter[site]=${site.id}`);
      expect(byAction.demandesInterventions.map((r) => r.actionProgrammee)).toEqual(['Tamisage']);
      const byStatus = await search('annulee', `&filter[site]=${site.id}`);
      expect(byStatus.count).toBe(1);
      expect(byStatus.demandesInterventions[0].statut).toBe('Annulée');
      for (const sort of ['dateCreation', 'dateEcheance', 'statut', 'dateAnnulation', 'site', 'actionProgrammee']) {
        expect((await search('wilson', `&sort[name]=${sort}&sort[direction]=desc`)).count, sort).toBe(2);
      }
      expect((await search('introuvable-xyz')).count).toBe(0);
    });
  });
});
