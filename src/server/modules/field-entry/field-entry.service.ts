// Rules of the field entry (the phone's site sheet): who may record on a site, the site's
// sheet data, the catalogue checks, and the idempotent write of a submission. A phone may send one entry many times (lost answers,
// retries after a reconnection, two tabs): the clientId's primary key decides which post
// writes, and every other post answers the stored result.
import crypto from 'node:crypto';
import type { CurrentUser } from '../../plugins/auth.js';
import type { Db } from '../../db/client.js';
import { can } from '../../../shared/permissions.js';
import type { FieldError } from '../../../shared/errors.js';
import {
  INTERVENTION_MESSAGES,
  demandeMismatchMessage,
  interventionAddResponseSchema,
  storedValueOf,
  submissionDateError,
  validateBlocksAgainstCatalogue,
  type InterventionAddResponse,
  type InterventionSubmission,
  type SiteInfos,
} from '../../../shared/schemas/interventions.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { createFieldEntryRepository, type FieldEntryRepository, type NewIntervention, type SiteFound } from './field-entry.repository.js';
import { SITE_STATUT, STATUT_ANNULEE, STATUT_REALISEE } from '../../../shared/domain.js';
import { createRequestLifecycle, isPendingStatut, type RequestLifecycle } from '../requests/public.js';

type TypeActionCatalogue = Awaited<ReturnType<FieldEntryRepository['actionCatalogue']>>;
type ConstanteCatalogue = Awaited<ReturnType<FieldEntryRepository['allConstantes']>>;

/** Hash of what the entry says, so a replay can be told from a different entry under the same id. */
export function payloadHash(s: InterventionSubmission): string {
  const canonical = JSON.stringify({
    site: s.site,
    date: new Date(s.date).toISOString(),
    values: s.values.map((b) => [b.composteur, b.action, b.valeur, b.bacDestination, b.observations, b.demandeIntervention]),
  });
  return crypto.createHash('sha256').update(canonical).digest('hex');
}

export function createFieldEntryService(db: Db) {
  const repo = createFieldEntryRepository(db);

  // Action types and constants only change with a migration, so one read per process is
  // enough; a busy replay then spends its queries on writes. Read before a transaction opens:
  // on PGlite a query outside the transaction would wait for it to end.
  let catalogue: Promise<{ typeActions: TypeActionCatalogue; constantes: ConstanteCatalogue }> | null = null;
  function loadCatalogue() {
    catalogue ??= Promise.all([repo.actionCatalogue(), repo.allConstantes()]).then(
      ([typeActions, constantes]) => ({ typeActions, constantes }),
      (e: unknown) => {
        catalogue = null;
        throw e;
      },
    );
    return catalogue;
  }

  /** 404 for a site that does not exist or is not active, 403 for a referent of other sites. */
  function mayRecordOn(user: CurrentUser, site: SiteFound | undefined): SiteFound {
    if (!site || site.idStatut !== SITE_STATUT.actif) throw new NotFoundError(INTERVENTION_MESSAGES.siteNotFound);
    if (!can(user.roles, 'site.chooseAll') && !site.isReferent) throw new ForbiddenError();
    return site;
  }

  function replayAnswer(stored: { account_id: number; payload_hash: string; result: unknown }, user: CurrentUser, hash: string): InterventionAddResponse {
    if (stored.account_id !== user.id || stored.payload_hash !== hash) throw new ConflictError(INTERVENTION_MESSAGES.conflict);
    const result = typeof stored.result === 'string' ? (JSON.parse(stored.result) as unknown) : stored.result;
    return interventionAddResponseSchema.parse(result);
  }

  /**
   * Requests named by the blocks: only someone who works the requests board may close one, and
   * only with the block the request asks for (its site, its cell or the destination processing
   * is prefilled with, its scheduled action), each request once per entry. Locks them until the
   * transaction ends, so that two phones processing one request are served one after the
   * other: the second finds it closed. Those are field errors on values{i}.demandeIntervention;
   * a request of this site already processed or cancelled is `closed` (a conflict with what
   * someone else did, not a mistake the entry can correct).
   */
  async function checkProcessedDemandes(lifecycle: RequestLifecycle, user: CurrentUser, submission: InterventionSubmission) {
    const ids = submission.values.map((b) => b.demandeIntervention).filter((id): id is number => id !== null);
    const errors: FieldError[] = [];
    let closed = false;
    if (ids.length === 0) return { errors, closed };
    const mayProcess = can(user.roles, 'request.manage');
    const locked = new Map((await lifecycle.lockProcessed([...new Set(ids)])).map((d) => [d.id, d]));
    const seen = new Set<number>();
    submission.values.forEach((b, i) => {
      if (b.demandeIntervention === null) return;
      const key = `values${i}.demandeIntervention`;
      const d = locked.get(b.demandeIntervention);
      const ofSite = d !== undefined && d.siteId === submission.site;
      const twice = seen.has(b.demandeIntervention);
      seen.add(b.demandeIntervention);
      if (!mayProcess) return errors.push({ key, error: INTERVENTION_MESSAGES.demandeForbidden });
      if (ofSite && (d.statut === STATUT_REALISEE || d.statut === STATUT_ANNULEE)) return (closed = true);
      if (!ofSite || !isPendingStatut(d.statut) || twice) return errors.push({ key, error: INTERVENTION_MESSAGES.demandeInvalid });
      const cellOk = b.composteur === d.cell || (d.destination !== null && b.composteur === d.destination);
      if (!cellOk || b.action !== d.programmee) errors.push({ key, error: demandeMismatchMessage(d.actionProgrammee, d.destinationNumero ?? d.numero) });
    });
    return { errors, closed };
  }

  return {
    async siteInfos(user: CurrentUser, siteId: number): Promise<SiteInfos> {
      const site = mayRecordOn(user, await repo.findSite(siteId, user.id));
      const cells = await repo.siteCells(siteId);
      return {
        id: site.id,
        code: site.code,
        nom: site.nom,
        numero: site.numero,
        adresse: site.adresse,
        cp: site.cp,
        ville: site.ville,
        typeSite: site.typeSite,
        siteComposteurs: cells.filter((c) => c.actif),
      };
    },

    /**
     * Everything happens in one transaction whose first statement claims the clientId: a replay
     * (or a concurrent post, which waits for the first to end) finds it taken and answers the
     * stored result; a refused entry rolls back and leaves the id free for the corrected one.
     * `onReplay` is called when the answer is that stored result.
     */
    async add(user: CurrentUser, submission: InterventionSubmission, onReplay?: () => void): Promise<InterventionAddResponse> {
      const hash = payloadHash(submission);
      const { typeActions, constantes } = await loadCatalogue();
      return repo.transaction(async (conn) => {
        const tx = createFieldEntryRepository(conn);
        const claim = await tx.claimAndRead(
          { client_id: submission.clientId, account_id: user.id, payload_hash: hash },
          submission.site,
          submission.values.map((b) => b.action),
        );
        if (!claim.claimed) {
          const stored = await tx.findSubmission(submission.clientId);
          const answer = replayAnswer(stored!, user, hash);
          onReplay?.();
          return answer;
        }

        mayRecordOn(user, claim.site);
        const lifecycle = createRequestLifecycle(conn);
        const cells = claim.cells;
        // The cells whose requests this entry may change, locked before those requests (the
        // order every writer of requests follows): cells of blocks that process a request or
        // whose action some rule answers.
        const rules = claim.rules;
        const ruled = new Set(rules.map((r) => r.action));
        const siteCellIds = new Set(cells.map((c) => c.id));
        await lifecycle.lockCells(
          submission.values.filter((b) => (b.demandeIntervention !== null || ruled.has(b.action)) && siteCellIds.has(b.composteur)).map((b) => b.composteur),
        );
        // Every error at once (the date, each block, each request), so a phone replaying an
        // old entry shows all there is to correct; only then a request someone else closed.
        const dateError = submissionDateError(submission.date);
        const processed = await checkProcessedDemandes(lifecycle, user, submission);
        const errors = [
          ...(dateError ? [dateError] : []),
          ...validateBlocksAgainstCatalogue(submission.values, { typeActions, constantes, cells }),
          ...processed.errors,
        ];
        if (errors.length > 0) throw new ValidationError(errors);
        if (processed.closed) throw new ConflictError(INTERVENTION_MESSAGES.demandeClosed);

        const kinds = new Map(typeActions.map((a) => [a.id, a.valueKind]));
        const date = new Date(submission.date);
        const rows: NewIntervention[] = submission.values.map((b) => {
          const v = storedValueOf(b.valeur, kinds.get(b.action) ?? 'none');
          return {
            client_id: submission.clientId,
            date,
            site_id: submission.site,
            site_composteur_id: b.composteur,
            type_action_id: b.action,
            valeur_nombre: v.valeurNombre,
            valeur_constante: v.valeurConstante,
            valeur_texte: v.valeurTexte,
            bac_destination_id: b.bacDestination,
            observations: b.observations,
            intervenant_id: user.id,
            demande_intervention_id: b.demandeIntervention,
          };
        });
        const answer: InterventionAddResponse = { status: 'success', message: INTERVENTION_MESSAGES.added, interventions: [], demandes: [] };
        const interventionIds = await tx.insertInterventions(rows, submission.clientId, answer);

        // Close the processed requests first: a block of the same entry that calls for the
        // same work again then raises a new request rather than joining the one just done.
        for (const [i, b] of submission.values.entries()) {
          if (b.demandeIntervention !== null) await tx.markDemandeDone(b.demandeIntervention, interventionIds[i]);
        }
        const followed = await lifecycle.afterEntries(
          rows.map((row, i) => ({
            interventionId: interventionIds[i],
            site: row.site_id,
            cell: row.site_composteur_id,
            date,
            action: row.type_action_id,
            constante: row.valeur_constante,
          })),
          rules,
        );
        const result: InterventionAddResponse = { ...answer, interventions: interventionIds, demandes: followed.creees };
        // The answer stored with the rows names no request: it is written again when some were raised.
        if (result.demandes.length > 0) await tx.setSubmissionResult(submission.clientId, result);
        return result;
      });
    },
  };
}
