// Rules of the intervention requests (docs/domain.md, intervention requests): only pending requests
// (3, 4) change; a selection covers one site and changes as a whole or not at all (a refusal
// names every item that stopped it, and the answer says how many changed); a cancellation keeps
// its one reason; a planned day lies between today and the due day (Europe/Paris), or, once the
// due day has passed, between today and today plus the delay the request was raised with. The named requests are locked for the whole change, so two people
// acting at once are served one after the other and the second is told what happened.
// Processing a request is the interventions add route's job (it links and closes it).
import type { CurrentUser } from '../../plugins/auth.js';
import type { Db } from '../../db/client.js';
import type { FieldError } from '../../../shared/errors.js';
import { displayValue } from '../../../shared/schemas/interventions.js';
import {
  PENDING_STATUTS,
  REQUEST_MESSAGES,
  overdueOutOfRangeMessage,
  planningWindow,
  ruleDuplicateMessage,
  ruleLoop,
  ruleLoopMessage,
  type CancelBody,
  type DemandeIntervention,
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
import type { PhotoRef } from '../../../shared/schemas/photos.js';
import { createPhotosRepository } from '../photos/public.js';
import { createRequestsRepository, type CardRecord, type LinkedRecord, type RequestsRepository } from './requests.repository.js';

const toIso = (d: Date | string) => new Date(d).toISOString();
const toIsoOrNull = (d: Date | string | null) => (d === null ? null : toIso(d));
const num = (v: string | number | null) => (v === null ? null : Number(v));

/** Photo ids by intervention (every intervention of the page is a key). */
type PhotosById = Map<number, PhotoRef[]>;
const photosOf = (photos: PhotosById, id: number | null) => (id === null ? [] : (photos.get(id) ?? []));

function linked(r: LinkedRecord, photos: PhotosById): LinkedIntervention {
  return {
    id: r.id,
    date: toIso(r.date),
    intervenant: r.intervenant,
    typeAction: r.typeAction,
    valeur: displayValue({ idAction: r.idAction, valeurNombre: num(r.valeurNombre), constante: r.constante, valeurTexte: r.valeurTexte, destinationNumeroBac: r.destinationNumeroBac }),
    observations: r.observations,
    photos: photosOf(photos, r.id),
  };
}

function card(r: CardRecord, signals: Map<number, LinkedRecord>, photos: PhotosById): DemandeIntervention {
  const latest = r.idDernierSignalement === null ? undefined : signals.get(r.idDernierSignalement);
  return {
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
    nbSignalements: r.nbSignalements,
    dernierSignalement: latest ? { ...linked(latest, photos), idAction: latest.idAction } : null,
    delaiJours: r.delaiJours,
    photos: [r.idInterventionDeclenchante, ...r.idSignalementsSuivants].flatMap((id) => photosOf(photos, id)),
  };
}

const isPending = (statut: number) => (PENDING_STATUTS as readonly number[]).includes(statut);

/**
 * The selected requests, locked. Every item that stops the change is named at once (`keyOf`
 * its index: the body's key of that item): 404 when one does not exist, else 409 when they span
 * two sites, else 409 when one is already processed or cancelled. Nothing is written then.
 */
async function lockSelection(tx: RequestsRepository, ids: number[], keyOf: (index: number) => string) {
  const rows = await tx.lockForChange(ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const errors: FieldError[] = [];
  ids.forEach((id, i) => {
    const row = byId.get(id);
    if (!row) errors.push({ key: keyOf(i), error: REQUEST_MESSAGES.notFound });
    else if (!isPending(row.idStatut)) errors.push({ key: keyOf(i), error: REQUEST_MESSAGES.closed });
  });
  if (rows.length !== ids.length) throw new NotFoundError(REQUEST_MESSAGES.notFound, errors);
  if (new Set(rows.map((r) => r.siteId)).size > 1) throw new ConflictError(REQUEST_MESSAGES.twoSites);
  if (errors.length > 0) throw new ConflictError(REQUEST_MESSAGES.closed, errors);
  return byId;
}

export function createRequestsService(db: Db) {
  const repo = createRequestsRepository(db);
  const photosRepo = createPhotosRepository(db);

  /**
   * The interventions a page shows (triggers, results, latest signals) by id, and the photo ids
   * of those and of every entry that called for a request of the page: two queries a page.
   */
  async function pageLinks(rows: CardRecord[], shown: (r: CardRecord) => (number | null)[]) {
    const wanted = [...new Set(rows.flatMap(shown).filter((id): id is number => id !== null))];
    const withPhotos = rows.flatMap((r) => [r.idInterventionDeclenchante, ...r.idSignalementsSuivants]).filter((id): id is number => id !== null);
    const [records, photos] = await Promise.all([repo.linkedInterventions(wanted), photosRepo.photoIdsByIntervention([...new Set([...wanted, ...withPhotos])])]);
    return { byId: new Map(records.map((i) => [i.id, i])), photos };
  }

  return {
    async pendingList(query: PendingListQuery): Promise<PendingList> {
      const { count, rows } = await repo.pendingList(query);
      const { byId, photos } = await pageLinks(rows, (r) => [r.idDernierSignalement]);
      return { count, demandesInterventions: rows.map((r) => card(r, byId, photos)) };
    },

    pendingSites(): Promise<PendingSite[]> {
      return repo.pendingSites();
    },

    async history(query: HistoryQuery): Promise<HistoryList> {
      const { count, rows } = await repo.history(query);
      const { byId, photos } = await pageLinks(rows, (r) => [r.idInterventionDeclenchante, r.idRealisee, r.idDernierSignalement]);
      return {
        count,
        demandesInterventions: rows.map((r) => {
          const declenchante = r.idInterventionDeclenchante === null ? undefined : byId.get(r.idInterventionDeclenchante);
          const realisee = r.idRealisee === null ? undefined : byId.get(r.idRealisee);
          return Object.assign(card(r, byId, photos), {
            dateCreation: toIso(r.dateCreation),
            dateAnnulation: toIsoOrNull(r.dateAnnulation),
            annuleePar: r.annuleePar,
            motifAnnulation: r.motifAnnulation,
            interventionDeclenchante: declenchante ? linked(declenchante, photos) : null,
            interventionRealisee: realisee ? linked(realisee, photos) : null,
          });
        }),
      };
    },

    /** All or none, with one reason for all; says how many were cancelled. */
    async cancel(user: CurrentUser, body: CancelBody): Promise<RequestSaveResponse> {
      const ids = body.demandesInterventions;
      const motif = body.motif?.trim() ? body.motif.trim() : null;
      const count = await repo.transaction(async (conn) => {
        const tx = createRequestsRepository(conn);
        await lockSelection(tx, ids, (i) => `demandesInterventions${i}`);
        return tx.cancel(ids, user.id, motif);
      });
      return { status: 'success', message: REQUEST_MESSAGES.cancelled, count };
    },

    /** All or none: every item is checked (each against its own window) before any is planned. */
    async schedule(user: CurrentUser, body: ScheduleBody): Promise<RequestSaveResponse> {
      await repo.transaction(async (conn) => {
        const tx = createRequestsRepository(conn);
        const locked = await lockSelection(
          tx,
          body.values.map((v) => v.demandeIntervention),
          (i) => `values${i}.demandeIntervention`,
        );
        // What the screen showed must still be the request: a due date or an action changed
        // since (a corrected trigger, a moved request) means the person planned something else.
        const changed = await Promise.all(body.values.map((v) => tx.differsFrom(v.demandeIntervention, v.dateEcheance ?? null, v.actionProgrammee ?? null)));
        if (changed.some(Boolean)) {
          throw new ConflictError(
            REQUEST_MESSAGES.changed,
            body.values.flatMap((_, i) => (changed[i] ? [{ key: `values${i}`, error: REQUEST_MESSAGES.changed }] : [])),
          );
        }
        // Days compare as 'YYYY-MM-DD' text, both sides in Paris time (computed by the database).
        const outside: FieldError[] = [];
        body.values.forEach((v, i) => {
          const d = locked.get(v.demandeIntervention)!;
          const window = planningWindow(d.dueDay, d.today, d.delaiJours);
          if (v.date < window.min || v.date > window.max) {
            outside.push({ key: `values${i}.date`, error: window.overdueDays > 0 ? overdueOutOfRangeMessage(window.max) : REQUEST_MESSAGES.dateOutOfRange });
          }
        });
        // 409 as before (the message of the first such item), each item's refusal under its date.
        if (outside.length > 0) throw new ConflictError(outside[0].error, outside);
        for (const v of body.values) await tx.schedule(v.demandeIntervention, v.date, user.id);
      });
      return { status: 'success', message: REQUEST_MESSAGES.scheduled, count: body.values.length };
    },

    // ---- Rules ----

    async rules(): Promise<DemandeRule[]> {
      return repo.rules();
    },

    async addRule(input: DemandeRuleInput) {
      const id = await repo.transaction(async (conn) => {
        const tx = createRequestsRepository(conn);
        await tx.lockRules();
        await checkRule(tx, input, null);
        return tx.addRule(input);
      });
      return { status: 'success' as const, message: REQUEST_MESSAGES.ruleAdded, id };
    },

    async updateRule(id: number, input: DemandeRuleInput) {
      await repo.transaction(async (conn) => {
        const tx = createRequestsRepository(conn);
        await tx.lockRules();
        if (!(await tx.findRule(id))) throw new NotFoundError(REQUEST_MESSAGES.ruleNotFound);
        await checkRule(tx, input, id);
        await tx.updateRule(id, input);
      });
      return { status: 'success' as const, message: REQUEST_MESSAGES.ruleUpdated, id };
    },

    async deleteRule(id: number) {
      if (!(await repo.deleteRule(id))) throw new NotFoundError(REQUEST_MESSAGES.ruleNotFound);
      return { status: 'success' as const, message: REQUEST_MESSAGES.ruleDeleted, id };
    },
  };
}

/**
 * A rule must make sense against the catalogue: actions that exist, a constant of
 * the triggering action, a scheduled action possible on a cell the trigger can be recorded on
 * (the request is raised on the trigger's cell). Those are field errors, all at once. Then it
 * must not repeat another rule (one rule per trigger and value: 409 naming it) nor make
 * requests call each other forever (its scheduled action leading back to its trigger through
 * the rules, itself included: a field error showing the chain). The rules table is locked by
 * the caller, so two administrators cannot add the same rule at once.
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
  if (errors.length > 0) throw new ValidationError(errors);
  const rules = await repo.rules();
  const same = rules.find((r) => r.id !== exceptId && r.idActionDeclenchante === input.actionDeclenchante && r.idConstante === input.constante);
  if (same) throw new ConflictError(ruleDuplicateMessage(same));
  const loop = ruleLoop(rules, input, exceptId);
  if (loop) {
    const label = new Map(actions.map((a) => [a.id, a.libelle]));
    throw new ValidationError([{ key: 'actionProgrammee', error: ruleLoopMessage(loop.map((id) => label.get(id) ?? String(id))) }]);
  }
}
