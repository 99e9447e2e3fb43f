// Rules of the public side of the sites.
// - The public page says nothing about a person: the site's own public texts, dates and levels
//   of the latest interventions, its next openings (times, title, cancelled or not: neither
//   opener nor message), and the programme's contact line.
// - Reports: the sender comes first, at most 5 an hour from one client address (an IPv6 line
//   counts as its /64), counted in the database (every server process shares them); an attempt
//   refused for another reason (unknown site, a failure) is given back. A site is never closed
//   to a new sender: past 50 new reports in 24 hours, a report waits for its place on the board
//   instead. The same text again on a site counts into its open report (one row, a counter). A
//   robot that fills the hidden field gets the usual answer and nothing is stored.
// - ROLE_ADMIN handles every report, a referent those of their own sites (another site's report
//   is unknown to them). Handling, one report or several at once, is one transaction on the
//   locked reports, all or nothing; the reporters' addresses are erased with it, and each gets
//   its one answer after the commit (the mailer keeps no copy). Merged reports hand their
//   reporters to the report kept, who are answered when it is handled.
import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../../deps.js';
import type { CurrentUser } from '../../plugins/auth.js';
import type { FieldError } from '../../../shared/errors.js';
import { ConflictError, NotFoundError, TooManyRequestsError, ValidationError } from '../../errors.js';
import { addressKey, createDbLimiter, type DbLimiter } from '../../rate-limit.js';
import {
  SIGNALEMENT_CATEGORIES,
  SIGNALEMENT_MESSAGES,
  SIGNALEMENT_TEXTE_MAX,
  SIGNALEMENT_TEXTE_MIN,
  categorieLibelle,
  type PublicSite,
  type SignalementList,
  type SignalementListQuery,
  type SignalementTransform,
} from '../../../shared/schemas/public-sites.js';
import type { SignalementCategorie } from '../../db/schema-public-sites.js';
import { createPublicSitesRepository, type PublicSitesRepository } from './public-sites.repository.js';
import { reportHandledMail, type ReportHandledMail } from './public-sites.mails.js';
import { nextPublicPermanences } from '../permanences/public.js';

const HOUR = 3600_000;

export const REPORT_LIMITS = {
  perAddress: { max: 5, windowMs: HOUR },
  /** New reports a site shows in any 24 hours; the next ones wait for their place. */
  perSiteDay: 50,
} as const;

/** How far ahead a request made from a report may fall due. */
const DUE_DAYS_MAX = 365;

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 24 * HOUR).toISOString().slice(0, 10);
}

/** Counts one more, or refuses with the French reason of this limit (and its Retry-After). */
async function hitOr(limiter: DbLimiter, key: string, message: string) {
  try {
    await limiter.hit(key);
  } catch (e) {
    if (e instanceof TooManyRequestsError) throw new TooManyRequestsError(e.retryAfterSeconds, message);
    throw e;
  }
}

export interface ReportInput {
  categorie: SignalementCategorie;
  texte: string;
  email: string | null;
  /** Undeclared keys come through too: the hidden field among them. */
  [key: string]: unknown;
}

type Locked = Awaited<ReturnType<PublicSitesRepository['lockReports']>>[number];

export function createPublicSitesService(deps: AppDeps & { now?: () => number }, log: FastifyBaseLogger) {
  const repo = createPublicSitesRepository(deps.db);
  const perAddress = createDbLimiter(deps.db, { kind: 'signalement-address', ...REPORT_LIMITS.perAddress, now: deps.now });

  function inTransaction<T>(fn: (tx: PublicSitesRepository) => Promise<T>): Promise<T> {
    return deps.db.transaction().execute((trx) => fn(createPublicSitesRepository(trx)));
  }

  /** Reports this user may handle, locked and all new; unknown (404) when one is another site's. */
  async function lockFor(tx: PublicSitesRepository, user: CurrentUser, ids: readonly number[]): Promise<Locked[]> {
    const reports = await tx.lockReports(ids);
    if (reports.length !== ids.length) throw new NotFoundError(SIGNALEMENT_MESSAGES.notFound);
    if (!user.roles.includes('ROLE_ADMIN')) {
      for (const siteId of new Set(reports.map((r) => r.siteId))) if (!(await tx.isReferent(user.id, siteId))) throw new NotFoundError(SIGNALEMENT_MESSAGES.notFound);
    }
    if (reports.some((r) => r.statut !== 'nouveau')) throw new ConflictError(SIGNALEMENT_MESSAGES.alreadyHandled);
    return reports;
  }

  /** Handled reports: their reporters' addresses, erased now, and what each answer says. */
  async function answersFor(tx: PublicSitesRepository, reports: Locked[], outcome: ReportHandledMail['outcome']): Promise<ReportHandledMail[]> {
    const byId = new Map(reports.map((r) => [r.id, r]));
    return (await tx.takeContacts(reports.map((r) => r.id))).map(({ id, email }) => {
      const r = byId.get(id)!;
      return { appName: deps.config.APP_NAME, contact: deps.config.APP_CONTACT, to: email, site: r.nom || r.code, reportedAt: new Date(r.date), outcome };
    });
  }

  async function transformReports(user: CurrentUser, ids: readonly number[], input: SignalementTransform): Promise<number> {
    const done = await inTransaction(async (tx) => {
      const reports = await lockFor(tx, user, ids);
      const siteId = reports[0].siteId;
      const errors: FieldError[] = [];
      if (reports.some((r) => r.siteId !== siteId)) errors.push({ key: 'ids', error: SIGNALEMENT_MESSAGES.transformOtherSite });
      const action = await tx.actionLabel(input.actionProgrammee);
      if (!action) errors.push({ key: 'actionProgrammee', error: SIGNALEMENT_MESSAGES.actionUnknown });
      const cell = await tx.activeCell(siteId, input.composteur);
      if (!cell) errors.push({ key: 'composteur', error: SIGNALEMENT_MESSAGES.cellUnknown });
      if (action && cell && !(await tx.actionAllowedOn(input.actionProgrammee, cell.typeBac))) {
        errors.push({ key: 'actionProgrammee', error: SIGNALEMENT_MESSAGES.actionNotOnCell });
      }
      const today = await tx.parisToday();
      if (input.dateEcheance < today || input.dateEcheance > addDays(today, DUE_DAYS_MAX)) errors.push({ key: 'dateEcheance', error: SIGNALEMENT_MESSAGES.dateRange });
      if (errors.length > 0) throw new ValidationError(errors);
      const demandeId = await tx.insertRequest({ siteId, cellId: input.composteur, action: input.actionProgrammee, day: input.dateEcheance });
      await tx.markHandled(ids, { statut: 'transforme', accountId: user.id, motif: null, demandeId });
      return { demandeId, mails: await answersFor(tx, reports, { kind: 'transforme', action: action!, dueDay: input.dateEcheance }) };
    });
    await answer(done.mails);
    return done.demandeId;
  }

  /** Sent after the commit; a failure is logged (without the address) and the handling stands. */
  async function answer(mails: ReportHandledMail[]) {
    for (const mail of mails) {
      try {
        await deps.mailer.send(reportHandledMail(mail));
      } catch (err) {
        log.warn({ err }, 'Réponse au signalement non envoyée');
      }
    }
  }

  return {
    async publicSite(code: string): Promise<PublicSite> {
      const site = await repo.publicSite(code.toUpperCase());
      if (!site) throw new NotFoundError(SIGNALEMENT_MESSAGES.siteNotFound);
      const l = await repo.latest(site.id);
      return {
        code: site.code,
        nom: site.nom,
        typeSite: site.typeSite,
        numero: site.numero,
        adresse: site.adresse,
        cp: site.cp,
        ville: site.ville,
        horaires: site.horaires,
        consignes: site.consignes,
        dernierRetournement: iso(l.retournement),
        dernierTransfert: iso(l.transfert),
        niveauApport: l.apportDate && l.apportNiveau ? { niveau: l.apportNiveau, date: iso(l.apportDate)! } : null,
        // Constant 1 is 'Vide': from a quarter up, there is compost to take.
        compostMur:
          l.matiereDate && l.matiereNiveau
            ? { niveau: l.matiereNiveau, date: iso(l.matiereDate)!, disponible: l.matiereConstante !== null && l.matiereConstante > 1 }
            : null,
        appName: deps.config.APP_NAME,
        contact: deps.config.APP_CONTACT,
        categories: SIGNALEMENT_CATEGORIES.map((c) => ({ value: c.value, libelle: c.libelle })),
        texteMin: SIGNALEMENT_TEXTE_MIN,
        texteMax: SIGNALEMENT_TEXTE_MAX,
        permanences: await nextPublicPermanences(deps.db, site.id, new Date(deps.now?.() ?? Date.now())),
      };
    },

    async report(code: string, input: ReportInput, ip: string): Promise<void> {
      const sender = addressKey(ip);
      await hitOr(perAddress, sender, SIGNALEMENT_MESSAGES.perAddress);
      try {
        const site = await repo.publicSite(code.toUpperCase());
        if (!site) throw new NotFoundError(SIGNALEMENT_MESSAGES.siteNotFound);
        if (input.siteWeb) return;
        await inTransaction(async (tx) => {
          await tx.lockSiteReports(site.id);
          const open = await tx.openIdentical(site.id, input.texte);
          const id = open ?? (await tx.insertReport({ siteId: site.id, categorie: input.categorie, texte: input.texte, withEmail: input.email !== null, perDay: REPORT_LIMITS.perSiteDay })).id;
          if (open) await tx.countAgain(open, input.email !== null);
          if (input.email) await tx.addContact(id, input.email);
        });
      } catch (e) {
        await perAddress.refund(sender);
        throw e;
      }
    },

    async list(user: CurrentUser, query: SignalementListQuery): Promise<SignalementList> {
      const { count, rows } = await repo.reports(query, { referentId: user.roles.includes('ROLE_ADMIN') ? null : user.id });
      return {
        count,
        signalements: rows.map((r) => ({
          id: r.id,
          date: iso(r.date)!,
          idSite: r.idSite,
          site: r.site,
          code: r.code,
          adresse: r.adresse,
          categorie: r.categorie,
          categorieLibelle: categorieLibelle(r.categorie),
          texte: r.texte,
          reponseDemandee: r.reponseDemandee,
          statut: r.statut,
          traiteLe: iso(r.traiteLe),
          traitePar: r.traitePar || null,
          motif: r.motif,
          idDemande: r.idDemande,
          actionProgrammee: r.actionProgrammee,
          dateEcheance: iso(r.dateEcheance),
          occurrences: r.occurrences,
          fusionneDans: r.fusionneDans,
        })),
      };
    },

    /** A normal pending request on a cell of the report's site, linked to the report. */
    async transform(user: CurrentUser, id: number, input: SignalementTransform): Promise<number> {
      return transformReports(user, [id], input);
    },

    /**
     * Several new reports of one site turned into one request (all or none): each is linked to
     * it and its reporter told, as for one. Says which request.
     */
    transformMany(user: CurrentUser, ids: readonly number[], input: SignalementTransform): Promise<number> {
      return transformReports(user, ids, input);
    },

    /** Files one report, or several at once (all or none); says how many. */
    async file(user: CurrentUser, ids: readonly number[], motif: string): Promise<number> {
      const mails = await inTransaction(async (tx) => {
        const reports = await lockFor(tx, user, ids);
        await tx.markHandled(ids, { statut: 'classe', accountId: user.id, motif, demandeId: null });
        return answersFor(tx, reports, { kind: 'classe', motif });
      });
      await answer(mails);
      return ids.length;
    },

    /** Folds new reports of one site into the one kept (all or none); says how many were merged. */
    async merge(user: CurrentUser, keptId: number, ids: readonly number[]): Promise<number> {
      await inTransaction(async (tx) => {
        const reports = await lockFor(tx, user, [keptId, ...ids]);
        const kept = reports.find((r) => r.id === keptId)!;
        if (reports.some((r) => r.siteId !== kept.siteId)) throw new ValidationError([{ key: 'ids', error: SIGNALEMENT_MESSAGES.mergeOtherSite }]);
        const merged = reports.filter((r) => r !== kept);
        await tx.foldInto(keptId, ids, merged.reduce((n, r) => n + r.occurrences, 0));
        await tx.markHandled(ids, { statut: 'classe', accountId: user.id, motif: null, demandeId: null, fusionneDans: keptId });
      });
      return ids.length;
    },

    openDataSites: () => repo.openDataSites(),
  };
}
