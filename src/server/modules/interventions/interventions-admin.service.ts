// Rules of the interventions administration (docs/domain.md, recording interventions and
// intervention requests): one intervention, its
// correction and its deletion (the lists are interventions-tables.service.ts). A correction or
// deletion locks the intervention row and the requests linked to it, runs in one transaction,
// and leaves a row in the audit trail.
import type { CurrentUser } from '../../plugins/auth.js';
import type { Db } from '../../db/client.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import type { FieldError } from '../../../shared/errors.js';
import {
  INTERVENTION_MESSAGES,
  isFutureDate,
  storedValueOf,
  validateBlocksAgainstCatalogue,
  ACTION_VALUE_KINDS,
} from '../../../shared/schemas/interventions.js';
import {
  INTERVENTION_ADMIN_MESSAGES,
  type InterventionDetail,
  type InterventionUpdate,
} from '../../../shared/schemas/interventions-admin.js';
import { createInterventionsAdminRepository } from './interventions-admin.repository.js';
import { toListRow } from './interventions-tables.service.js';
import { createFieldEntryRepository } from '../field-entry/public.js';
import { STATUT_REALISEE } from '../../../shared/domain.js';
import { REQUEST_MESSAGES } from '../../../shared/schemas/requests.js';
import { createPhotosRepository } from '../photos/public.js';
import { createRequestLifecycle, type SignalRow } from '../requests/public.js';

type LockedRow = NonNullable<Awaited<ReturnType<ReturnType<typeof createInterventionsAdminRepository>['lockIntervention']>>>;
type Link = Awaited<ReturnType<ReturnType<typeof createInterventionsAdminRepository>['linkedDemandes']>>[number];

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
const num = (v: number | string | null) => (v === null ? null : Number(v));

/**
 * Linked interventions are locked: the result of a request (it carries the request, or a
 * request names it as realised) and any entry that called for a request already processed.
 * An entry calling for a pending request (3, 4) is not: correcting or deleting it takes the
 * request along (request-lifecycle.service.ts). Nor is the trigger of a cancelled one (6):
 * cancelling closed that request, which only keeps the link for its history (the foreign key
 * sets it to null when the intervention goes).
 */
function isLocked(row: LockedRow, links: Link[], signals: SignalRow[]): boolean {
  if (row.demande_intervention_id !== null) return true;
  return links.some((d) => d.intervention_realisee_id === row.id) || signals.some((s) => s.statut === STATUT_REALISEE);
}

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
  // The site, its cells and the action catalogue, read as the field entry checks an entry.
  const base = createFieldEntryRepository(db);
  const photosRepo = createPhotosRepository(db);

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
    async get(id: number): Promise<InterventionDetail> {
      const row = await repo.findRow(id);
      if (!row) throw new NotFoundError(INTERVENTION_ADMIN_MESSAGES.notFound);
      const [site, cells, last, photos] = await Promise.all([
        base.findSite(row.idSite),
        base.siteCells(row.idSite),
        repo.lastChange(id),
        photosRepo.photoIdsByIntervention([id]),
      ]);
      const kind = ACTION_VALUE_KINDS[row.idAction] ?? 'none';
      const valeurSaisie =
        kind === 'constant' ? row.valeurConstante : kind === 'text' ? row.valeurTexte : kind === 'none' ? null : num(row.valeurNombre);
      return {
        intervention: { ...toListRow(row, photos.get(id) ?? []), valeurSaisie, bacDestination: row.bacDestination },
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
        const b = createFieldEntryRepository(conn);
        const lifecycle = createRequestLifecycle(conn);
        const cur = await r.lockIntervention(id);
        if (!cur) throw new NotFoundError(INTERVENTION_ADMIN_MESSAGES.notFound);
        // Cells before requests, the order every writer of requests follows.
        await lifecycle.lockCells([cur.site_composteur_id, body.values[0].composteur]);
        const links = await r.linkedDemandes(id);
        const signals = await lifecycle.signalsOf(id);
        if (isLocked(cur, links, signals)) throw new ConflictError(INTERVENTION_ADMIN_MESSAGES.lockedUpdate);

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

        // The requests follow what the rules read: the date (due date), the cell (the request
        // moves) and the action and value (cancelled when no rule asks for it any more, raised
        // when one now does).
        const followed = await lifecycle.afterEdit(
          user.id,
          id,
          cur.site_id,
          { cell: cur.site_composteur_id, date: new Date(cur.date), action: cur.type_action_id, constante: cur.valeur_constante },
          { cell: block.composteur, date, action: block.action, constante: v.valeurConstante },
          signals,
        );
        const demandesAnnulees = followed.annulees;
        const demandesCreees = followed.creees;

        await r.audit({
          intervention_id: id,
          action: 'update',
          agent_id: user.id,
          agent_nom: agentName(user),
          before: snapshot(cur),
          after: {
            ...snapshot((await r.lockIntervention(id))!),
            demandesAnnulees,
            demandesCreees,
            demandesDeplacees: followed.deplacees,
            demandesSignalees: followed.signalees,
          },
        });
        return { status: 'success' as const, message: INTERVENTION_ADMIN_MESSAGES.updated, demandesAnnulees, demandesCreees };
      });
    },

    /**
     * The intervention and the pending requests it alone called for: both or neither. A request
     * other entries still call for stays, under the earliest of them.
     */
    async delete(user: CurrentUser, id: number) {
      return base.transaction(async (conn) => {
        const r = createInterventionsAdminRepository(conn);
        const lifecycle = createRequestLifecycle(conn);
        const cur = await r.lockIntervention(id);
        if (!cur) throw new NotFoundError(INTERVENTION_ADMIN_MESSAGES.notFound);
        await lifecycle.lockCells([cur.site_composteur_id]);
        const links = await r.linkedDemandes(id);
        const signals = await lifecycle.signalsOf(id);
        if (isLocked(cur, links, signals)) throw new ConflictError(INTERVENTION_ADMIN_MESSAGES.lockedDelete);
        const followed = await lifecycle.beforeDelete(user.id, id, signals);
        await r.audit({
          intervention_id: id,
          action: 'delete',
          agent_id: user.id,
          agent_nom: agentName(user),
          before: { ...snapshot(cur), demandesSupprimees: followed.supprimees, demandesMaintenues: followed.maintenues },
          after: null,
        });
        await r.deleteIntervention(id);
        const message =
          followed.supprimees.length > 0
            ? INTERVENTION_ADMIN_MESSAGES.deletedWithDemande
            : followed.maintenues.length > 0
              ? REQUEST_MESSAGES.deletedKeptDemande
              : INTERVENTION_ADMIN_MESSAGES.deleted;
        return { status: 'success' as const, message, demandeSupprimee: followed.supprimees[0] ?? null };
      });
    },
  };
}
