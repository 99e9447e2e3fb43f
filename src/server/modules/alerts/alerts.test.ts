// The site follow-up alerts through the API, with a fixed clock: each kind opens once for its
// cause, is not reopened by the next run and closes by itself when the cause goes; the digest
// goes once a person and day, one line per site and kind, with a one-click unsubscribe link that
// needs no login; the daily run happens once per scheduled time, whatever the number of
// processes (PostgreSQL); the thresholds and preferences refuse bad input.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_DRIVERS, createAccount, createTestApp, loggedAs, login, openTestDatabase } from '../../../../tests/helpers/test-app.js';
import { openPostgres } from '../../db/client.js';
import { createMemoryMailer } from '../../mailer.js';
import { createCell, createEquippedSite, createPendingDemande } from '../field-entry/test-factories.js';
import { createAlertsJob } from './alerts.service.js';
import { lastSlot, nextSlot, startAlertScheduler } from './alerts.scheduler.js';
import { digestMail } from './alerts.mails.js';
import { unsubscribeToken } from './alerts.unsubscribe.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Logged = Awaited<ReturnType<typeof loggedAs>>;
type Row = { id: number; kind: string; libelle: string; idSite: number; idCellule: number | null; cellule: number | null; idDemande: number | null; message: string; acquittee: boolean; lien: string; dateOuverture: string };

const DAY_MS = 24 * 3600 * 1000;
/** 06:30 in Paris (UTC+1 in March 2030): the default ALERTS_AT of that day. */
const T0 = new Date('2030-03-15T05:30:00.000Z');
const daysBefore = (n: number, from = T0) => new Date(from.getTime() - n * DAY_MS);

describe('scheduled times in Paris', () => {
  it('are 06:30 Paris time on either side of the switch to summer time, the last one at or before now and the next one after', () => {
    // 31 March 2030: Paris goes from UTC+1 to UTC+2 at 01:00 UTC. At 03:00 UTC it is 05:00 in Paris.
    const now = new Date('2030-03-31T03:00:00.000Z');
    expect(lastSlot('06:30', now).toISOString()).toBe('2030-03-30T05:30:00.000Z');
    expect(nextSlot('06:30', now).toISOString()).toBe('2030-03-31T04:30:00.000Z');
    // Exactly at the scheduled time: that time is the last one, the next is tomorrow's.
    const at = new Date('2030-03-31T04:30:00.000Z');
    expect(lastSlot('06:30', at).toISOString()).toBe('2030-03-31T04:30:00.000Z');
    expect(nextSlot('06:30', at).toISOString()).toBe('2030-04-01T04:30:00.000Z');
    // 23:45 in Paris on 27 October 2030 (winter time again, UTC+1).
    expect(lastSlot('23:45', new Date('2030-10-27T23:00:00.000Z')).toISOString()).toBe('2030-10-27T22:45:00.000Z');
  });
});

describe('the digest e-mail', () => {
  const line = (siteId: number, site: string, kind: 'request_overdue' | 'no_reading' | 'site_idle', nb: number, message: string) => ({
    siteId,
    site,
    kind,
    libelle: { request_overdue: 'Demande en retard', no_reading: 'Température non relevée', site_idle: 'Site sans intervention' }[kind],
    nb,
    message,
    path: `/admin/fiche/site/${siteId}`,
  });

  it('says one line per site and kind, a count when several cells or requests share it, escapes the HTML, and sends to the Alertes page what does not fit', () => {
    const unsubscribeUrl = 'https://compost.example.fr/api/alerte/desabonnement/12.abc';
    const mail = digestMail({
      appName: 'Compost',
      publicUrl: 'https://compost.example.fr',
      to: 'lea@exemple.fr',
      nom: 'MARTIN',
      prenom: 'Léa',
      day: T0,
      total: 130,
      lines: [line(1, 'Jardin', 'request_overdue', 1, 'A <b>x</b>'), line(1, 'Jardin', 'no_reading', 3, 'B'), line(2, 'Square', 'request_overdue', 2, 'C'), line(2, 'Square', 'site_idle', 1, 'D')],
      unsubscribeUrl,
    });
    expect(mail.subject).toBe('[Compost] 130 nouvelles alertes');
    expect(mail.text).toContain('130 nouvelles alertes concernent les sites que vous suivez (15/03/2030) :');
    expect(mail.text).toContain(
      [
        '- Jardin — Demande en retard : A <b>x</b>',
        '  https://compost.example.fr/admin/fiche/site/1',
        '- Jardin — Température non relevée : 3 cellules',
        '  https://compost.example.fr/admin/fiche/site/1',
        '- Square — Demande en retard : 2 demandes',
        '  https://compost.example.fr/admin/fiche/site/2',
        '- Square — Site sans intervention : D',
      ].join('\n'),
    );
    // 130 alerts, 7 of them on these lines.
    expect(mail.text).toContain('123 autres alertes sont sur la page Alertes : https://compost.example.fr/admin/alertes');
    expect(mail.text).toContain(`Pour ne plus recevoir ce résumé : ${unsubscribeUrl}`);
    expect(mail.html).toContain('A &lt;b&gt;x&lt;/b&gt;');
    expect(mail.html).not.toContain('<b>x</b>');
    expect(mail.html).toContain(`<a href="${unsubscribeUrl}">Ne plus recevoir ce résumé</a>`);
    expect(mail.headers).toEqual({ 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
  });
});

describe.each(TEST_DRIVERS)('site follow-up alerts (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Logged;
  let provider: Logged;
  let referent: Logged;
  let otherReferent: Logged;
  let siteAdmin: Logged;

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, cookie?: string, payload?: unknown) =>
    ctx.app.inject({ method, url, headers: cookie ? { cookie } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

  const setClock = (d: Date) => vi.setSystemTime(d);

  async function run() {
    const res = await call('POST', '/api/admin/alerte/run', admin.cookie);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { ouvertes: number; fermees: number; mails: number; message: string };
  }

  async function alerts(who: Logged, query: string) {
    const res = await call('GET', `/api/admin/alerte/get/list/by/filters?rowsPerPage=100&${query}`, who.cookie);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { count: number; alertes: Row[] };
  }
  const ofSite = async (siteId: number, who: Logged = admin) => (await alerts(who, `filter[site]=${siteId}`)).alertes;
  const kinds = (rows: Row[]) => rows.map((r) => r.kind).sort();

  /** An intervention written straight to the log (the statistics triggers run as for the API). */
  async function log(siteId: number, cell: number, action: number, date: Date, valeur: number | null = null, destination: number | null = null) {
    await ctx.db
      .insertInto('intervention')
      .values({ date, site_id: siteId, site_composteur_id: cell, type_action_id: action, valeur_nombre: valeur, bac_destination_id: destination, intervenant_id: admin.id })
      .execute();
  }

  /**
   * An equipped site installed a year before T0. (Its creation time would be the fake clock on
   * PGlite, whose now() reads the JavaScript clock: a site created "today" is too young to be late.)
   */
  async function equippedSite(opts: Parameters<typeof createEquippedSite>[1] = {}) {
    const site = await createEquippedSite(ctx.db, opts);
    await ctx.db.updateTable('site').set({ date_implantation: daysBefore(365) }).where('id', '=', site.id).execute();
    return site;
  }

  /** A site whose every cell had a reading in range and an intervention the day before T0, so only the cause under test shows. */
  async function quietSite(opts: { referents?: number[] } = {}) {
    const site = await equippedSite(opts);
    for (const cell of [site.apport, site.maturation]) await log(site.id, cell, 6, daysBefore(1), 40);
    return site;
  }

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    setClock(T0);
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN'], { nom: 'DURAND', prenom: 'Alice' });
    provider = await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3, nom: 'VERT', prenom: 'Paul' });
    referent = await loggedAs(ctx, ['ROLE_USER'], { nom: 'MARTIN', prenom: 'Léa' });
    otherReferent = await loggedAs(ctx, ['ROLE_USER'], { nom: 'PETIT', prenom: 'Marc' });
    siteAdmin = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
  }, 120_000);
  afterEach(() => setClock(T0));
  afterAll(async () => {
    await ctx?.close();
    vi.useRealTimers();
  });

  describe('kinds', () => {
    it('opens an overdue request and a request due within 3 days once, keeps them on the next run, and closes the overdue one when it is processed', async () => {
      const site = await quietSite();
      const overdue = await createPendingDemande(ctx.db, site.id, site.apport, 14);
      const soon = await createPendingDemande(ctx.db, site.id, site.apport, 3, 4);
      const later = await createPendingDemande(ctx.db, site.id, site.broyat, 12);
      await ctx.db.updateTable('demande_intervention').set({ date_echeance: daysBefore(1) }).where('id', '=', overdue).execute();
      await ctx.db.updateTable('demande_intervention').set({ date_echeance: new Date(T0.getTime() + 2 * DAY_MS) }).where('id', '=', soon).execute();
      await ctx.db.updateTable('demande_intervention').set({ date_echeance: new Date(T0.getTime() + 7 * DAY_MS) }).where('id', '=', later).execute();

      await run();
      const first = await ofSite(site.id);
      expect(first.map((r) => [r.kind, r.idDemande])).toEqual(
        expect.arrayContaining([
          ['request_overdue', overdue],
          ['request_due_soon', soon],
        ]),
      );
      expect(first).toHaveLength(2);
      const late = first.find((r) => r.kind === 'request_overdue')!;
      expect(late.message).toBe('Réparation effectuée à faire sur la cellule n°1 : échéance du 14/03/2030 dépassée');
      expect(late.cellule).toBe(1);
      expect(late.lien).toBe('/admin/demande/intervention/list');
      expect(first.find((r) => r.kind === 'request_due_soon')!.message).toBe('Transfert à faire sur la cellule n°1 : échéance le 17/03/2030');

      await run();
      expect((await ofSite(site.id)).map((r) => r.id).sort()).toEqual(first.map((r) => r.id).sort());
      const rows = await ctx.db.selectFrom('alerte').select('id').where('demande_id', '=', overdue).execute();
      expect(rows).toHaveLength(1);

      // Processed through the field entry that closes the request.
      const res = await call('POST', '/api/admin/intervention/add', admin.cookie, {
        clientId: crypto.randomUUID(),
        site: site.id,
        date: new Date(T0.getTime() - 60_000).toISOString(),
        values: [{ composteur: site.apport, action: 14, valeur: 'Couvercle changé', demandeIntervention: overdue }],
      });
      expect(res.statusCode, res.body).toBe(200);
      await run();
      expect(kinds(await ofSite(site.id))).toEqual(['request_due_soon']);
      const closed = await ctx.db.selectFrom('alerte').select(['closed_at']).where('demande_id', '=', overdue).executeTakeFirstOrThrow();
      expect(new Date(closed.closed_at!).toISOString()).toBe(T0.toISOString());

      // Three days later the request due soon is overdue: that alert closes and the overdue one opens.
      setClock(new Date(T0.getTime() + 3 * DAY_MS));
      await log(site.id, site.apport, 6, new Date(T0.getTime() + 2 * DAY_MS), 40);
      await log(site.id, site.maturation, 6, new Date(T0.getTime() + 2 * DAY_MS), 40);
      await run();
      expect((await ofSite(site.id)).map((r) => [r.kind, r.idDemande])).toEqual([['request_overdue', soon]]);
    });

    it('opens a missing reading on an active input or maturation cell after N days, not on a site installed since, and closes it when a reading arrives', async () => {
      const site = await equippedSite();
      await log(site.id, site.apport, 6, daysBefore(1), 40);
      await log(site.id, site.maturation, 6, daysBefore(15), 40);
      // The shredded-wood store is never read, nor the inactive input cell: neither is expected to be.
      const young = await equippedSite();
      await ctx.db.updateTable('site').set({ date_implantation: daysBefore(5) }).where('id', '=', young.id).execute();

      await run();
      const rows = (await ofSite(site.id)).filter((r) => r.kind === 'no_reading');
      expect(rows.map((r) => r.idCellule)).toEqual([site.maturation]);
      expect(rows[0].message).toBe('Aucun relevé de température sur la cellule n°3 (Maturation) depuis le 28/02/2030 (seuil : 14 jours)');
      expect(rows[0].lien).toBe(`/admin/fiche/site/${site.id}`);
      expect((await ofSite(young.id)).filter((r) => r.kind === 'no_reading')).toEqual([]);

      await run();
      expect((await ofSite(site.id)).filter((r) => r.kind === 'no_reading').map((r) => r.id)).toEqual([rows[0].id]);

      await log(site.id, site.maturation, 6, new Date(T0.getTime() - 3600_000), 45);
      await run();
      expect((await ofSite(site.id)).filter((r) => r.kind === 'no_reading')).toEqual([]);
    });

    it('opens a reading above the maximum or below the minimum once, switches when the next reading crosses, and closes on a reading in range', async () => {
      const site = await quietSite();
      await log(site.id, site.maturation, 6, daysBefore(0.5), 75.5);
      await run();
      const high = (await ofSite(site.id)).filter((r) => r.kind.startsWith('temperature'));
      expect(high.map((r) => [r.kind, r.idCellule])).toEqual([['temperature_high', site.maturation]]);
      expect(high[0].message).toBe('75,5 °C relevés le 14/03/2030 18:30 sur la cellule n°3 (Maturation) : au-dessus du maximum de 70 °C');

      // A second high reading: still the same alert.
      await log(site.id, site.maturation, 6, daysBefore(0.4), 78);
      await run();
      expect((await ofSite(site.id)).filter((r) => r.kind.startsWith('temperature')).map((r) => r.id)).toEqual([high[0].id]);

      await log(site.id, site.maturation, 6, daysBefore(0.3), 4);
      await run();
      const low = (await ofSite(site.id)).filter((r) => r.kind.startsWith('temperature'));
      expect(low.map((r) => r.kind)).toEqual(['temperature_low']);
      expect(low[0].message).toContain(': au-dessous du minimum de 10 °C');

      await log(site.id, site.maturation, 6, daysBefore(0.2), 40);
      await run();
      expect((await ofSite(site.id)).filter((r) => r.kind.startsWith('temperature'))).toEqual([]);
    });

    it('follows the thresholds: a lower maximum opens an alert on a reading that was in range', async () => {
      const site = await quietSite();
      await log(site.id, site.maturation, 6, daysBefore(0.5), 65);
      await run();
      expect((await ofSite(site.id)).filter((r) => r.kind === 'temperature_high')).toEqual([]);
      const saved = await call('PUT', '/api/admin/alerte/settings', admin.cookie, {
        temperatureMin: 10,
        temperatureMax: 60,
        joursSansReleve: 14,
        joursSansIntervention: 30,
        pourcentageApport: 80,
        limiteHebdoKg: 1000,
        densiteKgParLitre: 0.5,
      });
      expect(saved.statusCode, saved.body).toBe(200);
      try {
        await run();
        expect((await ofSite(site.id)).filter((r) => r.kind === 'temperature_high').map((r) => r.idCellule)).toEqual([site.maturation]);
      } finally {
        await ctx.db.updateTable('alerte_seuils').set({ temperature_max: 70 }).where('id', '=', 1).execute();
      }
      await run();
      expect((await ofSite(site.id)).filter((r) => r.kind === 'temperature_high')).toEqual([]);
    });

    it('opens an active site without any intervention for N days, not a site seen within them, and closes it on the next intervention', async () => {
      const idle = await equippedSite();
      await log(idle.id, idle.broyat, 12, daysBefore(31), 50);
      const seen = await equippedSite();
      await log(seen.id, seen.broyat, 12, daysBefore(29), 50);
      const requested = await equippedSite({ statut: 2 });

      await run();
      const rows = (await ofSite(idle.id)).filter((r) => r.kind === 'site_idle');
      expect(rows).toHaveLength(1);
      expect(rows[0].message).toBe('Aucune intervention sur le site depuis le 12/02/2030 (seuil : 30 jours)');
      expect(rows[0].idCellule).toBeNull();
      expect((await ofSite(seen.id)).filter((r) => r.kind === 'site_idle')).toEqual([]);
      // A requested site (status 2) is not followed at all.
      expect(await ofSite(requested.id)).toEqual([]);

      await run();
      expect((await ofSite(idle.id)).filter((r) => r.kind === 'site_idle').map((r) => r.id)).toEqual([rows[0].id]);
      await log(idle.id, idle.broyat, 7, daysBefore(0.1));
      await run();
      expect((await ofSite(idle.id)).filter((r) => r.kind === 'site_idle')).toEqual([]);
    });

    it('opens a site whose transfers of the last 4 weeks, at 0.5 kg/L, pass 80 % of 1 000 kg a week, and closes it when they leave the window', async () => {
      const site = await quietSite();
      const second = await createCell(ctx.db, site.id, 3, 5);
      // 80 % of 1 000 kg a week for 4 weeks at 0.5 kg/L is 6 400 L: exactly that is not above.
      await log(site.id, site.apport, 3, daysBefore(20), 4000, site.maturation);
      await log(site.id, site.apport, 3, daysBefore(10), 2400, second);
      // Older than 4 weeks: not counted.
      await log(site.id, site.apport, 3, daysBefore(29), 9000, site.maturation);
      await run();
      expect((await ofSite(site.id)).filter((r) => r.kind === 'intake_high')).toEqual([]);

      await log(site.id, site.apport, 3, daysBefore(2), 40, site.maturation);
      await run();
      const rows = (await ofSite(site.id)).filter((r) => r.kind === 'intake_high');
      expect(rows).toHaveLength(1);
      // 6 440 L x 0.5 kg/L / 4 weeks = 805 kg a week: 80.5 % of the limit.
      expect(rows[0].message).toBe('Apports estimés à 805 kg par semaine (6\u202f440 L transférés en 4 semaines à 0,5 kg/L), soit 81 % de la limite de 1\u202f000 kg');
      expect(rows[0].lien).toBe('/admin/site');

      // 9 days later the transfer of day -20 has left the window (and the site stays read and visited).
      const later = new Date(T0.getTime() + 9 * DAY_MS);
      setClock(later);
      for (const cell of [site.apport, site.maturation, second]) await log(site.id, cell, 6, new Date(later.getTime() - 3600_000), 40);
      await run();
      expect((await ofSite(site.id)).filter((r) => r.kind === 'intake_high')).toEqual([]);
    });
  });

  describe('permanences', () => {
    it('opens an opening due by the day after tomorrow (Paris) that nobody holds for its site, closes it when someone signs up, and sends the openers of tomorrow their reminder', async () => {
      const site = await quietSite({ referents: [referent.id] });
      // T0 is Friday 15 March 2030, 06:30 in Paris (UTC+1).
      const permanence = async (debut: string, fin: string, annulee = false) =>
        (
          await ctx.db
            .insertInto('permanence')
            .values({ site_id: site.id, debut: new Date(debut), fin: new Date(fin), ...(annulee ? { annulee_le: T0, motif_annulation: 'Pluie' } : {}) })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id;
      const sunday = await permanence('2030-03-17T16:00:00Z', '2030-03-17T18:00:00Z');
      await permanence('2030-03-18T09:00:00Z', '2030-03-18T11:00:00Z');
      await permanence('2030-03-16T09:00:00Z', '2030-03-16T11:00:00Z', true);
      const saturday = await permanence('2030-03-16T14:00:00Z', '2030-03-16T16:00:00Z');
      await ctx.db.insertInto('permanence_ouvreur').values({ permanence_id: saturday, account_id: referent.id }).execute();
      try {
        const before = ctx.mailer.sent.length;
        const first = await run();
        const rows = (await ofSite(site.id, referent)).filter((r) => r.kind === 'permanence_sans_ouvreur');
        expect(rows.map((r) => [r.libelle, r.message, r.lien])).toEqual([
          ['Permanence sans ouvreur', 'Permanence du 17/03/2030 17:00 sans ouvreur : personne ne s’est encore inscrit pour la tenir', `/admin/fiche/site/${site.id}`],
        ]);
        expect((await ofSite(site.id, otherReferent)).length).toBe(0);
        const sent = ctx.mailer.sent.slice(before);
        const reminders = sent.filter((m) => m.subject.includes('Rappel : permanence demain'));
        expect(reminders.map((m) => [m.to, m.attachments?.[0]?.filename])).toEqual([[referent.email, 'permanence.ics']]);
        expect(reminders[0].text).toContain('samedi 16 mars 2030, de 15:00 à 17:00');
        expect(first.mails).toBe(sent.length);
        const digest = sent.find((m) => m.to === referent.email && m !== reminders[0]);
        expect(digest?.text).toContain('Permanence sans ouvreur : Permanence du 17/03/2030 17:00 sans ouvreur');

        await ctx.db.insertInto('permanence_ouvreur').values({ permanence_id: sunday, account_id: referent.id }).execute();
        const second = await run();
        expect(second.fermees).toBeGreaterThanOrEqual(1);
        expect((await ofSite(site.id, referent)).filter((r) => r.kind === 'permanence_sans_ouvreur')).toEqual([]);
        // Reminded once: the second run sends the Saturday's opener nothing.
        expect(ctx.mailer.sent.slice(before + sent.length).filter((m) => m.subject.includes('Rappel'))).toEqual([]);
      } finally {
        await ctx.db.deleteFrom('permanence').where('site_id', '=', site.id).execute();
      }
    });
  });

  describe('who sees what', () => {
    it('lists every alert to an administrator, requests to a provider, their own sites to a referent, and refuses the other roles', async () => {
      const mine = await quietSite({ referents: [referent.id] });
      const theirs = await quietSite({ referents: [otherReferent.id] });
      const demande = await createPendingDemande(ctx.db, theirs.id, theirs.apport, 14);
      await ctx.db.updateTable('demande_intervention').set({ date_echeance: daysBefore(2) }).where('id', '=', demande).execute();
      await log(mine.id, mine.maturation, 6, daysBefore(0.5), 80);
      await run();

      expect(kinds(await ofSite(mine.id, admin))).toEqual(['temperature_high']);
      expect(kinds(await ofSite(theirs.id, admin))).toEqual(['request_overdue']);
      // The referent: their site only, with the site sheet as the place to act.
      const own = await alerts(referent, '');
      expect(own.alertes.every((r) => r.idSite === mine.id)).toBe(true);
      expect(own.alertes.map((r) => [r.kind, r.lien])).toEqual([['temperature_high', `/admin/fiche/site/${mine.id}`]]);
      // The provider: requests only, everywhere.
      const requests = await alerts(provider, '');
      expect(requests.alertes.length).toBeGreaterThan(0);
      expect(requests.alertes.every((r) => r.kind === 'request_overdue' || r.kind === 'request_due_soon')).toBe(true);
      expect(requests.alertes.some((r) => r.idDemande === demande)).toBe(true);
      // The other referent sees the request of their site, and is sent to their alerts (they cannot open the requests board).
      expect((await alerts(otherReferent, `filter[site]=${theirs.id}`)).alertes.map((r) => r.lien)).toEqual([`/admin/alertes?site=${theirs.id}`]);

      expect((await call('GET', '/api/admin/alerte/get/list/by/filters', siteAdmin.cookie)).statusCode).toBe(403);
      expect((await call('GET', '/api/admin/alerte/get/list/by/filters')).statusCode).toBe(401);
    });

    it('filters by kind, site and acknowledgement, refuses unknown filters, and lets only an administrator acknowledge an open alert', async () => {
      const site = await quietSite();
      await log(site.id, site.maturation, 6, daysBefore(0.5), 2);
      await run();
      const [low] = (await alerts(admin, `filter[site]=${site.id}&filter[kind]=temperature_low`)).alertes;
      expect(low.acquittee).toBe(false);

      expect((await call('PUT', `/api/admin/alerte/ack/${low.id}`, referent.cookie)).statusCode).toBe(403);
      const ack = await call('PUT', `/api/admin/alerte/ack/${low.id}`, admin.cookie);
      expect(ack.statusCode, ack.body).toBe(200);
      expect(ack.json()).toEqual({ status: 'success', message: 'Alerte acquittée' });
      expect((await alerts(admin, `filter[site]=${site.id}&filter[acquittee]=1`)).alertes.map((r) => r.id)).toEqual([low.id]);
      expect((await alerts(admin, `filter[site]=${site.id}&filter[acquittee]=0`)).alertes).toEqual([]);
      // Acknowledged, it stays open until its cause goes.
      await run();
      expect((await ofSite(site.id)).map((r) => [r.id, r.acquittee])).toEqual([[low.id, true]]);

      await log(site.id, site.maturation, 6, daysBefore(0.1), 30);
      await run();
      const closed = await call('PUT', `/api/admin/alerte/ack/${low.id}`, admin.cookie);
      expect(closed.statusCode).toBe(409);
      expect(closed.json().message).toBe('Cette alerte est déjà close');
      expect((await call('PUT', '/api/admin/alerte/ack/2147483647', admin.cookie)).json()).toMatchObject({ status: 'error', message: 'Alerte introuvable' });
      expect((await call('PUT', '/api/admin/alerte/ack/abc', admin.cookie)).statusCode).toBe(400);

      const bad = await call('GET', '/api/admin/alerte/get/list/by/filters?filter[kind]=panne&filter[zzz]=1&sort[name]=message', admin.cookie);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors.map((e: { key: string }) => e.key).sort()).toEqual(['filter', 'filter.kind', 'sort.name']);
    });
  });

  describe('thresholds and preferences', () => {
    it('gives the documented defaults, and refuses bad thresholds with every error at once', async () => {
      const res = await call('GET', '/api/admin/alerte/settings', admin.cookie);
      expect(res.json()).toEqual({
        temperatureMin: 10,
        temperatureMax: 70,
        joursSansReleve: 14,
        joursSansIntervention: 30,
        pourcentageApport: 80,
        limiteHebdoKg: 1000,
        densiteKgParLitre: 0.5,
        kgParSeau: 2,
      });
      const bad = await call('PUT', '/api/admin/alerte/settings', admin.cookie, {
        temperatureMin: 50,
        temperatureMax: 40,
        joursSansReleve: 0,
        joursSansIntervention: 366,
        pourcentageApport: 101,
        limiteHebdoKg: 0,
        densiteKgParLitre: 0,
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual(
        expect.arrayContaining([
          { key: 'temperatureMin', error: 'La température minimale doit être inférieure à la température maximale' },
          { key: 'joursSansReleve', error: 'Un nombre entier de jours entre 1 et 365' },
          { key: 'joursSansIntervention', error: 'Un nombre entier de jours entre 1 et 365' },
          { key: 'pourcentageApport', error: 'Un pourcentage entier entre 1 et 100' },
          { key: 'limiteHebdoKg', error: 'Une limite entière entre 1 et 100 000 kg' },
          { key: 'densiteKgParLitre', error: 'Une densité supérieure à 0 et d’au plus 2 kg/L, avec trois décimales au plus' },
        ]),
      );
      expect(bad.json().errors).toHaveLength(6);
      const kg = await call('PUT', '/api/admin/alerte/settings', admin.cookie, { ...(res.json() as object), kgParSeau: 0 });
      expect(kg.json().errors).toEqual([{ key: 'kgParSeau', error: 'Un poids supérieur à 0 et d’au plus 50 kg, avec deux décimales au plus' }]);
      for (const kgParSeau of [50.5, 1.125, '2']) {
        expect((await call('PUT', '/api/admin/alerte/settings', admin.cookie, { ...(res.json() as object), kgParSeau })).json().errors).toEqual(kg.json().errors);
      }
      const withKg = await call('PUT', '/api/admin/alerte/settings', admin.cookie, { ...(res.json() as object), kgParSeau: 2.75 });
      expect(withKg.json().settings.kgParSeau).toBe(2.75);
      // A form of before the setting leaves it as it is.
      const { kgParSeau: _kg, ...withoutKg } = res.json() as Record<string, number>;
      expect((await call('PUT', '/api/admin/alerte/settings', admin.cookie, withoutKg)).json().settings.kgParSeau).toBe(2.75);
      await call('PUT', '/api/admin/alerte/settings', admin.cookie, res.json());
      expect((await call('GET', '/api/admin/alerte/settings', admin.cookie)).json().kgParSeau).toBe(2);
      const equal = await call('PUT', '/api/admin/alerte/settings', admin.cookie, { ...(res.json() as object), temperatureMin: 70, densiteKgParLitre: 1.005 });
      expect(equal.json().errors).toEqual([{ key: 'temperatureMin', error: 'La température minimale doit être inférieure à la température maximale' }]);
      const precise = await call('PUT', '/api/admin/alerte/settings', admin.cookie, { ...(res.json() as object), temperatureMax: 65.55 });
      expect(precise.json().errors).toEqual([{ key: 'temperatureMax', error: 'Une température entre -20 et 90 °C, au dixième de degré' }]);
      expect((await call('PUT', '/api/admin/alerte/settings', siteAdmin.cookie, res.json())).statusCode).toBe(403);
      expect((await call('GET', '/api/admin/alerte/settings', referent.cookie)).statusCode).toBe(403);
    });

    it('keeps per person the kinds they do not want by e-mail, among those their roles give', async () => {
      expect((await call('GET', '/api/alerte/preferences', provider.cookie)).json()).toEqual({ recues: ['request_overdue', 'request_due_soon'], desactivees: [] });
      const saved = await call('PUT', '/api/alerte/preferences', provider.cookie, { desactivees: ['request_due_soon', 'site_idle'] });
      expect(saved.statusCode, saved.body).toBe(200);
      expect(saved.json().preferences).toEqual({ recues: ['request_overdue', 'request_due_soon'], desactivees: ['request_due_soon'] });
      const bad = await call('PUT', '/api/alerte/preferences', provider.cookie, { desactivees: ['panne'] });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors[0].error).toBe("Type d'alerte inconnu");
      expect((await call('GET', '/api/alerte/preferences', siteAdmin.cookie)).statusCode).toBe(403);
      await call('PUT', '/api/alerte/preferences', provider.cookie, { desactivees: [] });
    });
  });

  describe('digests', () => {
    it('sends each person one digest a day with their new alerts, grouped by site with links, and nothing twice', async () => {
      // A clean day for this test: everything before it has been told.
      const day = new Date(T0.getTime() + 20 * DAY_MS);
      setClock(day);
      await ctx.db.updateTable('alerte').set({ closed_at: day }).where('closed_at', 'is', null).execute();
      await ctx.db.deleteFrom('alerte_digest').execute();
      await ctx.db.updateTable('site').set({ statut_id: 2 }).where('statut_id', '=', 1).execute();
      await ctx.db.updateTable('demande_intervention').set({ statut_id: 6 }).where('statut_id', 'in', [3, 4]).execute();
      ctx.mailer.sent.length = 0;

      const mine = await equippedSite({ referents: [referent.id], nom: 'Jardin du Tertre' });
      const other = await equippedSite({ referents: [otherReferent.id], nom: 'Square Wilson' });
      for (const s of [mine, other]) for (const cell of [s.apport, s.maturation]) await log(s.id, cell, 6, new Date(day.getTime() - 3600_000), 40);
      await log(mine.id, mine.maturation, 6, new Date(day.getTime() - 1800_000), 85);
      const demande = await createPendingDemande(ctx.db, other.id, other.apport, 14);
      await ctx.db.updateTable('demande_intervention').set({ date_echeance: new Date(day.getTime() - DAY_MS) }).where('id', '=', demande).execute();
      await call('PUT', '/api/alerte/preferences', otherReferent.cookie, { desactivees: ['request_overdue'] });

      const first = await run();
      expect(first).toMatchObject({ ouvertes: 2, mails: 3 });
      expect(first.message).toBe('Alertes calculées : 2 ouvertes, 0 fermée, 3 e-mails envoyés');
      const to = (email: string) => ctx.mailer.sent.filter((m) => m.to === email);
      const adminMail = to(admin.email);
      expect(adminMail).toHaveLength(1);
      expect(adminMail[0].subject).toBe('[Compost test] 2 nouvelles alertes');
      expect(adminMail[0].text).toContain('Bonjour Alice DURAND,');
      expect(adminMail[0].text).toContain(`- Jardin du Tertre — Température trop haute : 85 °C relevés le`);
      expect(adminMail[0].text).toContain(`http://localhost:3000/admin/fiche/site/${mine.id}`);
      expect(adminMail[0].text).toContain(`- Square Wilson — Demande en retard : Réparation effectuée à faire sur la cellule n°1`);
      expect(adminMail[0].text).toContain('http://localhost:3000/admin/demande/intervention/list');
      expect(adminMail[0].text).toContain('http://localhost:3000/admin/alertes/preferences');
      expect(adminMail[0].html).toContain(`<strong>Jardin du Tertre</strong>`);
      expect(adminMail[0].headers).toEqual({
        'List-Unsubscribe': expect.stringMatching(new RegExp(`^<http://localhost:3000/api/alerte/desabonnement/${admin.id}\\.[A-Za-z0-9_-]{43}>$`)),
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      });
      // The referent of the hot site gets its alert only; the provider the request only; the
      // other referent turned requests off and has nothing else.
      expect(to(referent.email).map((m) => m.subject)).toEqual(['[Compost test] 1 nouvelle alerte']);
      expect(to(referent.email)[0].text).toContain('Température trop haute');
      expect(to(referent.email)[0].text).not.toContain('Demande en retard');
      expect(to(provider.email)[0].text).toContain('Demande en retard');
      expect(to(provider.email)[0].text).not.toContain('Température');
      expect(to(otherReferent.email)).toEqual([]);

      // The same day, a new cause on the other referent's site: they get their first digest of the
      // day; those already told today get nothing more, and a run with nothing new sends nothing.
      await log(other.id, other.maturation, 6, new Date(day.getTime() - 600_000), 3);
      const second = await run();
      expect(second).toMatchObject({ ouvertes: 1, mails: 1 });
      expect(to(otherReferent.email).map((m) => m.subject)).toEqual(['[Compost test] 1 nouvelle alerte']);
      expect(to(otherReferent.email)[0].text).toContain('Température trop basse');
      expect(to(admin.email)).toHaveLength(1);
      expect((await run()).mails).toBe(0);

      // The next day: each person is told only what is new since their last digest.
      setClock(new Date(day.getTime() + DAY_MS));
      const third = await run();
      expect(third.mails).toBe(1);
      const adminNext = to(admin.email)[1];
      expect(adminNext.subject).toBe('[Compost test] 1 nouvelle alerte');
      expect(adminNext.text).toContain('Température trop basse');
      expect(adminNext.text).not.toContain('Température trop haute');
      expect(ctx.mailer.sent).toHaveLength(5);
      await call('PUT', '/api/alerte/preferences', otherReferent.cookie, { desactivees: [] });
    });

    it('gives the claim back when an e-mail cannot leave, so that the next run sends it', async () => {
      const day = new Date(T0.getTime() + 40 * DAY_MS);
      setClock(day);
      await ctx.db.updateTable('site').set({ statut_id: 2 }).where('statut_id', '=', 1).execute();
      const site = await equippedSite();
      await log(site.id, site.apport, 6, new Date(day.getTime() - 3600_000), 40);
      await log(site.id, site.maturation, 6, new Date(day.getTime() - 3600_000), 95);
      const failing = { send: vi.fn().mockRejectedValueOnce(new Error('SMTP indisponible')).mockResolvedValue(undefined) };
      const job = createAlertsJob({ db: ctx.db, mailer: failing, config: { APP_NAME: 'Compost test', publicUrl: 'http://localhost:3000' } });
      // Only the administrator follows every site here: the other people have nothing new.
      const firstRun = await job.run({ trigger: 'cli', now: day });
      expect(firstRun.mails).toBe(0);
      const secondRun = await job.run({ trigger: 'cli', now: new Date(day.getTime() + 60_000) });
      expect(secondRun.mails).toBe(1);
      expect(failing.send).toHaveBeenCalledTimes(2);
    });
  });

  describe('the daily run', () => {
    it('runs once per scheduled time, not for a time before the alerts existed, and catches a missed time up at start', async () => {
      const day = new Date(T0.getTime() + 60 * DAY_MS);
      setClock(day);
      const job = createAlertsJob({ db: ctx.db, mailer: createMemoryMailer(), config: { APP_NAME: 'Compost test', publicUrl: 'http://localhost:3000' } });
      const slot = lastSlot('06:30', day);
      expect((await job.run({ trigger: 'schedule', now: day, slot })).status).toBe('done');
      expect((await job.run({ trigger: 'schedule', now: new Date(day.getTime() + 60_000), slot })).status).toBe('skipped');
      // A scheduled time before the thresholds table existed is no missed day.
      const created = (await ctx.db.selectFrom('alerte_seuils').select('created_at').executeTakeFirstOrThrow()).created_at;
      expect((await job.run({ trigger: 'schedule', now: day, slot: new Date(new Date(created).getTime() - 60_000) })).status).toBe('skipped');

      // The server was down at the next day's 06:30: started at 09:00, it runs at once, and a
      // second process started at 09:01 does not.
      const nine = new Date(day.getTime() + DAY_MS + 2.5 * 3600_000);
      const logger = { info: () => undefined, error: () => undefined };
      const deps = { db: ctx.db, mailer: createMemoryMailer(), config: { APP_NAME: 'Compost test', publicUrl: 'http://localhost:3000' }, at: '06:30', log: logger };
      const first = startAlertScheduler({ ...deps, now: () => nine });
      expect((await first.current)?.status).toBe('done');
      await first.stop();
      const second = startAlertScheduler({ ...deps, now: () => new Date(nine.getTime() + 60_000) });
      expect((await second.current)?.status).toBe('skipped');
      await second.stop();
      const runs = await ctx.db.selectFrom('alerte_run').select('trigger').where('started_at', '>=', lastSlot('06:30', nine)).execute();
      expect(runs.map((r) => r.trigger)).toEqual(['schedule']);
    });

  });

  // After the daily run's days (a run there would count as that day's), within the sessions' 60 days.
  describe('first readings, public reports and unsubscribing', () => {
    /** A day of its own: every site of the earlier tests left aside and their alerts closed. */
    async function freshDay(day: Date) {
      setClock(day);
      // Signed in again today: the sessions of the first tests are too old by now.
      admin.cookie = await login(ctx.app, admin.login);
      await ctx.db.updateTable('site').set({ statut_id: 2 }).where('statut_id', '=', 1).execute();
      await ctx.db.updateTable('demande_intervention').set({ statut_id: 6 }).where('statut_id', 'in', [3, 4]).execute();
      await run();
      ctx.mailer.sent.length = 0;
    }
    const noReading = async (siteId: number) =>
      (await ofSite(siteId))
        .filter((r) => r.kind === 'no_reading')
        .map((r) => r.idCellule)
        .sort((x, y) => x! - y!);

    it('counts a never-read cell as without reading once its site has been in the app for 30 days, and tells several such cells of a site on one line', async () => {
      const day = new Date(T0.getTime() + 70 * DAY_MS);
      await freshDay(day);
      // Both installed a year ago; one entered in the app 10 days ago, the other 31 days ago.
      const fresh = await equippedSite({ nom: 'Résidence des Lilas' });
      const old = await equippedSite({ nom: 'Jardin des Fontaines' });
      await ctx.db.updateTable('site').set({ created_at: daysBefore(10, day) }).where('id', '=', fresh.id).execute();
      await ctx.db.updateTable('site').set({ created_at: daysBefore(31, day) }).where('id', '=', old.id).execute();
      const freshRead = await createCell(ctx.db, fresh.id, 3, 5);
      const oldExtra = await createCell(ctx.db, old.id, 3, 5);
      // A reading 20 days ago: that cell has started its log, and the log has a gap.
      await log(fresh.id, freshRead, 6, daysBefore(20, day), 40);
      for (const s of [fresh, old]) await log(s.id, s.broyat, 12, daysBefore(1, day), 50);

      await run();
      expect(await noReading(fresh.id)).toEqual([freshRead]);
      expect(await noReading(old.id)).toEqual([old.apport, old.maturation, oldExtra].sort((x, y) => x - y));

      const [mail] = ctx.mailer.sent.filter((m) => m.to === admin.email);
      expect(mail.text).toContain('- Jardin des Fontaines — Température non relevée : 3 cellules');
      expect(mail.text.split('Jardin des Fontaines')).toHaveLength(2);
      expect(mail.text).toContain('- Résidence des Lilas — Température non relevée : Aucun relevé de température sur la cellule n°5 (Maturation) depuis le');
      expect(mail.subject).toBe('[Compost test] 4 nouvelles alertes');
    });

    it('opens a site with 3 public reports within 7 days, not one with 2, and closes it when one leaves the week', async () => {
      const day = new Date(T0.getTime() + 75 * DAY_MS);
      await freshDay(day);
      const follower = await loggedAs(ctx, ['ROLE_USER']);
      const busy = await equippedSite({ referents: [follower.id] });
      const calm = await equippedSite();
      for (const s of [busy, calm]) for (const cell of [s.apport, s.maturation]) await log(s.id, cell, 6, daysBefore(1, day), 40);
      // Written as the public page stores a report (only the columns every version of the table has).
      const report = (siteId: number, at: Date, texte: string) =>
        sql`INSERT INTO signalement_public (site_id, categorie, texte, reponse_demandee, created_at) VALUES (${siteId}, 'bac_plein', ${texte}, false, ${at})`.execute(ctx.db);
      await report(busy.id, daysBefore(6, day), 'Le bac est plein');
      await report(busy.id, daysBefore(2, day), 'Plus de place dans le bac');
      await report(busy.id, new Date(day.getTime() - 3600_000), 'Bac plein, sacs posés à côté');
      await report(calm.id, daysBefore(8, day), 'Odeurs');
      await report(calm.id, daysBefore(3, day), 'Odeurs fortes');
      await report(calm.id, daysBefore(1, day), 'Couvercle cassé');
      // A report of tomorrow is not counted today.
      await report(calm.id, new Date(day.getTime() + 3600_000), 'Mouches');

      await run();
      const rows = (await ofSite(busy.id)).filter((r) => r.kind === 'public_reports');
      expect(rows.map((r) => [r.libelle, r.message, r.lien, r.idCellule])).toEqual([
        ['Signalements répétés', '3 signalements reçus de la page publique en 7 jours (seuil : 3)', '/admin/signalements', null],
      ]);
      expect((await alerts(follower, `filter[site]=${busy.id}&filter[kind]=public_reports`)).alertes.map((r) => r.lien)).toEqual(['/admin/signalements']);
      expect((await ofSite(calm.id)).filter((r) => r.kind === 'public_reports')).toEqual([]);
      expect(ctx.mailer.sent.find((m) => m.to === follower.email)?.text).toContain('Signalements répétés : 3 signalements reçus');

      // A day and a half later the report of day -6 is more than 7 days old.
      setClock(new Date(day.getTime() + 1.5 * DAY_MS));
      await run();
      expect((await ofSite(busy.id)).filter((r) => r.kind === 'public_reports')).toEqual([]);
    });

    it('turns a person’s digest off from the one-click link of their digest, without login, shows a confirmation page on GET, and refuses a forged link', async () => {
      const day = new Date(T0.getTime() + 80 * DAY_MS);
      await freshDay(day);
      const referent = await loggedAs(ctx, ['ROLE_USER']);
      const site = await equippedSite({ referents: [referent.id] });
      for (const cell of [site.apport, site.maturation]) await log(site.id, cell, 6, new Date(day.getTime() - 3600_000), 40);
      await log(site.id, site.maturation, 6, new Date(day.getTime() - 1800_000), 95);
      await run();
      const [mail] = ctx.mailer.sent.filter((m) => m.to === referent.email);
      expect(mail.headers!['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
      const link = /^<(http:\/\/localhost:3000(\/api\/alerte\/desabonnement\/[^>]+))>$/.exec(mail.headers!['List-Unsubscribe'])!;
      expect(mail.text).toContain(`Pour ne plus recevoir ce résumé : ${link[1]}`);
      const path = link[2];
      const prefs = async () => (await call('GET', '/api/alerte/preferences', referent.cookie)).json() as { recues: string[]; desactivees: string[] };

      // A mail client opening the link in a browser: a page that asks, nothing changed yet.
      const page = await ctx.app.inject({ method: 'GET', url: path });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('Ne plus recevoir le résumé des alertes');
      expect(page.body).toContain('<button type="submit">Confirmer le désabonnement</button>');
      expect((await prefs()).desactivees).toEqual([]);

      // The mail provider's one-click POST: no cookie, form-encoded.
      const done = await ctx.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' });
      expect(done.statusCode, done.body).toBe(200);
      expect(done.body).toContain('Vous ne recevrez plus le résumé quotidien des alertes par e-mail.');
      const all = ['request_overdue', 'request_due_soon', 'no_reading', 'temperature_high', 'temperature_low', 'site_idle', 'intake_high', 'public_reports', 'permanence_sans_ouvreur'];
      expect(await prefs()).toEqual({ recues: all, desactivees: all });
      // Again (a provider retrying): still 200.
      expect((await ctx.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' })).statusCode).toBe(200);

      // The next day a new cause on the site: the administrator is told, the referent no more.
      setClock(new Date(day.getTime() + DAY_MS));
      await log(site.id, site.apport, 6, new Date(day.getTime() + DAY_MS - 600_000), 2);
      ctx.mailer.sent.length = 0;
      await run();
      expect(ctx.mailer.sent.map((m) => m.to)).toContain(admin.email);
      expect(ctx.mailer.sent.map((m) => m.to)).not.toContain(referent.email);

      // Forged links: altered signature, another account's id with this signature, a signature made
      // with another key, an account that does not exist, a malformed token. Nothing changes.
      const [id, signature] = path.split('/').pop()!.split('.');
      const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
      const [key] = (await sql<{ secret: string }>`SELECT secret FROM alerte_cle`.execute(ctx.db)).rows;
      const forged = [`${id}.${flipped}`, `${admin.id}.${signature}`, unsubscribeToken('une-autre-cle', admin.id), unsubscribeToken(key.secret, 2147483647)];
      for (const token of forged) {
        for (const method of ['GET', 'POST'] as const) {
          const res = await ctx.app.inject({ method, url: `/api/alerte/desabonnement/${token}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' });
          expect(res.statusCode, `${method} ${token}`).toBe(404);
          expect(res.body).toContain('Lien de désabonnement invalide');
        }
      }
      for (const token of ['abc', `${id}.${signature}x`, `0.${signature}`, `99999999999.${signature}`]) {
        expect((await ctx.app.inject({ method: 'POST', url: `/api/alerte/desabonnement/${token}` })).statusCode, token).toBe(400);
      }
      expect((await call('GET', '/api/alerte/preferences', admin.cookie)).json().desactivees).toEqual([]);
    });
  });
});

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('the alerts job on one PostgreSQL database shared by two processes', () => {
  it('is run by exactly one of them for a scheduled time, and nobody gets two digests when both run it by hand', async () => {
    const first = await openTestDatabase('postgres');
    // The second process: its own pool on the same database.
    const second = await openPostgres(first.url!);
    try {
      const admin = await createAccount(first.db, { roles: ['ROLE_ADMIN'] });
      const referent = await createAccount(first.db, { roles: ['ROLE_USER'] });
      const site = await createEquippedSite(first.db, { referents: [referent.id] });
      const slot = new Date();
      const now = new Date(slot.getTime() + 1000);
      for (const [cell, t] of [
        [site.apport, 40],
        [site.maturation, 99],
      ]) {
        await first.db
          .insertInto('intervention')
          .values({ date: new Date(slot.getTime() - 3600_000), site_id: site.id, site_composteur_id: cell, type_action_id: 6, valeur_nombre: t, intervenant_id: admin.id })
          .execute();
      }
      const config = { APP_NAME: 'Compost test', publicUrl: 'http://localhost:3000' };
      const mailA = createMemoryMailer();
      const mailB = createMemoryMailer();
      const a = createAlertsJob({ db: first.db, mailer: mailA, config });
      const b = createAlertsJob({ db: second.db, mailer: mailB, config });

      const outcomes = await Promise.all([a, b, a, b].map((job) => job.run({ trigger: 'schedule', now, slot })));
      expect(outcomes.filter((o) => o.status === 'done')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status !== 'done').every((o) => o.status === 'busy' || o.status === 'skipped')).toBe(true);
      expect(await first.db.selectFrom('alerte_run').select('id').execute()).toHaveLength(1);
      expect(await first.db.selectFrom('alerte').select('id').where('kind', '=', 'temperature_high').execute()).toHaveLength(1);
      // After it, a scheduled run of either process for that time does nothing.
      expect((await b.run({ trigger: 'schedule', now: new Date(now.getTime() + 5000), slot })).status).toBe('skipped');

      await Promise.all([a.run({ trigger: 'manual', now }), b.run({ trigger: 'manual', now }), a.run({ trigger: 'manual', now })]);
      const sent = [...mailA.sent, ...mailB.sent].map((m) => m.to);
      expect(sent.sort()).toEqual([admin.email, referent.email].sort());
    } finally {
      await second.close();
      await first.close();
    }
  });
});
