import crypto from 'node:crypto';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CONFIG, TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import { formatParisDateTime } from '../../../shared/dates.js';
import type { PermanenceList, PermanenceRow } from '../../../shared/schemas/permanences.js';
import { sendPermanenceReminders } from './public.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Logged = Awaited<ReturnType<typeof loggedAs>>;
type Site = Awaited<ReturnType<typeof createEquippedSite>>;

const DAY = 24 * 3600_000;
/** The Paris calendar day of an instant, read with the shared formatter ('dd/MM/yyyy HH:mm'). */
const parisDayOf = (d: Date) => formatParisDateTime(d).slice(0, 10).split('/').reverse().join('-');
const plusDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);
const today = () => parisDayOf(new Date());

/** The last Sunday of October of a year, 'YYYY-MM-DD' (the night the clocks go back in Paris). */
function lastSundayOfOctober(year: number): string {
  const d = new Date(Date.UTC(year, 9, 31));
  return new Date(d.getTime() - d.getUTCDay() * DAY).toISOString().slice(0, 10);
}

function events(ics: string) {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  return {
    calendar,
    events: calendar.getAllSubcomponents('vevent').map((v) => ({
      uid: String(v.getFirstPropertyValue('uid')),
      start: (v.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate(),
      end: (v.getFirstPropertyValue('dtend') as ICAL.Time).toJSDate(),
      summary: String(v.getFirstPropertyValue('summary')),
      location: String(v.getFirstPropertyValue('location') ?? ''),
      status: String(v.getFirstPropertyValue('status') ?? ''),
      description: v.getFirstPropertyValue('description'),
    })),
  };
}

describe.each(TEST_DRIVERS)('permanences API (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Logged;
  let siteAdmin: Logged;
  let referent: Logged;
  let referent2: Logged;
  let otherReferent: Logged;
  let provider: Logged;

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who?: Logged, payload?: unknown) =>
    ctx.app.inject({ method, url, headers: who ? { cookie: who.cookie } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

  async function ok<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who: Logged, payload?: unknown): Promise<T> {
    const res = await call(method, url, who, payload);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(200);
    return res.json() as T;
  }

  /** A site whose referents are `referent` and `referent2`. */
  const siteOfReferents = () => createEquippedSite(ctx.db, { referents: [referent.id, referent2.id] });

  async function add(site: Site, debut: string, fin: string, extra: Record<string, unknown> = {}, who: Logged = referent): Promise<number[]> {
    const body = await ok<{ ids: number[]; count: number }>('POST', '/api/admin/permanence/add', who, { site: site.id, debut, fin, ...extra });
    expect(body.count).toBe(body.ids.length);
    return body.ids;
  }

  const list = (site: Site, who: Logged = referent, periode = 'a_venir') => ok<PermanenceList>('GET', `/api/admin/permanence/get/list/by/site/${site.id}?periode=${periode}`, who);

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN']);
    siteAdmin = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
    referent = await loggedAs(ctx, ['ROLE_USER'], { typeUser: 1, prenom: 'Anne', nom: 'KERBRAT' });
    referent2 = await loggedAs(ctx, ['ROLE_USER'], { typeUser: 1, prenom: 'Yann', nom: 'LEGALL' });
    otherReferent = await loggedAs(ctx, ['ROLE_USER'], { typeUser: 1 });
    provider = await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3 });
  }, 120_000);
  afterAll(() => ctx.close());

  describe('scheduling', () => {
    it('adds one opening in Paris time and lists it with nobody holding it yet', async () => {
      const site = await siteOfReferents();
      const day = plusDays(today(), 10);
      const [id] = await add(site, `${day}T17:00`, `${day}T19:00`, { titre: '  Permanence de rentrée ', message: 'Apportez vos seaux' });
      const body = await list(site);
      expect(body.count).toBe(1);
      const p = body.permanences[0];
      expect(p).toMatchObject({ id, idSite: site.id, titre: 'Permanence de rentrée', message: 'Apportez vos seaux', serie: null, apresCoup: false, annulee: false, ouvreurs: [], jeTiens: false, bilan: null });
      expect(formatParisDateTime(p.debut)).toBe(`${day.split('-').reverse().join('/')} 17:00`);
      expect(formatParisDateTime(p.fin)).toBe(`${day.split('-').reverse().join('/')} 19:00`);
    });

    it('writes out a weekly series that stays 17:00-19:00 in Paris after the clocks go back: its UTC instants move by one hour', async () => {
      const site = await siteOfReferents();
      let year = Number(today().slice(0, 4));
      if (plusDays(lastSundayOfOctober(year), -15) <= plusDays(today(), 1)) year++;
      const change = lastSundayOfOctober(year);
      const first = plusDays(change, -15);
      const ids = await add(site, `${first}T17:00`, `${first}T19:00`, { recurrence: { frequence: 'hebdomadaire', jusqua: plusDays(change, 13) } });
      expect(ids).toHaveLength(5);
      const rows = (await list(site)).permanences;
      expect(rows.map((r) => r.id)).toEqual(ids);
      expect(rows.map((r) => parisDayOf(new Date(r.debut)))).toEqual([-15, -8, -1, 6, 13].map((n) => plusDays(change, n)));
      expect(rows.map((r) => formatParisDateTime(r.debut).slice(11))).toEqual(Array(5).fill('17:00'));
      expect(rows.map((r) => formatParisDateTime(r.fin).slice(11))).toEqual(Array(5).fill('19:00'));
      // Summer time before the change (UTC+2), winter time after (UTC+1).
      expect(rows.map((r) => new Date(r.debut).getUTCHours())).toEqual([15, 15, 15, 16, 16]);
      expect(rows.every((r) => r.serie !== null && r.serie.frequence === 'hebdomadaire' && r.serie.jusqua === plusDays(change, 13) && r.serie.id === rows[0].serie!.id)).toBe(true);
    });

    it('repeats every two weeks and monthly on the same weekday of the month', async () => {
      const site = await siteOfReferents();
      const first = plusDays(today(), 3);
      const every2 = await add(site, `${first}T10:00`, `${first}T11:30`, { recurrence: { frequence: 'bimensuelle', jusqua: plusDays(first, 42) } });
      expect(every2).toHaveLength(4);
      const rows = (await list(site)).permanences.filter((r) => every2.includes(r.id));
      expect(rows.map((r) => parisDayOf(new Date(r.debut)))).toEqual([0, 14, 28, 42].map((n) => plusDays(first, n)));
      const monthly = await add(site, `${first}T10:00`, `${first}T11:00`, { recurrence: { frequence: 'mensuelle', jusqua: plusDays(first, 200) } });
      const days = (await list(site)).permanences.filter((r) => monthly.includes(r.id)).map((r) => new Date(`${parisDayOf(new Date(r.debut))}T12:00:00Z`));
      // Six or seven months, each on the first opening's weekday and week of the month (or the last one for a 5th).
      expect(days.length).toBeGreaterThanOrEqual(6);
      const week = Math.ceil(days[0].getUTCDate() / 7);
      for (const d of days) {
        expect(d.getUTCDay()).toBe(days[0].getUTCDay());
        if (week < 5) expect(Math.ceil(d.getUTCDate() / 7)).toBe(week);
        else expect(d.getUTCDate() + 7).toBeGreaterThan(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate());
      }
    });

    it('refuses bad times and series with every error at once', async () => {
      const site = await siteOfReferents();
      const old = plusDays(today(), -10);
      const res = await call('POST', '/api/admin/permanence/add', admin, {
        site: 2_000_000,
        debut: `${old}T08:00`,
        fin: `${old}T21:00`,
        recurrence: { frequence: 'hebdomadaire', jusqua: plusDays(today(), 400) },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual(
        expect.arrayContaining([
          { key: 'site', error: 'Site invalide' },
          { key: 'fin', error: 'Une permanence dure au plus 12 heures' },
          { key: 'debut', error: 'Une permanence passée peut être ajoutée jusqu’à 7 jours en arrière' },
          { key: 'recurrence', error: 'Une permanence passée ne se répète pas' },
          { key: 'recurrence.jusqua', error: 'Une répétition dure au plus un an' },
        ]),
      );
      expect(res.json().errors).toHaveLength(5);

      const day = plusDays(today(), 5);
      const order = await call('POST', '/api/admin/permanence/add', referent, {
        site: site.id,
        debut: `${day}T17:00`,
        fin: `${day}T16:00`,
        recurrence: { frequence: 'mensuelle', jusqua: plusDays(day, -1) },
      });
      expect(order.statusCode).toBe(400);
      expect(order.json().errors).toEqual([
        { key: 'fin', error: 'La fin doit être après le début' },
        { key: 'recurrence.jusqua', error: 'La date de fin de la répétition doit être après la première permanence' },
      ]);
      const unreal = await call('POST', '/api/admin/permanence/add', referent, { site: site.id, debut: '2027-02-30T17:00', fin: 'demain', recurrence: { frequence: 'chaque jour', jusqua: '' } });
      expect(unreal.statusCode).toBe(400);
      expect(unreal.json().errors).toEqual(
        expect.arrayContaining([
          { key: 'fin', error: 'Date invalide' },
          { key: 'recurrence.frequence', error: 'Choisissez une fréquence' },
          { key: 'recurrence.jusqua', error: 'Date invalide' },
        ]),
      );
      const unrealDay = await call('POST', '/api/admin/permanence/add', referent, { site: site.id, debut: '2027-02-30T17:00', fin: '2027-02-30T18:00' });
      expect(unrealDay.json().errors).toEqual([
        { key: 'debut', error: 'Date invalide' },
        { key: 'fin', error: 'Date invalide' },
      ]);
      expect((await list(site)).count).toBe(0);
    });

    it('records an opening that was not scheduled, up to 7 days back, as done afterwards', async () => {
      const site = await siteOfReferents();
      const day = plusDays(today(), -3);
      const [id] = await add(site, `${day}T17:00`, `${day}T19:00`);
      const past = await list(site, referent, 'passees');
      expect(past.permanences.map((p) => [p.id, p.apresCoup])).toEqual([[id, true]]);
      // From 7 days back, the default list still shows it: its tally may still be due.
      expect((await list(site)).permanences.map((p) => p.id)).toEqual([id]);
    });

    it('moves one occurrence and refuses to move a cancelled one', async () => {
      const site = await siteOfReferents();
      const day = plusDays(today(), 4);
      const [id] = await add(site, `${day}T17:00`, `${day}T19:00`);
      const moved = await ok<{ message: string }>('PUT', `/api/admin/permanence/update/${id}`, referent, { debut: `${day}T18:00`, fin: `${day}T20:00`, titre: 'Décalée', message: null });
      expect(moved.message).toBe('Permanence modifiée');
      const row = (await list(site)).permanences[0];
      expect([formatParisDateTime(row.debut).slice(11), formatParisDateTime(row.fin).slice(11), row.titre]).toEqual(['18:00', '20:00', 'Décalée']);
      const bad = await call('PUT', `/api/admin/permanence/update/${id}`, referent, { debut: `${day}T18:00`, fin: `${day}T07:00`, titre: null, message: null });
      expect(bad.json().errors).toEqual([{ key: 'fin', error: 'La fin doit être après le début' }]);
      await ok('PUT', `/api/admin/permanence/annuler/${id}`, referent, { motif: 'Travaux' });
      const cancelled = await call('PUT', `/api/admin/permanence/update/${id}`, referent, { debut: `${day}T18:00`, fin: `${day}T20:00` });
      expect(cancelled.statusCode).toBe(409);
      expect(cancelled.json().message).toBe('Cette permanence est annulée.');
      expect((await call('PUT', '/api/admin/permanence/update/2000000000', referent, { debut: `${day}T18:00`, fin: `${day}T20:00` })).statusCode).toBe(404);
    });

    it('lets administrators and site administrators manage every site, a referent only their own', async () => {
      const site = await siteOfReferents();
      const day = plusDays(today(), 6);
      const [id] = await add(site, `${day}T17:00`, `${day}T19:00`, {}, siteAdmin);
      expect((await list(site, admin)).count).toBe(1);
      expect((await list(site, siteAdmin)).count).toBe(1);
      const slot = { debut: `${day}T17:00`, fin: `${day}T19:00` };
      for (const [method, url, payload] of [
        ['GET', `/api/admin/permanence/get/list/by/site/${site.id}`, undefined],
        ['POST', '/api/admin/permanence/add', { site: site.id, ...slot }],
        ['PUT', `/api/admin/permanence/update/${id}`, slot],
        ['PUT', `/api/admin/permanence/annuler/${id}`, { motif: 'Pas mon site' }],
        ['PUT', `/api/permanence/${id}/bilan`, { clientId: crypto.randomUUID(), foyers: 1, seaux: 1 }],
      ] as const) {
        expect((await call(method, url, otherReferent, payload)).statusCode, `${method} ${url}`).toBe(403);
        expect((await call(method, url, provider, payload)).statusCode, `${method} ${url}`).toBe(403);
        expect((await call(method, url, undefined, payload)).statusCode, `${method} ${url}`).toBe(401);
      }
      expect((await list(site)).permanences[0].annulee).toBe(false);
      expect((await call('GET', '/api/admin/permanence/get/list/by/site/2000000000', admin)).statusCode).toBe(404);
    });
  });

  describe('openers', () => {
    it('signs a referent of the site up once however often asked, and lets them withdraw', async () => {
      const site = await siteOfReferents();
      const day = plusDays(today(), 8);
      const [id] = await add(site, `${day}T17:00`, `${day}T19:00`);
      expect((await ok<{ message: string }>('POST', `/api/permanence/${id}/ouvreur`, referent)).message).toBe('Vous tenez cette permanence');
      await ok('POST', `/api/permanence/${id}/ouvreur`, referent);
      await ok('POST', `/api/permanence/${id}/ouvreur`, referent2);
      let row = (await list(site)).permanences[0];
      expect(row.ouvreurs).toEqual([
        { id: referent.id, nom: 'Anne KERBRAT' },
        { id: referent2.id, nom: 'Yann LEGALL' },
      ]);
      expect(row.jeTiens).toBe(true);
      expect((await list(site, admin)).permanences[0].jeTiens).toBe(false);
      expect((await ok<{ message: string }>('DELETE', `/api/permanence/${id}/ouvreur`, referent)).message).toBe('Vous ne tenez plus cette permanence');
      row = (await list(site)).permanences[0];
      expect(row.ouvreurs.map((o) => o.id)).toEqual([referent2.id]);
      expect(row.jeTiens).toBe(false);
    });

    it('refuses anyone who is not a referent of the site, a cancelled or ended opening and an unknown one', async () => {
      const site = await siteOfReferents();
      const day = plusDays(today(), 8);
      const [id] = await add(site, `${day}T17:00`, `${day}T19:00`);
      for (const who of [admin, otherReferent]) {
        const res = await call('POST', `/api/permanence/${id}/ouvreur`, who);
        expect(res.statusCode).toBe(403);
        expect(res.json().message).toBe('Seuls les référents du site peuvent tenir ses permanences.');
      }
      const past = plusDays(today(), -2);
      const [ended] = await add(site, `${past}T17:00`, `${past}T19:00`);
      expect((await call('POST', `/api/permanence/${ended}/ouvreur`, referent)).json()).toEqual({ status: 'error', message: 'Cette permanence est terminée.' });
      await ok('PUT', `/api/admin/permanence/annuler/${id}`, referent, { motif: 'Vacances' });
      const cancelled = await call('POST', `/api/permanence/${id}/ouvreur`, referent);
      expect([cancelled.statusCode, cancelled.json().message]).toEqual([409, 'Cette permanence est annulée.']);
      expect((await call('POST', '/api/permanence/2000000000/ouvreur', referent)).statusCode).toBe(404);
      expect((await list(site)).permanences.every((p) => p.ouvreurs.length === 0)).toBe(true);
    });
  });

  describe('cancelling', () => {
    it('asks a reason, then tells the openers and the households who take the news, each household mail with its one-click unsubscribe', async () => {
      const site = await siteOfReferents();
      const day = plusDays(today(), 9);
      const [id] = await add(site, `${day}T17:00`, `${day}T19:00`, { titre: 'Grande permanence' });
      await ok('POST', `/api/permanence/${id}/ouvreur`, referent2);
      const foyer = (row: { email: string | null; statut: 'en_attente' | 'confirme' | 'refuse'; nouvelles?: boolean }) =>
        ctx.db
          .insertInto('foyer')
          .values({ site_id: site.id, prenom: 'Lou', email: row.email, personnes: 3, bioseau: true, statut: row.statut, traite_le: row.statut === 'en_attente' ? null : new Date(), nouvelles: row.nouvelles ?? true })
          .execute();
      await foyer({ email: 'foyer.abonne@exemple.fr', statut: 'confirme' });
      await foyer({ email: 'foyer.desabonne@exemple.fr', statut: 'confirme', nouvelles: false });
      await foyer({ email: 'foyer.attente@exemple.fr', statut: 'en_attente' });
      await foyer({ email: null, statut: 'confirme' });

      const short = await call('PUT', `/api/admin/permanence/annuler/${id}`, referent, { motif: '  a ' });
      expect(short.statusCode).toBe(400);
      expect(short.json().errors).toEqual([{ key: 'motif', error: 'Entre 3 et 500 caractères' }]);
      expect((await call('PUT', `/api/admin/permanence/annuler/${id}`, referent, {})).statusCode).toBe(400);

      const before = ctx.mailer.sent.length;
      const done = await ok<{ message: string }>('PUT', `/api/admin/permanence/annuler/${id}`, referent, { motif: 'Alerte tempête' });
      expect(done.message).toBe('Permanence annulée : les ouvreurs et les foyers inscrits sont prévenus');
      const mails = ctx.mailer.sent.slice(before);
      expect(mails.map((m) => m.to).sort()).toEqual([referent2.email, 'foyer.abonne@exemple.fr'].sort());
      for (const m of mails) {
        expect(m.subject).toBe(`[${TEST_CONFIG.APP_NAME}] Permanence annulée au site ${(await ctx.db.selectFrom('site').select('nom').where('id', '=', site.id).executeTakeFirstOrThrow()).nom}`);
        expect(m.text).toContain('Motif : Alerte tempête');
        expect(m.text).toContain('de 17:00 à 19:00');
      }
      const household = mails.find((m) => m.to === 'foyer.abonne@exemple.fr')!;
      expect(household.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
      expect(household.headers?.['List-Unsubscribe']).toMatch(/^<http:\/\/localhost:3000\/.+>$/);
      expect(household.text).toContain('Quitter le site');
      // The household's mail names neither the openers nor any referent.
      expect(household.text).not.toMatch(/LEGALL|KERBRAT/);
      expect(mails.find((m) => m.to === referent2.email)!.headers).toBeUndefined();

      const row = (await list(site)).permanences[0];
      expect([row.annulee, row.motifAnnulation]).toEqual([true, 'Alerte tempête']);
      const again = await call('PUT', `/api/admin/permanence/annuler/${id}`, referent, { motif: 'Encore' });
      expect([again.statusCode, again.json().message]).toEqual([409, 'Cette permanence est déjà annulée.']);
      expect(ctx.mailer.sent.length).toBe(before + 2);
      expect((await call('PUT', '/api/admin/permanence/annuler/2000000000', admin, { motif: 'Inconnue' })).statusCode).toBe(404);
    });
  });

  describe('the tally', () => {
    it('estimates the kilos from the buckets when none were weighed, and stores a replayed tally once', async () => {
      const site = await siteOfReferents();
      const day = plusDays(today(), -1);
      const [id] = await add(site, `${day}T17:00`, `${day}T19:00`);
      const clientId = crypto.randomUUID();
      const first = await ok<{ message: string; bilan: PermanenceRow['bilan'] }>('PUT', `/api/permanence/${id}/bilan`, referent, { clientId, foyers: 12, seaux: 7 });
      expect(first.message).toBe('Bilan enregistré');
      // 7 buckets x 2 kg (the default kilos per bucket).
      expect(first.bilan).toMatchObject({ foyers: 12, seaux: 7, kg: 14, kgEstime: true, temperature: null });
      // The outbox sends it again (the answer was lost): same answer, nothing new stored.
      const replay = await ok<{ bilan: PermanenceRow['bilan'] }>('PUT', `/api/permanence/${id}/bilan`, referent, { clientId, foyers: 99, seaux: 99, kg: 1 });
      expect(replay.bilan).toEqual(first.bilan);
      const stored = await ctx.db.selectFrom('permanence').select(['bilan_foyers', 'bilan_le']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(stored.bilan_foyers).toBe(12);
      expect(new Date(stored.bilan_le!).toISOString()).toBe(first.bilan!.le);

      // A corrected tally (a new entry) replaces it, weighed this time.
      const correction = crypto.randomUUID();
      const corrected = await ok<{ bilan: PermanenceRow['bilan'] }>('PUT', `/api/permanence/${id}/bilan`, admin, { clientId: correction, foyers: 11, seaux: 7, kg: 15.25, temperature: 21.5 });
      expect(corrected.bilan).toMatchObject({ foyers: 11, seaux: 7, kg: 15.25, kgEstime: false, temperature: 21.5 });
      expect((await list(site, referent, 'passees')).permanences[0].bilan).toEqual(corrected.bilan);

      // The same entry sent for another opening is refused, nothing stored there.
      const [other] = await add(site, `${day}T09:00`, `${day}T10:00`);
      const misused = await call('PUT', `/api/permanence/${other}/bilan`, referent, { clientId: correction, foyers: 1, seaux: 1 });
      expect([misused.statusCode, misused.json().message]).toEqual([409, 'Cette saisie a déjà été enregistrée pour une autre permanence.']);
      expect((await ctx.db.selectFrom('permanence').select('bilan_le').where('id', '=', other).executeTakeFirstOrThrow()).bilan_le).toBeNull();
    });

    it('follows the programme’s kilos per bucket', async () => {
      const site = await siteOfReferents();
      const day = plusDays(today(), -2);
      const [id] = await add(site, `${day}T17:00`, `${day}T19:00`);
      const settings = (await call('GET', '/api/admin/alerte/settings', admin)).json();
      await ok('PUT', '/api/admin/alerte/settings', admin, { ...settings, kgParSeau: 2.5 });
      try {
        const res = await ok<{ bilan: PermanenceRow['bilan'] }>('PUT', `/api/permanence/${id}/bilan`, referent2, { clientId: crypto.randomUUID(), foyers: 4, seaux: 7, kg: null });
        // 7 x 2.5 kg.
        expect(res.bilan).toMatchObject({ kg: 17.5, kgEstime: true });
      } finally {
        await ok('PUT', '/api/admin/alerte/settings', admin, { ...settings, kgParSeau: 2 });
      }
    });

    it('refuses a tally before the opening starts, on a cancelled opening, and bad figures with every error at once', async () => {
      const site = await siteOfReferents();
      const future = plusDays(today(), 2);
      const [soon] = await add(site, `${future}T17:00`, `${future}T19:00`);
      const early = await call('PUT', `/api/permanence/${soon}/bilan`, referent, { clientId: crypto.randomUUID(), foyers: 1, seaux: 1 });
      expect([early.statusCode, early.json().message]).toEqual([409, 'Le bilan se saisit une fois la permanence commencée.']);
      const past = plusDays(today(), -1);
      const [gone] = await add(site, `${past}T17:00`, `${past}T19:00`);
      await ok('PUT', `/api/admin/permanence/annuler/${gone}`, referent, { motif: 'Personne' });
      const cancelled = await call('PUT', `/api/permanence/${gone}/bilan`, referent, { clientId: crypto.randomUUID(), foyers: 1, seaux: 1 });
      expect([cancelled.statusCode, cancelled.json().message]).toEqual([409, 'Cette permanence est annulée.']);
      const bad = await call('PUT', `/api/permanence/${gone}/bilan`, referent, { clientId: 'x', foyers: -1, seaux: 1.5, kg: 6000, temperature: 120 });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual(
        expect.arrayContaining([
          { key: 'clientId', error: 'Identifiant de saisie invalide' },
          { key: 'foyers', error: 'Un nombre entier entre 0 et 1000' },
          { key: 'seaux', error: 'Un nombre entier entre 0 et 1000' },
          { key: 'kg', error: 'Un poids entre 0 et 5000 kg' },
          { key: 'temperature', error: 'Température invalide (entre -30 et 99 °C)' },
        ]),
      );
      expect(bad.json().errors).toHaveLength(5);
      expect((await call('PUT', '/api/permanence/2000000000/bilan', referent, { clientId: crypto.randomUUID(), foyers: 1, seaux: 1 })).statusCode).toBe(404);
    });
  });

  describe('alerts and reminders', () => {
    it('raises an alert for the site’s referents on an opening due by the day after tomorrow that nobody holds, and closes it once someone signs up', async () => {
      const site = await siteOfReferents();
      const soonDay = plusDays(today(), 2);
      const laterDay = plusDays(today(), 3);
      const [soon] = await add(site, `${soonDay}T23:00`, `${soonDay}T23:30`);
      const [cancelled] = await add(site, `${soonDay}T10:00`, `${soonDay}T11:00`);
      await ok('PUT', `/api/admin/permanence/annuler/${cancelled}`, referent, { motif: 'Annulée' });
      await add(site, `${laterDay}T00:30`, `${laterDay}T01:30`);
      const alerts = async (who: Logged) =>
        (await ok<{ alertes: { kind: string; idSite: number; message: string; lien: string }[] }>('GET', `/api/admin/alerte/get/list/by/filters?filter[site]=${site.id}`, who)).alertes.filter(
          (a) => a.kind === 'permanence_sans_ouvreur',
        );
      await ok('POST', '/api/admin/alerte/run', admin);
      const open = await alerts(referent);
      expect(open.map((a) => a.message)).toEqual([`Permanence du ${soonDay.split('-').reverse().join('/')} 23:00 sans ouvreur : personne ne s’est encore inscrit pour la tenir`]);
      expect(open[0].lien).toBe(`/admin/fiche/site/${site.id}`);
      expect(await alerts(otherReferent)).toEqual([]);
      await ok('POST', `/api/permanence/${soon}/ouvreur`, referent2);
      await ok('POST', '/api/admin/alerte/run', admin);
      expect(await alerts(referent)).toEqual([]);
    });

    it('reminds each opener the day before, once, with an .ics invitation in Paris time across the change of time', async () => {
      const site = await siteOfReferents();
      // Sunday 27 October 2030, the clocks went back that night: 17:00 in Paris is 16:00 UTC.
      const [id] = await ctx.db
        .insertInto('permanence')
        .values({ site_id: site.id, debut: new Date('2030-10-27T16:00:00Z'), fin: new Date('2030-10-27T18:00:00Z'), titre: null, message: 'Clé au cadenas' })
        .returning('id')
        .execute()
        .then((r) => r.map((x) => x.id));
      await ctx.db.insertInto('permanence_ouvreur').values([{ permanence_id: id, account_id: referent.id }, { permanence_id: id, account_id: referent2.id }]).execute();
      const deps = { db: ctx.db, mailer: ctx.mailer, config: TEST_CONFIG };
      // Two days before: too early.
      expect(await sendPermanenceReminders(deps, new Date('2030-10-25T05:30:00Z'))).toBe(0);
      const before = ctx.mailer.sent.length;
      // Saturday 26 October, 07:30 in Paris (summer time still).
      expect(await sendPermanenceReminders(deps, new Date('2030-10-26T05:30:00Z'))).toBe(2);
      expect(await sendPermanenceReminders(deps, new Date('2030-10-26T06:30:00Z'))).toBe(0);
      const mails = ctx.mailer.sent.slice(before);
      expect(mails.map((m) => m.to).sort()).toEqual([referent.email, referent2.email].sort());
      const mail = mails.find((m) => m.to === referent.email)!;
      expect(mail.text).toContain('dimanche 27 octobre 2030, de 17:00 à 19:00');
      expect(mail.text).toContain('Clé au cadenas');
      expect(mail.attachments).toHaveLength(1);
      const [attachment] = mail.attachments!;
      expect(attachment.filename).toBe('permanence.ics');
      expect(attachment.contentType).toContain('text/calendar');
      const { calendar, events: parsed } = events(String(attachment.content));
      expect(calendar.getFirstPropertyValue('method')).toBe('PUBLISH');
      expect(parsed).toHaveLength(1);
      expect(parsed[0].uid).toBe(`permanence-${id}@localhost:3000`);
      expect(parsed[0].start.toISOString()).toBe('2030-10-27T16:00:00.000Z');
      expect(parsed[0].end.toISOString()).toBe('2030-10-27T18:00:00.000Z');
      expect(formatParisDateTime(parsed[0].start)).toBe('27/10/2030 17:00');
      expect(formatParisDateTime(parsed[0].end)).toBe('27/10/2030 19:00');
      const siteRow = await ctx.db.selectFrom('site').select(['nom', 'numero', 'adresse', 'cp', 'ville']).where('id', '=', site.id).executeTakeFirstOrThrow();
      expect(parsed[0].summary).toBe(`Permanence du site ${siteRow.nom}`);
      expect(parsed[0].location).toBe(`${siteRow.numero} ${siteRow.adresse}, ${siteRow.cp} ${siteRow.ville}`);
      expect(parsed[0].description).toBe('Clé au cadenas');
      const stamps = await ctx.db.selectFrom('permanence_ouvreur').select('rappel_envoye_le').where('permanence_id', '=', id).execute();
      expect(stamps.map((s) => new Date(s.rappel_envoye_le!).toISOString())).toEqual(['2030-10-26T05:30:00.000Z', '2030-10-26T05:30:00.000Z']);
    });

    it('gives a reminder back when its mail fails, so the next run sends it', async () => {
      const site = await siteOfReferents();
      const [id] = await ctx.db
        .insertInto('permanence')
        .values({ site_id: site.id, debut: new Date('2031-03-15T16:00:00Z'), fin: new Date('2031-03-15T18:00:00Z') })
        .returning('id')
        .execute()
        .then((r) => r.map((x) => x.id));
      await ctx.db.insertInto('permanence_ouvreur').values({ permanence_id: id, account_id: referent.id }).execute();
      const failing = { send: async () => Promise.reject(new Error('SMTP en panne')) };
      const errors: unknown[] = [];
      const now = new Date('2031-03-14T05:30:00Z');
      expect(await sendPermanenceReminders({ db: ctx.db, mailer: failing, config: TEST_CONFIG, log: { error: (o: unknown) => errors.push(o) } as never }, now)).toBe(0);
      expect(errors).toHaveLength(1);
      expect(await sendPermanenceReminders({ db: ctx.db, mailer: ctx.mailer, config: TEST_CONFIG }, now)).toBe(1);
    });
  });

  describe('public side', () => {
    it('shows the next three openings on the public page, cancelled ones marked, without anyone or any message', async () => {
      const site = await siteOfReferents();
      const ids: number[] = [];
      for (const n of [1, 2, 3, 4]) ids.push(...(await add(site, `${plusDays(today(), n)}T17:00`, `${plusDays(today(), n)}T19:00`, { titre: n === 2 ? 'Fête du compost' : null, message: 'Secret des référents' })));
      const past = plusDays(today(), -1);
      await add(site, `${past}T17:00`, `${past}T19:00`);
      await ok('POST', `/api/permanence/${ids[0]}/ouvreur`, referent);
      await ok('PUT', `/api/admin/permanence/annuler/${ids[1]}`, referent, { motif: 'Motif interne' });
      const res = await call('GET', `/api/public/site/${site.code}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.permanences).toHaveLength(3);
      expect(body.permanences.map((p: { debut: string }) => formatParisDateTime(p.debut))).toEqual([1, 2, 3].map((n) => `${plusDays(today(), n).split('-').reverse().join('/')} 17:00`));
      expect(body.permanences.map((p: { annulee: boolean; titre: string | null }) => [p.annulee, p.titre])).toEqual([
        [false, null],
        [true, 'Fête du compost'],
        [false, null],
      ]);
      for (const p of body.permanences) expect(Object.keys(p).sort()).toEqual(['annulee', 'debut', 'fin', 'titre']);
      const text = JSON.stringify(body);
      for (const word of ['Secret', 'Motif interne', 'KERBRAT', 'Anne']) expect(text).not.toContain(word);
    });

    it('publishes the site’s openings as an iCalendar feed that a parser reads, in Paris time across the change of time, without personal data', async () => {
      const site = await siteOfReferents();
      let year = Number(today().slice(0, 4));
      if (plusDays(lastSundayOfOctober(year), -8) <= plusDays(today(), 1)) year++;
      const change = lastSundayOfOctober(year);
      const ids = await add(site, `${plusDays(change, -8)}T17:00`, `${plusDays(change, -8)}T19:00`, {
        titre: 'Permanence du samedi',
        message: 'Secret des référents',
        recurrence: { frequence: 'hebdomadaire', jusqua: plusDays(change, 6) },
      });
      expect(ids).toHaveLength(3);
      const old = plusDays(today(), -5);
      const [done] = await add(site, `${old}T10:00`, `${old}T11:00`);
      await ok('POST', `/api/permanence/${ids[0]}/ouvreur`, referent);
      await ok('PUT', `/api/admin/permanence/annuler/${ids[2]}`, referent, { motif: 'Motif interne' });

      const res = await call('GET', `/api/public/site/${site.code.toLowerCase()}/permanences.ics`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
      const { calendar, events: parsed } = events(res.body);
      expect(calendar.getFirstPropertyValue('method')).toBe('PUBLISH');
      expect(parsed.map((e) => e.uid)).toEqual([done, ...ids].map((id) => `permanence-${id}@localhost:3000`));
      const series = parsed.slice(1);
      expect(series.map((e) => formatParisDateTime(e.start).slice(11))).toEqual(['17:00', '17:00', '17:00']);
      expect(series.map((e) => e.start.getUTCHours())).toEqual([15, 15, 16]);
      expect(series.map((e) => e.end.getTime() - e.start.getTime())).toEqual([2, 2, 2].map((h) => h * 3600_000));
      expect(series.map((e) => e.status)).toEqual(['CONFIRMED', 'CONFIRMED', 'CANCELLED']);
      expect(series[0].summary).toBe(`Permanence du samedi (${(await ctx.db.selectFrom('site').select('nom').where('id', '=', site.id).executeTakeFirstOrThrow()).nom})`);
      for (const word of ['Secret', 'Motif interne', 'KERBRAT', 'Anne', '@exemple.fr']) expect(res.body).not.toContain(word);
      expect(series.every((e) => e.description === null)).toBe(true);

      expect((await call('GET', '/api/public/site/ZZZ999/permanences.ics')).statusCode).toBe(404);
    });
  });
});
