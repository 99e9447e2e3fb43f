// Reference lists of the API (session and reference routes), in the shapes of
// shared/schemas/reference.ts.
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';

export function createReferenceRepository(db: Db) {
  return {
    typeUsers: () => db.selectFrom('type_user').select(['id', 'libelle']).orderBy('id').execute(),
    async typeActions() {
      const actions = await db.selectFrom('type_action').selectAll().orderBy('id').execute();
      const bacs = await db.selectFrom('type_action_type_bac').selectAll().orderBy('type_bac_id').execute();
      const constants = await db.selectFrom('type_action_constante').selectAll().orderBy('id_action').orderBy('id_constante').execute();
      return actions.map((a) => {
        const constantes = constants.filter((c) => c.id_action === a.id).map((c) => ({ idConstante: c.id_constante, constante: c.constante }));
        return {
          id: a.id,
          libelle: a.libelle,
          valeur: a.valeur,
          valueKind: a.value_kind,
          typeBac: bacs.filter((b) => b.type_action_id === a.id).map((b) => b.type_bac_id),
          aConstantes: constantes.length > 0,
          constantes,
        };
      });
    },
    async typeActionConstantes() {
      const rows = await db.selectFrom('type_action_constante').selectAll().orderBy('id_action').orderBy('id_constante').execute();
      return rows.map((r) => ({ idConstante: r.id_constante, constante: r.constante, idAction: r.id_action }));
    },
    /**
     * Paris years that have interventions, newest first; the current year when there are
     * none. Walks the month index of the network statistics summary (migration 009) one year at a
     * time: a handful of index probes whatever the size of the log.
     */
    async annees() {
      const rows = await sql<{ annee: number }>`
        WITH RECURSIVE y(mois) AS (
          (SELECT mois FROM intervention_stats_mois_reseau ORDER BY mois DESC LIMIT 1)
          UNION ALL
          SELECT (SELECT s.mois FROM intervention_stats_mois_reseau s
                   WHERE s.mois < date_trunc('year', y.mois)::date ORDER BY s.mois DESC LIMIT 1)
            FROM y WHERE y.mois IS NOT NULL
        )
        SELECT extract(year FROM mois)::int AS annee FROM y WHERE mois IS NOT NULL`.execute(db);
      const years = rows.rows.map((r) => r.annee);
      if (years.length === 0) years.push(Number(new Intl.DateTimeFormat('en', { timeZone: 'Europe/Paris', year: 'numeric' }).format(new Date())));
      return years.map((annee) => ({ annee }));
    },
    statuts: (ids: number[]) => db.selectFrom('statut').select(['id', 'libelle']).where('id', 'in', ids).orderBy('id').execute(),
    async villes() {
      const rows = await db.selectFrom('ville').select(['nom', 'cp', 'code_insee']).orderBy('nom').orderBy('cp').execute();
      return rows.map((r) => ({ nom: r.nom, cp: r.cp, codeInsee: r.code_insee }));
    },
    /** Streets of a city given by name or INSEE code. */
    rues: (city: string) =>
      db
        .selectFrom('rue')
        .select('rue.nom')
        .where('rue.code_insee', 'in', db.selectFrom('ville').select('code_insee').where((eb) => eb.or([eb('ville.nom', '=', city), eb('ville.code_insee', '=', city)])))
        .orderBy('rue.nom')
        .execute(),
    typeSites: () => db.selectFrom('type_site').select(['id', 'libelle', 'code']).orderBy('libelle').execute(),
    typeComposteurs: () => db.selectFrom('type_composteur').select(['id', 'volume', 'precisions']).orderBy('volume').orderBy('id').execute(),
    typeBacs: () => db.selectFrom('type_bac').select(['id', 'libelle']).orderBy('id').execute(),
  };
}
