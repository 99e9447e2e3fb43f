// Rules of the interventions administration (spec.md "Interventions administration", section
// 4, reference-data.md "Which interventions raise a request"): the lists, one intervention,
// its correction and its deletion. A correction or deletion locks the intervention row and
// the requests linked to it, runs in one transaction, and leaves a row in the audit trail.
import type { CurrentUser } from '../../plugins/auth.js';
import type { Db } from '../../db/client.js';
import { pageOf } from '../../db/list.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import type { FieldError } from '../../../shared/errors.js';
import {
  INTERVENTION_MESSAGES,
  displayValue,
  isFutureDate,
  storedValueOf,
  validateBlocksAgainstCatalogue,
  ACTION_VALUE_KINDS,
} from '../../../shared/schemas/interventions.js';
import {
  INTERVENTION_ADMIN_MESSAGES,
  type InterventionAdminList,
  type InterventionAdminListQuery,
  type InterventionAdminRow,
  type InterventionDetail,
  type InterventionUpdate,
} from '../../../shared/schemas/interventions-admin.js';
import { createInterventionsAdminRepository, type InterventionListRecord, type ListFilter } from './interventions-admin.repository.js';
import { STATUT_EN_ATTENTE, STATUT_PROGRAMMEE, STATUT_REALISEE, createInterventionsRepository, type NewDemande } from './interventions.repository.js';

const DAY_MS = 24 * 3600 * 1000;

type LockedRow = NonNullable<Awaited<ReturnType<ReturnType<typeof createInterventionsAdminRepository>['lockIntervention']>>>;
type Link = Awaited<ReturnType<ReturnType<typeof createInterventionsAdminRepository>['linkedDemandes']>>[number];

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
const num = (v: number | string | null) => (v === null ? null : Number(v));

export function toAdminRow(r: InterventionListRecord): InterventionAdminRow {
  return {
    id: r.id,
    date: iso(r.date)!,
    intervenant: r.intervenant,
    typeBac: r.typeBac,
    idTypeBac: r.idTypeBac,
    numeroBac: r.numeroBac,
    idSiteComposteur: r.idSiteComposteur,
    typeAction: r.typeAction,
    idAction: r.idAction,
    valeur: displayValue({
      idAction: r.idAction,
      valeurNombre: num(r.valeurNombre),
      constante: r.constante,
      valeurTexte: r.valeurTexte,
      destinationNumeroBac: r.destinationNumeroBac,
    }),
    observations: r.observations,
    site: r.site,
    idSite: r.idSite,
    modificationAgent: r.modificationAgent,
    modifiedAt: iso(r.modifiedAt),
    locked: r.locked,
    pendingDemande: r.pendingDemande,
  };
}

/** The filter of the list query: `id` (the sites screen's dialog) or the Site filter restricts to one site. */
export function listFilterOf(query: Pick<InterventionAdminListQuery, 'id' | 'filter'>): ListFilter {
  return { siteId: query.id ?? query.filter.site, action: query.filter.action, date: query.filter.date };
}

/**
 * Linked interventions are locked (reference-data.md): the result of a request (it carries
 * the request, or a request names it as realised) and the trigger of a request already
 * processed. The trigger of a pending request (3, 4) is not, nor the trigger of a cancelled
 * one (6): cancelling closed that request, which only keeps the link for its history (the
 * foreign key sets it to null when the intervention goes).
 */
function isLocked(row: LockedRow, links: Link[]): boolean {
  if (row.demande_intervention_id !== null) return true;
  return links.some((d) => d.intervention_realisee_id === row.id || (d.intervention_declenchante_id === row.id && d.statut_id === STATUT_REALISEE));
}

const isPending = (statut: number) => statut === STATUT_EN_ATTENTE || statut === STATUT_PROGRAMMEE;

/** What the audit trail keeps of a row. */
function snapshot(row: LockedRow) {
  return {
    date: iso(row.date),
    site: row.site_id,
    composteur: row.site_composteur_id,
    action: row.type_action_id,
    valeurNombre: num(row.valeur_nombre),
    valeurConstante: row.valeur_constante,
    valeurTexte: row.valeur_texte,
    bacDestination: row.bac_destination_id,
    observations: row.observations,
    intervenant: row.intervenant_id,
  };
}

export function createInterventionsAdminService(db: Db) {
  const repo = createInterventionsAdminRepository(db);
  const base = createInterventionsRepository(db);

  // The catalogue only changes with a migration; read before a transaction opens (on PGlite a
  // query outside the transaction would wait for it to end).
  let catalogue: Promise<{ typeActions: Awaited<ReturnType<typeof base.actionCatalogue>>; constantes: Awaited<ReturnType<typeof base.allConstantes>> }> | null =
    null;
  function loadCatalogue() {
    catalogue ??= Promise.all([base.actionCatalogue(), base.allConstantes()]).then(
      ([typeActions, constantes]) => ({ typeActions, constantes }),
      (e: unknown) => {
        catalogue = null;
        throw e;
      },
    );
    return catalogue;
  }

  const agentName = (user: CurrentUser) => `${user.nom} ${user.prenom ?? ''}`.trim();

  return {
    async list(query: InterventionAdminListQuery): Promise<InterventionAdminList> {
      if (query.id !== undefined && !(await base.findSite(query.id))) throw new NotFoundError(INTERVENTION_MESSAGES.siteNotFound);
      const { count, countCapped, rows } = await repo.list(listFilterOf(query), query.sort, pageOf(query));
      return { count, countCapped, interventions: rows.map(toAdminRow) };
    },

    exportBatches(query: InterventionAdminListQuery) {
      return repo.batches(listFilterOf(query), query.sort);
    },

    async get(id: number): Promise<InterventionDetail> {
      const row = await repo.findRow(id);
      if (!row) throw new NotFoundError(INTERVENTION_ADMIN_MESSAGES.notFound);
      const [site, cells, last] = await Promise.all([base.findSite(row.idSite), base.siteCells(row.idSite), repo.lastChange(id)]);
      const kind = ACTION_VALUE_KINDS[row.idAction] ?? 'none';
      const valeurSaisie =
        kind === 'constant' ? row.valeurConstante : kind === 'text' ? row.valeurTexte : kind === 'none' ? null : num(row.valeurNombre);
      return {
        intervention: { ...toAdminRow(row), valeurSaisie, bacDestination: row.bacDestination },
        site: {
          id: site!.id,
          code: site!.code,
          nom: site!.nom,
          adresse: site!.adresse,
          ville: site!.ville,
          siteComposteurs: cells.map((c) => ({ id: c.id, numero: c.numero, typeBac: c.typeBac, libelleTypeBac: c.libelleTypeBac, actif: c.actif })),
        },
        lastChange: last ? { agent: last.agent_nom, at: iso(last.at)!, action: last.action } : null,
      };
    },

    async update(user: CurrentUser, id: number, body: InterventionUpdate) {
      const { typeActions, constantes } = await loadCatalogue();
      return base.transaction(async (conn) => {
        const r = createInterventionsAdminRepository(conn);
        const b = createInterventionsRepository(conn);
        const cur = await r.lockIntervention(id);
        if (!cur) throw new NotFoundError(INTERVENTION_ADMIN_MESSAGES.notFound);
        const links = await r.linkedDemandes(id);
        if (isLocked(cur, links)) throw new ConflictError(INTERVENTION_ADMIN_MESSAGES.lockedUpdate);

        // The cells of the intervention's own site; the cell and destination it already uses
        // stay valid even if deactivated since, so that correcting a typo is always possible.
        const cells = (await b.siteCells(cur.site_id)).map((c) =>
          c.id === cur.site_composteur_id || c.id === cur.bac_destination_id ? { ...c, actif: true } : c,
        );
        const errors: FieldError[] = [];
        if (isFutureDate(body.date)) errors.push({ key: 'date', error: INTERVENTION_MESSAGES.dateFuture });
        errors.push(...validateBlocksAgainstCatalogue(body.values, { typeActions, constantes, cells }));
        if (errors.length > 0) throw new ValidationError(errors, INTERVENTION_ADMIN_MESSAGES.required);

        const block = body.values[0];
        const kind = typeActions.find((a) => a.id === block.action)!.valueKind;
        const v = storedValueOf(block.valeur, kind);
        const date = new Date(body.date);
        await r.updateIntervention(id, {
          date,
          site_composteur_id: block.composteur,
          type_action_id: block.action,
          valeur_nombre: v.valeurNombre,
          valeur_constante: v.valeurConstante,
          valeur_texte: v.valeurTexte,
          bac_destination_id: block.bacDestination,
          observations: block.observations,
          modification_agent_id: user.id,
        });

        // The rules again, when what they read changed (reference-data.md): the pending
        // requests the new value no longer calls for are cancelled, and the ones it now calls
        // for are raised. A request the old value already called for is never raised twice,
        // even if someone cancelled it.
        const demandesAnnulees: number[] = [];
        const demandesCreees: number[] = [];
        const changed = cur.type_action_id !== block.action || cur.valeur_constante !== v.valeurConstante;
        const pending = links.filter((d) => d.intervention_declenchante_id === id && isPending(d.statut_id));
        if (changed) {
          const rules = await b.rulesFor([...new Set([cur.type_action_id, block.action])]);
          const calledFor = (action: number, constante: number | null) =>
            rules.filter((rule) => rule.action === action && (rule.constante === null || rule.constante === constante));
          const now = calledFor(block.action, v.valeurConstante);
          const before = calledFor(cur.type_action_id, cur.valeur_constante);
          for (const d of pending) if (!now.some((rule) => rule.programmee === d.type_action_programmee_id)) demandesAnnulees.push(d.id);
          await r.cancelDemandes(demandesAnnulees, user.id);
          const raise: NewDemande[] = now
            .filter((rule) => !before.some((o) => o.programmee === rule.programmee) && !pending.some((d) => d.type_action_programmee_id === rule.programmee))
            .map((rule) => ({
              site_id: cur.site_id,
              site_composteur_id: block.composteur,
              type_action_programmee_id: rule.programmee,
              intervention_declenchante_id: id,
              date_echeance: new Date(date.getTime() + rule.delai * DAY_MS),
            }));
          demandesCreees.push(...(await b.insertDemandes(raise)));
        }

        await r.audit({
          intervention_id: id,
          action: 'update',
          agent_id: user.id,
          agent_nom: agentName(user),
          before: snapshot(cur),
          after: { ...snapshot((await r.lockIntervention(id))!), demandesAnnulees, demandesCreees },
        });
        return { status: 'success' as const, message: INTERVENTION_ADMIN_MESSAGES.updated, demandesAnnulees, demandesCreees };
      });
    },

    /** The intervention and, when it raised a request still pending, that request: both or neither. */
    async delete(user: CurrentUser, id: number) {
      return base.transaction(async (conn) => {
        const r = createInterventionsAdminRepository(conn);
        const cur = await r.lockIntervention(id);
        if (!cur) throw new NotFoundError(INTERVENTION_ADMIN_MESSAGES.notFound);
        const links = await r.linkedDemandes(id);
        if (isLocked(cur, links)) throw new ConflictError(INTERVENTION_ADMIN_MESSAGES.lockedDelete);
        const pending = links.filter((d) => d.intervention_declenchante_id === id && isPending(d.statut_id));
        await r.audit({
          intervention_id: id,
          action: 'delete',
          agent_id: user.id,
          agent_nom: agentName(user),
          before: { ...snapshot(cur), demandesSupprimees: pending.map((d) => d.id) },
          after: null,
        });
        for (const d of pending) await r.deleteDemande(d.id);
        await r.deleteIntervention(id);
        return {
          status: 'success' as const,
          message: pending.length > 0 ? INTERVENTION_ADMIN_MESSAGES.deletedWithDemande : INTERVENTION_ADMIN_MESSAGES.deleted,
          demandeSupprimee: pending[0]?.id ?? null,
        };
      });
    },
  };
}
