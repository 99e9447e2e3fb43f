// The display rows of the interventions tables, read by id once a page's walk has found them
// (intervention-list.ts), and one intervention for the edit dialog. Lookups by id whose plan
// never depends on the page, so planned once per connection (plan-once.ts): planning the
// twenty-odd label and flag subqueries took about as long as running them, on every page.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/client.js';
import { intArray } from '../../db/list.js';
import { planOnce } from '../../db/plan-once.js';
import { STATUT_REALISEE } from '../../../shared/domain.js';

/** A row of any interventions table, with everything its columns need. */
export interface InterventionListRecord {
  id: number;
  date: Date;
  idAction: number;
  typeAction: string;
  actionValeur: boolean;
  typeBac: string;
  idTypeBac: number;
  numeroBac: number;
  idSiteComposteur: number;
  valeurNombre: number | string | null;
  valeurConstante: number | null;
  constante: string | null;
  valeurTexte: string | null;
  bacDestination: number | null;
  destinationNumeroBac: number | null;
  observations: string | null;
  intervenant: string;
  idSite: number;
  site: string;
  siteNom: string | null;
  modificationAgent: string | null;
  modifiedAt: Date | null;
  /** The request this intervention processed. */
  demandeIntervention: number | null;
  /** Status of the latest request this intervention raised. */
  idStatut: number | null;
  /** The intervention that processed the request this one raised. */
  interventionRealisee: number | null;
  locked: boolean;
  pendingDemande: boolean;
}

/**
 * The display columns of intervention i. Labels are scalar subqueries rather than joins: each is
 * planned alone, where a join of eight tables cost more to plan (tens of ms) than to run for
 * twenty rows. The flags say whether the table may offer to edit or delete the row (the rules of
 * interventions-admin.service.ts). A request is called for by its first trigger and by the later
 * entries that signalled it again (demande_signalement): two indexed lookups (an OR of the two
 * would read every request for each row).
 */
function displayColumns() {
  const calledFor = sql`(SELECT d.id, d.statut_id, d.intervention_realisee_id FROM demande_intervention d WHERE d.intervention_declenchante_id = i.id
    UNION ALL SELECT d.id, d.statut_id, d.intervention_realisee_id FROM demande_signalement ds JOIN demande_intervention d ON d.id = ds.demande_intervention_id
      WHERE ds.intervention_id = i.id)`;
  const person = (alias: string, id: string) => sql.raw(`(SELECT trim(${alias}.nom || ' ' || coalesce(${alias}.prenom, '')) FROM account ${alias} WHERE ${alias}.id = i.${id})`);
  return sql`i.type_action_id AS "idAction", (SELECT ta.libelle FROM type_action ta WHERE ta.id = i.type_action_id) AS "typeAction",
      (SELECT ta.valeur FROM type_action ta WHERE ta.id = i.type_action_id) AS "actionValeur",
      (SELECT tb.libelle FROM type_bac tb WHERE tb.id = i.type_bac_id) AS "typeBac", i.type_bac_id AS "idTypeBac",
      i.numero_bac AS "numeroBac", i.site_composteur_id AS "idSiteComposteur",
      i.valeur_nombre AS "valeurNombre", i.valeur_constante AS "valeurConstante",
      (SELECT tac.constante FROM type_action_constante tac WHERE tac.id_action = i.type_action_id AND tac.id_constante = i.valeur_constante) AS constante,
      i.valeur_texte AS "valeurTexte", i.bac_destination_id AS "bacDestination",
      (SELECT dest.numero FROM site_composteur dest WHERE dest.id = i.bac_destination_id) AS "destinationNumeroBac", i.observations,
      ${person('a', 'intervenant_id')} AS intervenant,
      i.site_id AS "idSite", (SELECT coalesce(nullif(s.nom, ''), s.code) FROM site s WHERE s.id = i.site_id) AS site,
      (SELECT s.nom FROM site s WHERE s.id = i.site_id) AS "siteNom",
      ${person('m', 'modification_agent_id')} AS "modificationAgent",
      i.modified_at AS "modifiedAt", i.demande_intervention_id AS "demandeIntervention",
      (i.demande_intervention_id IS NOT NULL
        OR EXISTS (SELECT 1 FROM demande_intervention d WHERE d.intervention_realisee_id = i.id)
        OR EXISTS (SELECT 1 FROM demande_intervention d WHERE d.intervention_declenchante_id = i.id AND d.statut_id = ${STATUT_REALISEE})
        OR EXISTS (SELECT 1 FROM demande_signalement ds JOIN demande_intervention d ON d.id = ds.demande_intervention_id
                    WHERE ds.intervention_id = i.id AND d.statut_id = ${STATUT_REALISEE})) AS locked,
      EXISTS (SELECT 1 FROM demande_intervention d WHERE d.intervention_declenchante_id = i.id AND d.statut_id IN (3, 4)) AS "pendingDemande",
      (SELECT c.statut_id FROM ${calledFor} c ORDER BY c.id DESC LIMIT 1) AS "idStatut",
      (SELECT c.intervention_realisee_id FROM ${calledFor} c WHERE c.intervention_realisee_id IS NOT NULL ORDER BY c.id DESC LIMIT 1) AS "interventionRealisee"`;
}

/** The display rows of these interventions, in the order of `ids`. */
export function rowsByIdsQuery(ids: number[]) {
  return planOnce(sql<InterventionListRecord>`SELECT i.id, i.date, ${displayColumns()}
    FROM unnest(${intArray(ids)}) WITH ORDINALITY AS p(id, n)
    JOIN intervention i ON i.id = p.id
    ORDER BY p.n`);
}

/** A page: its walk first (the ids, a statement planned for the filter at hand), then its rows by id. A row deleted in between is left out. */
export async function readPage(db: Db, keys: RawBuilder<{ id: number }>): Promise<InterventionListRecord[]> {
  const walked = (await keys.execute(db)).rows;
  if (walked.length === 0) return [];
  const byId = new Map((await rowsByIdsQuery(walked.map((k) => k.id)).execute(db)).rows.map((r) => [r.id, r]));
  return walked.flatMap((k) => byId.get(k.id) ?? []);
}
