// Rules of the site follow-up alerts (docs/alerts.md).
//
// The job: in one transaction holding the job's advisory lock, each kind lists its current
// causes; open alerts whose cause is gone are closed, causes without an open alert get one.
// A scheduled run is skipped when a run already started after its scheduled time, or when the
// feature did not exist yet at that time (a fresh installation has no missed day). Then each
// person with new alerts gets one digest a day: the (person, day) row is claimed before the
// e-mail leaves, so a second run, in this process or another, sends nothing twice. Each digest
// carries its person's one-click unsubscribe link (alerts.unsubscribe.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { Mailer } from '../../mailer.js';
import type { CurrentUser } from '../../plugins/auth.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { can } from '../../../shared/permissions.js';
import { formatParisDate, formatParisDateTime, parisDayValue } from '../../../shared/dates.js';
import {
  ALERT_KINDS,
  ALERT_LABELS,
  ALERT_MESSAGES,
  INTAKE_WINDOW_WEEKS,
  REPORTS_ALERT_MIN,
  REPORTS_WINDOW_DAYS,
  REQUEST_ALERT_KINDS,
  type AlertKind,
  type AlertList,
  type AlertListQuery,
  type AlertPreferences,
  type AlertSettings,
  type AlertSettingsInput,
} from '../../../shared/schemas/alerts.js';
import { permanenceAlertCauses, sendPermanenceReminders } from '../permanences/public.js';
import { createAlertsRepository, type AlertScope, type AlertsRepository, type NewAlert } from './alerts.repository.js';
import { digestMail, DIGEST_MAX_LINES } from './alerts.mails.js';
import { UNSUBSCRIBE_PATH, unsubscribeAccount, unsubscribeToken } from './alerts.unsubscribe.js';

const DAY_MS = 24 * 3600 * 1000;
/**
 * A cell never read is "without reading" only once its site has been followed in the app for
 * this many days: a programme that starts (or imports its sites) does not get an alert for every
 * bin on its first morning.
 */
export const FIRST_READING_GRACE_DAYS = 30;
const number = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 0 });

export interface RunOutcome {
  /** done: computed (and digests sent); busy: another run holds the lock; skipped: the day's run already happened. */
  status: 'done' | 'busy' | 'skipped';
  ouvertes: number;
  fermees: number;
  mails: number;
}

export interface AlertsJobDeps {
  db: Db;
  mailer: Mailer;
  config: { APP_NAME: string; publicUrl: string };
  log?: Pick<FastifyBaseLogger, 'info' | 'error'>;
}

/** The path of the screen where the alert's cause is dealt with, for someone with these roles. */
export function alertLink(kind: AlertKind, siteId: number, roles: readonly string[]): string {
  const fallback = `/admin/alertes?site=${siteId}`;
  if (REQUEST_ALERT_KINDS.includes(kind)) return can(roles, 'request.manage') ? '/admin/demande/intervention/list' : fallback;
  if (kind === 'intake_high') return can(roles, 'site.manage') ? '/admin/site' : fallback;
  if (kind === 'public_reports') return can(roles, 'signalement.handle') ? '/admin/signalements' : fallback;
  // Readings and interventions are recorded on the site sheet.
  return can(roles, 'intervention.add') ? `/admin/fiche/site/${siteId}` : fallback;
}

/** Which open alerts a person sees: everything (administrators), requests (providers), their own sites (referents). */
export function scopeOf(user: Pick<CurrentUser, 'id' | 'roles'>): AlertScope {
  return { all: user.roles.includes('ROLE_ADMIN'), requests: user.roles.includes('ROLE_PRESTATAIRE'), referentId: user.roles.includes('ROLE_USER') ? user.id : null };
}

/** The kinds a person can receive by e-mail, from their roles. */
export function receivableKinds(roles: readonly string[]): AlertKind[] {
  if (roles.includes('ROLE_ADMIN') || roles.includes('ROLE_USER')) return [...ALERT_KINDS];
  if (roles.includes('ROLE_PRESTATAIRE')) return [...REQUEST_ALERT_KINDS];
  return [];
}

const cellText = (numero: number, typeBac?: string) => `la cellule n°${numero}${typeBac ? ` (${typeBac})` : ''}`;

/** Every current cause of every kind, with the message of an alert that would open for it; `tx` is the job's transaction. */
async function currentCauses(tx: Db, repo: AlertsRepository, s: AlertSettings, now: Date): Promise<Map<AlertKind, NewAlert[]>> {
  const causes = new Map<AlertKind, NewAlert[]>(ALERT_KINDS.map((k) => [k, []]));
  const add = (a: NewAlert) => causes.get(a.kind)!.push(a);

  for (const d of await repo.pendingRequests(now)) {
    const overdue = d.dateEcheance.getTime() < now.getTime();
    add({
      kind: overdue ? 'request_overdue' : 'request_due_soon',
      objetId: d.id,
      siteId: d.siteId,
      cellId: d.cellId,
      demandeId: d.id,
      message: overdue
        ? `${d.action} à faire sur ${cellText(d.numero)} : échéance du ${formatParisDate(d.dateEcheance)} dépassée`
        : `${d.action} à faire sur ${cellText(d.numero)} : échéance le ${formatParisDate(d.dateEcheance)}`,
    });
  }

  const readingCutoff = now.getTime() - s.joursSansReleve * DAY_MS;
  const graceCutoff = now.getTime() - FIRST_READING_GRACE_DAYS * DAY_MS;
  for (const c of await repo.cellReadings(now)) {
    const base = { objetId: c.cellId, siteId: c.siteId, cellId: c.cellId, demandeId: null };
    const stale = c.lastDate === null ? c.followedSince.getTime() <= graceCutoff : c.lastDate.getTime() <= readingCutoff;
    if (stale && c.siteStart.getTime() <= readingCutoff) {
      add({
        ...base,
        kind: 'no_reading',
        message:
          c.lastDate === null
            ? `Aucun relevé de température sur ${cellText(c.numero, c.typeBac)} (seuil : ${s.joursSansReleve} jours)`
            : `Aucun relevé de température sur ${cellText(c.numero, c.typeBac)} depuis le ${formatParisDate(c.lastDate)} (seuil : ${s.joursSansReleve} jours)`,
      });
    }
    if (c.lastDate !== null && c.lastValue !== null) {
      const reading = `${number.format(c.lastValue)} °C relevés le ${formatParisDateTime(c.lastDate)} sur ${cellText(c.numero, c.typeBac)}`;
      if (c.lastValue > s.temperatureMax) add({ ...base, kind: 'temperature_high', message: `${reading} : au-dessus du maximum de ${number.format(s.temperatureMax)} °C` });
      if (c.lastValue < s.temperatureMin) add({ ...base, kind: 'temperature_low', message: `${reading} : au-dessous du minimum de ${number.format(s.temperatureMin)} °C` });
    }
  }

  const idleCutoff = now.getTime() - s.joursSansIntervention * DAY_MS;
  for (const site of await repo.siteActivity(now)) {
    if (site.siteStart.getTime() > idleCutoff) continue;
    if (site.lastDate !== null && site.lastDate.getTime() > idleCutoff) continue;
    add({
      kind: 'site_idle',
      objetId: site.siteId,
      siteId: site.siteId,
      cellId: null,
      demandeId: null,
      message:
        site.lastDate === null
          ? `Aucune intervention enregistrée sur le site (seuil : ${s.joursSansIntervention} jours)`
          : `Aucune intervention sur le site depuis le ${formatParisDate(site.lastDate)} (seuil : ${s.joursSansIntervention} jours)`,
    });
  }

  for (const site of await repo.sitesOverIntake(now, INTAKE_WINDOW_WEEKS, s)) {
    const share = (site.kgParSemaine / s.limiteHebdoKg) * 100;
    add({
      kind: 'intake_high',
      objetId: site.siteId,
      siteId: site.siteId,
      cellId: null,
      demandeId: null,
      message:
        `Apports estimés à ${whole.format(site.kgParSemaine)} kg par semaine (${whole.format(site.litres)} L transférés en ${INTAKE_WINDOW_WEEKS} semaines ` +
        `à ${number.format(s.densiteKgParLitre)} kg/L), soit ${whole.format(share)} % de la limite de ${whole.format(s.limiteHebdoKg)} kg`,
    });
  }
  for (const site of await repo.sitesWithReports(now, REPORTS_WINDOW_DAYS, REPORTS_ALERT_MIN)) {
    add({
      kind: 'public_reports',
      objetId: site.siteId,
      siteId: site.siteId,
      cellId: null,
      demandeId: null,
      message: `${site.nb} signalements reçus de la page publique en ${REPORTS_WINDOW_DAYS} jours (seuil : ${REPORTS_ALERT_MIN})`,
    });
  }
  // An opening due by the day after tomorrow that nobody holds yet: the site's referents can still sign up.
  for (const p of await permanenceAlertCauses(tx, now)) {
    add({ kind: 'permanence_sans_ouvreur', objetId: p.objetId, siteId: p.siteId, cellId: null, demandeId: null, message: p.message });
  }
  return causes;
}

/** The one-click unsubscribe URL of a person's digests. */
export function unsubscribeUrl(publicUrl: string, key: string, accountId: number): string {
  return `${publicUrl}${UNSUBSCRIBE_PATH}/${unsubscribeToken(key, accountId)}`;
}

/** The daily job and what the routes and the command line call. */
export function createAlertsJob(deps: AlertsJobDeps) {
  const repo = createAlertsRepository(deps.db);

  async function sendDigests(now: Date): Promise<number> {
    const jour = parisDayValue(now)!;
    const lines = await repo.digestLines(jour, DIGEST_MAX_LINES);
    const byPerson = new Map<number, typeof lines>();
    for (const l of lines) byPerson.set(l.accountId, [...(byPerson.get(l.accountId) ?? []), l]);
    let sent = 0;
    const key = byPerson.size > 0 ? await repo.unsubscribeKey() : '';
    const collator = new Intl.Collator('fr', { numeric: true });
    const claimed = await repo.claimDigests(
      jour,
      [...byPerson.values()].map((own) => ({ accountId: own[0].accountId, lastAlerteId: own[0].maxId, nb: own[0].total })),
      now,
    );
    for (const [accountId, own] of byPerson) {
      if (!claimed.has(accountId)) continue;
      const first = own[0];
      // Grouped by site in the e-mail: sites by name, each one's lines oldest first.
      own.sort((x, y) => collator.compare(x.site, y.site) || x.siteId - y.siteId || x.alerteId - y.alerteId);
      const mail = digestMail({
        appName: deps.config.APP_NAME,
        publicUrl: deps.config.publicUrl,
        to: first.email,
        nom: first.nom,
        prenom: first.prenom,
        day: now,
        total: first.total,
        lines: own.map((l) => ({
          siteId: l.siteId,
          site: l.site,
          kind: l.kind,
          libelle: ALERT_LABELS[l.kind],
          nb: l.nb,
          message: l.message,
          path: alertLink(l.kind, l.siteId, l.roles),
        })),
        unsubscribeUrl: unsubscribeUrl(deps.config.publicUrl, key, accountId),
      });
      try {
        await deps.mailer.send(mail);
        sent++;
      } catch (e) {
        // The claim goes back: the next run (or tomorrow's) sends this person's digest.
        await repo.releaseDigest(accountId, jour);
        deps.log?.error({ err: e, account: accountId }, 'Résumé des alertes non envoyé');
      }
    }
    return sent;
  }

  /**
   * One run at `now`. With `slot` (a scheduled run), nothing happens when a run started at or
   * after that instant, or when the alerts did not exist yet then.
   */
  async function run(opts: { trigger: 'schedule' | 'manual' | 'cli'; now: Date; slot?: Date }): Promise<RunOutcome> {
    const { now, slot } = opts;
    const started = performance.now();
    const computed = await repo.transaction(async (tx) => {
      const r = createAlertsRepository(tx);
      if (!(await r.tryLock())) return { status: 'busy' as const };
      const settings = await r.settings();
      if (slot && (settings.createdAt.getTime() > slot.getTime() || (await r.ranSince(slot)))) return { status: 'skipped' as const };
      const runId = await r.startRun(opts.trigger, now);
      let ouvertes = 0;
      let fermees = 0;
      for (const [kind, causes] of await currentCauses(tx, r, settings, now)) {
        fermees += await r.closeExcept(
          kind,
          causes.map((c) => c.objetId),
          now,
        );
        const open = await r.openObjects(kind);
        const fresh = causes.filter((c) => !open.has(c.objetId));
        await r.insertAlerts(fresh, now);
        ouvertes += fresh.length;
      }
      await r.updateRun(runId, { ouvertes, fermees });
      // The first run (or a day when many causes change) reshapes the table the digests read.
      if (ouvertes + fermees > 500) await r.analyze();
      return { status: 'done' as const, runId, ouvertes, fermees };
    });
    if (computed.status !== 'done') return { status: computed.status, ouvertes: 0, fermees: 0, mails: 0 };
    const computedAt = performance.now();
    // The openers' reminders of the day before leave with the day's run, counted among its e-mails.
    const reminders = await sendPermanenceReminders(deps, now);
    const mails = reminders + (await sendDigests(now));
    await repo.updateRun(computed.runId, { mails, finishedAt: new Date() });
    const ms = { computeMs: Math.round(computedAt - started), digestMs: Math.round(performance.now() - computedAt) };
    deps.log?.info({ trigger: opts.trigger, ouvertes: computed.ouvertes, fermees: computed.fermees, mails, rappels: reminders, ...ms }, 'Alertes calculées');
    return { status: 'done', ouvertes: computed.ouvertes, fermees: computed.fermees, mails };
  }

  return { run };
}

export type AlertsJob = ReturnType<typeof createAlertsJob>;

/** What the routes do besides running the job: the list, acknowledging, thresholds, preferences. */
export function createAlertsService(db: Db) {
  const repo = createAlertsRepository(db);
  return {
    async list(user: CurrentUser, q: AlertListQuery): Promise<AlertList> {
      const { count, rows } = await repo.list(q, scopeOf(user));
      return {
        count,
        alertes: rows.map((r) => ({
          id: r.id,
          kind: r.kind,
          libelle: ALERT_LABELS[r.kind],
          idSite: r.siteId,
          site: r.site,
          idCellule: r.cellId,
          cellule: r.numero,
          idDemande: r.demandeId,
          dateOuverture: new Date(r.openedAt).toISOString(),
          message: r.message,
          acquittee: r.acquittee,
          lien: alertLink(r.kind, r.siteId, user.roles),
        })),
      };
    },

    async acknowledge(user: CurrentUser, id: number, now: Date) {
      const alert = await repo.findAlert(id);
      if (!alert) throw new NotFoundError(ALERT_MESSAGES.notFound);
      if (alert.closed_at !== null) throw new ConflictError(ALERT_MESSAGES.closed);
      await repo.acknowledge(id, user.id, now);
      return { status: 'success' as const, message: ALERT_MESSAGES.acknowledged };
    },

    async settings(): Promise<AlertSettings> {
      const { createdAt: _createdAt, ...settings } = await repo.settings();
      return settings;
    },

    async saveSettings(user: CurrentUser, s: AlertSettingsInput, now: Date) {
      await repo.saveSettings(s, user.id, now);
      return { status: 'success' as const, message: ALERT_MESSAGES.settingsSaved, settings: await this.settings() };
    },

    async preferences(user: CurrentUser): Promise<AlertPreferences> {
      const recues = receivableKinds(user.roles);
      const off = new Set(await repo.optedOut(user.id));
      return { recues, desactivees: recues.filter((k) => off.has(k)) };
    },

    /**
     * The account a one-click unsubscribe token names, or null for a token not made by this
     * server (forged, altered, from another installation) or whose account is gone.
     */
    async unsubscribeAccount(token: string): Promise<number | null> {
      const accountId = unsubscribeAccount(await repo.unsubscribeKey(), token);
      return accountId !== null && (await repo.accountExists(accountId)) ? accountId : null;
    },

    /** One-click unsubscribe: every kind off, so no digest leaves for the person any more. */
    async unsubscribe(accountId: number) {
      await repo.setOptedOut(accountId, ALERT_KINDS);
    },

    async savePreferences(user: CurrentUser, desactivees: readonly AlertKind[]) {
      // Only kinds the person can receive are kept; the order of the answer is the kinds' order.
      const recues = receivableKinds(user.roles);
      await repo.setOptedOut(
        user.id,
        recues.filter((k) => desactivees.includes(k)),
      );
      return { status: 'success' as const, message: ALERT_MESSAGES.preferencesSaved, preferences: await this.preferences(user) };
    },
  };
}
