// Rules of the permanences (docs/permanences.md).
// - Who: ROLE_ADMIN and ROLE_ADMIN_SITE on every site, a referent (ROLE_USER) on the sites
//   they are referent of; anyone else is refused (403) before anything else is looked at.
// - Times are Paris wall-clock times (paris-time.ts); an opening lasts more than nothing and at
//   most PERMANENCE_DUREE_MAX_HEURES; one may start up to PERMANENCE_APRES_COUP_JOURS days
//   back (an unscheduled opening recorded afterwards, apres_coup) but then does not repeat; a
//   series runs at most PERMANENCE_SERIE_JOURS_MAX days and is written out, one row per
//   occurrence, in the transaction that makes it. Every error is listed at once.
// - Only a referent of the site holds an opening (signs up as opener); signing up twice is
//   signing up once.
// - Cancelling asks a reason; the openers and the site's households who take the news are told
//   after the commit (a mail that fails is logged, the cancellation stands).
// - The tally comes from the phone's outbox: its clientId makes a replay answer the tally
//   stored the first time, without storing anything. Without kilos, they are estimated from the
//   buckets and the programme's kilos per bucket, and marked as an estimate.
import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../../deps.js';
import type { CurrentUser } from '../../plugins/auth.js';
import type { FieldError } from '../../../shared/errors.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import {
  PERMANENCE_APRES_COUP_JOURS,
  PERMANENCE_DUREE_MAX_HEURES,
  PERMANENCE_MESSAGES,
  PERMANENCE_SERIE_JOURS_MAX,
  type PermanenceList,
  type PermanenceRow,
  type Recurrence,
} from '../../../shared/schemas/permanences.js';
import { createHouseholdMailing } from '../households/public.js';
import { createPermanencesRepository, type PermanenceListRecord, type PermanenceRecord, type PermanencesRepository, type SiteInfo } from './permanences.repository.js';
import { DAY_MS, addDays, instantOfWall, parseDay, parseWall } from '../../../shared/paris-time.js';
import { occurrences, type Occurrence } from './permanences.recurrence.js';
import { cancelledHouseholdMail, cancelledOpenerMail, type OpeningFacts } from './permanences.mails.js';
import { siteAddress, siteName } from './permanences.ics.js';
import type { Mail } from '../../mailer.js';

const HOUR_MS = 3600_000;

export interface PermanenceTimesInput {
  debut: string;
  fin: string;
  titre: string | null;
  message: string | null;
}

export interface PermanenceAddInput extends PermanenceTimesInput {
  site: number;
  recurrence?: Recurrence | null;
}

export interface BilanInputValues {
  clientId: string;
  foyers: number;
  seaux: number;
  kg?: number | null;
  temperature?: number | null;
}

/** Sees and manages every site. */
const managesAll = (user: CurrentUser) => user.roles.includes('ROLE_ADMIN') || user.roles.includes('ROLE_ADMIN_SITE');

const iso = (d: Date) => d.toISOString();

export function toRow(r: PermanenceListRecord): PermanenceRow {
  return {
    id: r.id,
    idSite: r.siteId,
    debut: iso(r.debut),
    fin: iso(r.fin),
    titre: r.titre,
    message: r.message,
    serie: r.serieId !== null && r.frequence !== null && r.jusqua !== null ? { id: r.serieId, frequence: r.frequence, jusqua: r.jusqua } : null,
    apresCoup: r.apresCoup,
    annulee: r.annuleeLe !== null,
    motifAnnulation: r.motifAnnulation,
    ouvreurs: r.ouvreurs,
    jeTiens: r.jeTiens,
    bilan: bilanOf(r),
  };
}

function bilanOf(r: PermanenceRecord): PermanenceRow['bilan'] {
  if (r.bilanLe === null) return null;
  return { foyers: r.bilanFoyers!, seaux: r.bilanSeaux!, kg: r.bilanKg!, kgEstime: r.bilanKgEstime!, temperature: r.bilanTemperature, le: iso(r.bilanLe) };
}

/**
 * Checks the times of one opening against the clock; pushes the errors found. Returns the
 * wall-clock times and instants when both parse.
 */
function checkTimes(input: { debut: string; fin: string }, now: Date, errors: FieldError[]) {
  const debutWall = parseWall(input.debut);
  const finWall = parseWall(input.fin);
  if (debutWall === null) errors.push({ key: 'debut', error: PERMANENCE_MESSAGES.dateInvalid });
  if (finWall === null) errors.push({ key: 'fin', error: PERMANENCE_MESSAGES.dateInvalid });
  if (debutWall === null || finWall === null) return null;
  const debut = instantOfWall(debutWall);
  const fin = instantOfWall(finWall);
  if (fin.getTime() <= debut.getTime()) errors.push({ key: 'fin', error: PERMANENCE_MESSAGES.finAfterDebut });
  else if (fin.getTime() - debut.getTime() > PERMANENCE_DUREE_MAX_HEURES * HOUR_MS) errors.push({ key: 'fin', error: PERMANENCE_MESSAGES.tooLong });
  if (debut.getTime() < now.getTime() - PERMANENCE_APRES_COUP_JOURS * DAY_MS) errors.push({ key: 'debut', error: PERMANENCE_MESSAGES.tooOld });
  return { debutWall, finWall, debut, fin };
}

export function createPermanencesService(deps: Pick<AppDeps, 'db' | 'mailer' | 'config'>, log: Pick<FastifyBaseLogger, 'warn'>) {
  const repo = createPermanencesRepository(deps.db);
  const households = createHouseholdMailing({ db: deps.db, config: deps.config });
  const inTransaction = <T>(fn: (tx: PermanencesRepository) => Promise<T>): Promise<T> => deps.db.transaction().execute((trx) => fn(createPermanencesRepository(trx)));

  /** The site, when the user may manage its permanences: 403 otherwise, then 404 when unknown. */
  async function managedSite(r: PermanencesRepository, user: CurrentUser, siteId: number): Promise<SiteInfo> {
    if (!managesAll(user) && !(await r.isReferent(user.id, siteId))) throw new ForbiddenError();
    const site = await r.site(siteId);
    if (!site) throw new NotFoundError(PERMANENCE_MESSAGES.siteNotFound);
    return site;
  }

  /** The permanence locked, when the user may manage it; 404 unknown, 403 another site's. */
  async function lockManaged(r: PermanencesRepository, user: CurrentUser, id: number): Promise<PermanenceRecord> {
    const p = await r.lock(id);
    if (!p) throw new NotFoundError(PERMANENCE_MESSAGES.notFound);
    if (!managesAll(user) && !(await r.isReferent(user.id, p.siteId))) throw new ForbiddenError();
    return p;
  }

  async function send(mails: readonly Mail[], what: string) {
    let sent = 0;
    for (const m of mails) {
      try {
        await deps.mailer.send(m);
        sent++;
      } catch (err) {
        log.warn({ err }, what);
      }
    }
    return sent;
  }

  return {
    async list(user: CurrentUser, siteId: number, periode: 'a_venir' | 'passees', now: Date): Promise<PermanenceList> {
      await managedSite(repo, user, siteId);
      const rows = await repo.list(siteId, periode, now, new Date(now.getTime() - PERMANENCE_APRES_COUP_JOURS * DAY_MS), user.id);
      return { count: rows.length, permanences: rows.map(toRow) };
    },

    /** One opening, or a series written out; says which ids were written. */
    async add(user: CurrentUser, input: PermanenceAddInput, now: Date): Promise<number[]> {
      if (!managesAll(user) && !(await repo.isReferent(user.id, input.site))) throw new ForbiddenError();
      const errors: FieldError[] = [];
      const site = await repo.site(input.site);
      if (!site) errors.push({ key: 'site', error: PERMANENCE_MESSAGES.site });
      const times = checkTimes(input, now, errors);
      const past = times !== null && times.debut.getTime() < now.getTime();
      let series: Occurrence[] | null = null;
      if (input.recurrence) {
        const { frequence, jusqua } = input.recurrence;
        const until = parseDay(jusqua);
        if (until === null) errors.push({ key: 'recurrence.jusqua', error: PERMANENCE_MESSAGES.dateInvalid });
        if (past) errors.push({ key: 'recurrence', error: PERMANENCE_MESSAGES.recurrencePast });
        if (times && until !== null) {
          const firstDay = new Date(times.debutWall).toISOString().slice(0, 10);
          if (jusqua <= firstDay) errors.push({ key: 'recurrence.jusqua', error: PERMANENCE_MESSAGES.jusquaBeforeDebut });
          else if (jusqua > addDays(firstDay, PERMANENCE_SERIE_JOURS_MAX)) errors.push({ key: 'recurrence.jusqua', error: PERMANENCE_MESSAGES.jusquaTooFar });
          else series = occurrences(times.debutWall, times.finWall, frequence, jusqua);
        }
      }
      if (errors.length > 0 || !times) throw new ValidationError(errors);
      const when = series ?? [{ debut: times.debut, fin: times.fin }];
      return inTransaction(async (tx) => {
        const serieId = input.recurrence && series ? await tx.insertSerie({ siteId: input.site, frequence: input.recurrence.frequence, jusqua: input.recurrence.jusqua, accountId: user.id }) : null;
        return tx.insertPermanences(
          when.map((o) => ({ siteId: input.site, serieId, debut: o.debut, fin: o.fin, titre: input.titre, message: input.message, apresCoup: past, accountId: user.id })),
        );
      });
    },

    /** Moves or retitles one occurrence; its openers are reminded again when it moved. */
    async update(user: CurrentUser, id: number, input: PermanenceTimesInput, now: Date): Promise<void> {
      await inTransaction(async (tx) => {
        const p = await lockManaged(tx, user, id);
        if (p.annuleeLe !== null) throw new ConflictError(PERMANENCE_MESSAGES.cancelled);
        const errors: FieldError[] = [];
        const times = checkTimes(input, now, errors);
        if (errors.length > 0 || !times) throw new ValidationError(errors);
        await tx.update(id, { debut: times.debut, fin: times.fin, titre: input.titre, message: input.message });
        if (times.debut.getTime() !== p.debut.getTime()) await tx.resetReminders(id);
      });
    },

    /** Cancels one occurrence and tells its openers and the site's households; says how many e-mails left. */
    async cancel(user: CurrentUser, id: number, motif: string, now: Date): Promise<number> {
      const done = await inTransaction(async (tx) => {
        const p = await lockManaged(tx, user, id);
        if (p.annuleeLe !== null) throw new ConflictError(PERMANENCE_MESSAGES.alreadyCancelled);
        if (p.bilanLe !== null) throw new ConflictError(PERMANENCE_MESSAGES.hasBilan);
        await tx.cancel(id, user.id, motif, now);
        return { p, site: (await tx.site(p.siteId))!, openers: await tx.openers(id) };
      });
      const { p, site } = done;
      const facts: OpeningFacts = { appName: deps.config.APP_NAME, site: siteName(site), address: siteAddress(site), debut: p.debut, fin: p.fin, titre: p.titre };
      // Past openings are not announced to households any more: only one still to come is.
      const recipients = p.fin.getTime() > now.getTime() ? await households.recipients(site.id) : [];
      const mails: Mail[] = [
        ...done.openers.map((o) => cancelledOpenerMail({ ...facts, to: o.email, prenom: o.prenom, motif })),
        ...recipients.map((h) =>
          cancelledHouseholdMail({ ...facts, to: h.email, prenom: h.prenom, motif, leaveUrl: h.leaveUrl, unsubscribeUrl: h.unsubscribeUrl, headers: h.headers }),
        ),
      ];
      return send(mails, 'Annonce d’une permanence annulée non envoyée');
    },

    /** Signs the user up as an opener (a referent of the site only); twice is once. */
    async signUp(user: CurrentUser, id: number, now: Date): Promise<void> {
      await inTransaction(async (tx) => {
        const p = await tx.lock(id);
        if (!p) throw new NotFoundError(PERMANENCE_MESSAGES.notFound);
        if (!(await tx.isReferent(user.id, p.siteId))) throw new ForbiddenError(PERMANENCE_MESSAGES.notReferent);
        if (p.annuleeLe !== null) throw new ConflictError(PERMANENCE_MESSAGES.cancelled);
        if (p.fin.getTime() <= now.getTime()) throw new ConflictError(PERMANENCE_MESSAGES.ended);
        await tx.addOpener(id, user.id);
      });
    },

    async withdraw(user: CurrentUser, id: number): Promise<void> {
      const p = await repo.find(id);
      if (!p) throw new NotFoundError(PERMANENCE_MESSAGES.notFound);
      await repo.removeOpener(id, user.id);
    },

    /** Records the tally (see the file's header); answers the tally stored. */
    async bilan(user: CurrentUser, id: number, input: BilanInputValues, now: Date) {
      const stored = await inTransaction(async (tx) => {
        const p = await lockManaged(tx, user, id);
        // A replay of the tally already stored answers it again, whatever happened since.
        if (p.bilanClientId === input.clientId) return p;
        const elsewhere = await tx.byClientId(input.clientId);
        if (elsewhere) throw new ConflictError(PERMANENCE_MESSAGES.clientIdUsed);
        if (p.annuleeLe !== null) throw new ConflictError(PERMANENCE_MESSAGES.cancelled);
        if (p.debut.getTime() > now.getTime()) throw new ConflictError(PERMANENCE_MESSAGES.notStarted);
        const measured = input.kg !== null && input.kg !== undefined;
        // Decimal arithmetic in the database would do as well; two decimals in JS are exact enough
        // for buckets (whole) times a setting of at most two decimals, and rounded like the column.
        const kg = measured ? String(input.kg) : (Math.round(input.seaux * (await tx.kgParSeau()) * 100) / 100).toFixed(2);
        await tx.saveBilan(id, {
          clientId: input.clientId,
          foyers: input.foyers,
          seaux: input.seaux,
          kg,
          kgEstime: !measured,
          temperature: input.temperature ?? null,
          accountId: user.id,
          now,
        });
        return (await tx.find(id))!;
      })
        .catch((e: unknown) => {
          // Two phones sending one client id for two openings at the same instant: the second meets the unique key.
          if ((e as { code?: string }).code === '23505') throw new ConflictError(PERMANENCE_MESSAGES.clientIdUsed);
          throw e;
        });
      return bilanOf(stored)!;
    },
  };
}
