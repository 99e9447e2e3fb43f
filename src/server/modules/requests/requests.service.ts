// Rules of the intervention requests (reference-data.md, issue 11): only pending requests
// (3, 4) change; a selection covers one site; a planned day lies between today and the due
// day (Europe/Paris). The named requests are locked for the whole change, so two people
// acting at once are served one after the other and the second is told what happened.
// Processing a request is the interventions add route's job (it links and closes it).
import type { CurrentUser } from '../../plugins/auth.js';
import type { Db } from '../../db/client.js';
import type { FieldError } from '../../../shared/errors.js';
import { displayValue } from '../../../shared/schemas/interventions.js';
import {
  PENDING_STATUTS,
  REQUEST_MESSAGES,
  type DemandeRule,
  type DemandeRuleInput,
  type HistoryList,
  type HistoryQuery,
  type LinkedIntervention,
  type PendingList,
  type PendingListQuery,
  type PendingSite,
  type RequestSaveResponse,
  type ScheduleBody,
} from '../../../shared/schemas/requests.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { createRequestsRepository, type LinkedRecord, type RequestsRepository } from './requests.repository.js';

const toIso = (d: Date | string) => new Date(d).toISOString();
const toIsoOrNull = (d: Date | string | null) => (d === null ? null : toIso(d));
const num = (v: string | number | null) => (v === null ? null : Number(v));

function linked(r: LinkedRecord): LinkedIntervention {
  return {
    id: r.id,
    date: toIso(r.date),
    intervenant: r.intervenant,
    typeAction: r.typeAction,
    valeur: displayValue({ idAction: r.idAction, valeurNombre: num(r.valeurNombre), constante: r.constante, valeurTexte: r.valeurTexte, destinationNumeroBac: r.destinationNumeroBac }),
    observations: r.observations,
  };
}

const isPending = (statut: number) => (PENDING_STATUTS as readonly number[]).includes(statut);

/**
 * The selected requests, locked: 404 when one does not exist, 409 when they span two sites or
 * one is already processed or cancelled.
 */
async function lockSelection(tx: RequestsRepository, ids: number[]) {
  const rows = await tx.lockForChange(ids);
  if (rows.length !== ids.length) throw new NotFoundError(REQUEST_MESSAGES.notFound);
  if (new Set(rows.map((r) => r.siteId)).size > 1) throw new ConflictError(REQUEST_MESSAGES.twoSites);
  if (rows.some((r) => !isPending(r.idStatut))) throw new ConflictError(REQUEST_MESSAGES.closed);
  return new Map(rows.map((r) => [r.id, r]));
}

export function createRequestsService(db: Db) {
  const repo = createRequestsRepository(db);

  return {
    async pendingList(query: PendingListQuery): Promise<PendingList> {
      const { count, rows } = await repo.pendingList(query);
      return {
        count,
        demandesInterventions: rows.map((r) => ({
          id: r.id,
          idStatut: r.idStatut,
          statut: r.statut,
          dateEcheance: toIso(r.dateEcheance),
          dateProgrammee: toIsoOrNull(r.dateProgrammee),
          programmationReferent: r.programmationKind === 'user' ? r.programmation : null,
          programmationAgent: r.programmationKind === 'agent' ? r.programmation : null,
          idAction: r.idAction,
          actionDeclenchante: r.actionDeclenchante,
          referent: r.intervenantKind === 'user' ? r.intervenant : null,
          agent: r.intervenantKind === 'agent' ? r.intervenant : null,
          idActionProgrammee: r.idActionProgrammee,
          actionProgrammee: r.actionProgrammee,
          idSite: r.idSite,
          site: r.site,
          adresse: r.adresse,
          value:
            r.idAction === null
              ? ''
              : displayValue({ idAction: r.idAction, valeurNombre: num(r.valeurNombre), constante: r.constante, valeurTexte: r.valeurTexte, destinationNumeroBac: r.destinationNumeroBac }),
          idBac: r.idBac,
          numero: r.numero,
          destinationIdBac: r.destinationIdBac,
          idInterventionDeclenchante: r.idInterventionDeclenchante,
          dateDeclenchement: toIsoOrNull(r.dateDeclenchement),
        })),
      };
    },

    pendingSites(): Promise<PendingSite[]> {
      return repo.pendingSites();
    },

    async history(query: HistoryQuery): Promise<HistoryList> {
      const { count, rows } = await repo.history(query);
      const ids = rows.flatMap((r) => [r.idDeclenchante, r.idRealisee]).filter((id): id is number => id !== null);
      const byId = new Map((await repo.linkedInterventions([...new Set(ids)])).map((i) => [i.id, linked(i)]));
      return {
        count,
        demandesInterventions: rows.map((r) => ({
          id: r.id,
          dateCreation: toIso(r.dateCreation),
          idActionProgrammee: r.idActionProgrammee,
          actionProgrammee: r.actionProgrammee,
          dateEcheance: toIso(r.dateEcheance),
          idStatut: r.idStatut,
          statut: r.statut,
          dateAnnulation: toIsoOrNull(r.dateAnnulation),
          annuleePar: r.annuleePar,
          dateProgrammee: toIsoOrNull(r.dateProgrammee),
          idSite: r.idSite,
          site: r.site,
          numero: r.numero,
          interventionDeclenchante: r.idDeclenchante === null ? null : (byId.get(r.idDeclenchante) ?? null),
          interventionRealisee: r.idRealisee === null ? null : (byId.get(r.idRealisee) ?? null),
        })),
      };
    },

    async cancel(user: CurrentUser, ids: number[]): Promise<RequestSaveResponse> {
      await repo.transaction(async (conn) => {
        const tx = createRequestsRepository(conn);
        await lockSelection(tx, ids);
        await tx.cancel(ids, user.id);
      });
      return { status: 'success', message: REQUEST_MESSAGES.cancelled };
    },

    async schedule(user: CurrentUser, body: ScheduleBody): Promise<RequestSaveResponse> {
      await repo.transaction(async (conn) => {
        const tx = createRequestsRepository(conn);
        const locked = await lockSelection(
          tx,
          body.values.map((v) => v.demandeIntervention),
        );
        // Days compare as 'YYYY-MM-DD' text, both sides in Paris time (computed by the database).
        const outOfRange = body.values.some((v) => {
          const d = locked.get(v.demandeIntervention)!;
          return v.date < d.today || v.date > d.dueDay;
        });
        if (outOfRange) throw new ConflictError(REQUEST_MESSAGES.dateOutOfRange);
        for (const v of body.values) await tx.schedule(v.demandeIntervention, v.date, user.id);
      });
      return { status: 'success', message: REQUEST_MESSAGES.scheduled };
    },

    // ---- Rules ----

    async rules(): Promise<DemandeRule[]> {
      return repo.rules();
    },

    async addRule(input: DemandeRuleInput) {
      await checkRule(repo, input, null);
      const id = await repo.addRule(input);
      return { status: 'success' as const, message: REQUEST_MESSAGES.ruleAdded, id };
    },

    async updateRule(id: number, input: DemandeRuleInput) {
      if (!(await repo.findRule(id))) throw new NotFoundError(REQUEST_MESSAGES.ruleNotFound);
      await checkRule(repo, input, id);
      if (!(await repo.updateRule(id, input))) throw new NotFoundError(REQUEST_MESSAGES.ruleNotFound);
      return { status: 'success' as const, message: REQUEST_MESSAGES.ruleUpdated, id };
    },

    async deleteRule(id: number) {
      if (!(await repo.deleteRule(id))) throw new NotFoundError(REQUEST_MESSAGES.ruleNotFound);
      return { status: 'success' as const, message: REQUEST_MESSAGES.ruleDeleted, id };
    },
  };
}

/**
 * A rule must make sense against the catalogue (issue 11): actions that exist, a constant of
 * the triggering action, a scheduled action possible on a cell the trigger can be recorded on
 * (the request is raised on the trigger's cell). Every error at once.
 */
async function checkRule(repo: RequestsRepository, input: DemandeRuleInput, exceptId: number | null) {
  const { actions, cells, constantes } = await repo.catalogue();
  const errors: FieldError[] = [];
  const known = new Set(actions.map((a) => a.id));
  const triggerOk = known.has(input.actionDeclenchante);
  const programmeeOk = known.has(input.actionProgrammee);
  if (!triggerOk) errors.push({ key: 'actionDeclenchante', error: REQUEST_MESSAGES.actionUnknown });
  if (!programmeeOk) errors.push({ key: 'actionProgrammee', error: REQUEST_MESSAGES.actionUnknown });
  if (triggerOk && input.constante !== null && !constantes.some((c) => c.idAction === input.actionDeclenchante && c.idConstante === input.constante)) {
    errors.push({ key: 'constante', error: REQUEST_MESSAGES.constanteNotOfAction });
  }
  if (triggerOk && programmeeOk) {
    const triggerCells = new Set(cells.filter((c) => c.action === input.actionDeclenchante).map((c) => c.typeBac));
    if (!cells.some((c) => c.action === input.actionProgrammee && triggerCells.has(c.typeBac))) {
      errors.push({ key: 'actionProgrammee', error: REQUEST_MESSAGES.programmeeNotAllowed });
    }
  }
  if (errors.length === 0 && (await repo.ruleExists(input, exceptId))) errors.push({ key: 'actionProgrammee', error: REQUEST_MESSAGES.ruleExists });
  if (errors.length > 0) throw new ValidationError(errors);
}
