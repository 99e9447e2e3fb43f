// Rules of the public side of the sites.
// - The public page says nothing about a person: the site's own public texts, dates and levels
//   of the latest interventions, and the programme's contact line.
// - Reports: at most 5 an hour from one client address and 50 a day on one site, counted in
//   the database (every server process shares them); a robot that fills the hidden field gets
//   the usual answer and nothing is stored.
// - ROLE_ADMIN handles every report, a referent those of their own sites (another site's report
//   is unknown to them). Handling is one transaction on the locked report; the reporter's
//   e-mail is erased with it, and the one answer leaves after the commit.
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
} from '../../../shared/schemas/sites.js';
import type { SignalementCategorie } from '../../db/schema-public-sites.js';
import { createPublicSitesRepository, type PublicSitesRepository } from './public-sites.repository.js';
import { reportHandledMail, type ReportHandledMail } from './public-sites.mails.js';

const HOUR = 3600_000;

export const REPORT_LIMITS = {
  perAddress: { max: 5, windowMs: HOUR },
  perSite: { max: 50, windowMs: 24 * HOUR },
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
  siteWeb?: string;
}

export function createPublicSitesService(deps: AppDeps & { now?: () => number }, log: FastifyBaseLogger) {
  const repo = createPublicSitesRepository(deps.db);
  const perAddress = createDbLimiter(deps.db, { kind: 'signalement-address', ...REPORT_LIMITS.perAddress, now: deps.now });
  const perSite = createDbLimiter(deps.db, { kind: 'signalement-site', ...REPORT_LIMITS.perSite, now: deps.now });

  function inTransaction<T>(fn: (tx: PublicSitesRepository) => Promise<T>): Promise<T> {
    return deps.db.transaction().execute((trx) => fn(createPublicSitesRepository(trx)));
  }

  /** A report this user may handle, locked; unknown (404) when it is another site's. */
  async function lockFor(tx: PublicSitesRepository, user: CurrentUser, id: number) {
    const report = await tx.lockReport(id);
    if (!report) throw new NotFoundError(SIGNALEMENT_MESSAGES.notFound);
    if (!user.roles.includes('ROLE_ADMIN') && !(await tx.isReferent(user.id, report.siteId))) throw new NotFoundError(SIGNALEMENT_MESSAGES.notFound);
    if (report.statut !== 'nouveau') throw new ConflictError(SIGNALEMENT_MESSAGES.alreadyHandled);
    return report;
  }

  /** Sent after the commit; a failure is logged (without the address) and the handling stands. */
  async function answer(mail: ReportHandledMail) {
    try {
      await deps.mailer.send(reportHandledMail(mail));
    } catch (err) {
      log.warn({ err }, 'Réponse au signalement non envoyée');
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
      };
    },

    async report(code: string, input: ReportInput, ip: string): Promise<void> {
      await hitOr(perAddress, addressKey(ip), SIGNALEMENT_MESSAGES.perAddress);
      const site = await repo.publicSite(code.toUpperCase());
      if (!site) throw new NotFoundError(SIGNALEMENT_MESSAGES.siteNotFound);
      if (input.siteWeb) return;
      await hitOr(perSite, `site:${site.id}`, SIGNALEMENT_MESSAGES.perSite);
      await repo.insertReport({ siteId: site.id, categorie: input.categorie, texte: input.texte, email: input.email });
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
        })),
      };
    },

    /** A normal pending request on a cell of the report's site, linked to the report. */
    async transform(user: CurrentUser, id: number, input: SignalementTransform): Promise<number> {
      const done = await inTransaction(async (tx) => {
        const report = await lockFor(tx, user, id);
        const errors: FieldError[] = [];
        const action = await tx.actionLabel(input.actionProgrammee);
        if (!action) errors.push({ key: 'actionProgrammee', error: SIGNALEMENT_MESSAGES.actionUnknown });
        const cell = await tx.activeCell(report.siteId, input.composteur);
        if (!cell) errors.push({ key: 'composteur', error: SIGNALEMENT_MESSAGES.cellUnknown });
        if (action && cell && !(await tx.actionAllowedOn(input.actionProgrammee, cell.typeBac))) {
          errors.push({ key: 'actionProgrammee', error: SIGNALEMENT_MESSAGES.actionNotOnCell });
        }
        const today = await tx.parisToday();
        if (input.dateEcheance < today || input.dateEcheance > addDays(today, DUE_DAYS_MAX)) errors.push({ key: 'dateEcheance', error: SIGNALEMENT_MESSAGES.dateRange });
        if (errors.length > 0) throw new ValidationError(errors);
        const demandeId = await tx.insertRequest({ siteId: report.siteId, cellId: input.composteur, action: input.actionProgrammee, day: input.dateEcheance });
        await tx.markHandled(id, { statut: 'transforme', accountId: user.id, motif: null, demandeId });
        return { report, demandeId, action: action! };
      });
      const { report } = done;
      if (report.email) {
        await answer({
          appName: deps.config.APP_NAME,
          contact: deps.config.APP_CONTACT,
          to: report.email,
          site: report.nom || report.code,
          reportedAt: new Date(report.date),
          outcome: { kind: 'transforme', action: done.action, dueDay: input.dateEcheance },
        });
      }
      return done.demandeId;
    },

    async file(user: CurrentUser, id: number, motif: string): Promise<void> {
      const report = await inTransaction(async (tx) => {
        const r = await lockFor(tx, user, id);
        await tx.markHandled(id, { statut: 'classe', accountId: user.id, motif, demandeId: null });
        return r;
      });
      if (report.email) {
        await answer({
          appName: deps.config.APP_NAME,
          contact: deps.config.APP_CONTACT,
          to: report.email,
          site: report.nom || report.code,
          reportedAt: new Date(report.date),
          outcome: { kind: 'classe', motif },
        });
      }
    },

    openDataSites: () => repo.openDataSites(),
  };
}
