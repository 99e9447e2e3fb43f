// Sites, cells, referents, requests and interventions written straight to the database for the
// field entry's tests (and every other test that needs a site), so they do not depend on the
// sites API.
import crypto from 'node:crypto';
import type { Db } from '../../db/client.js';

let seq = 0;

export async function createSite(db: Db, opts: { statut?: number; nom?: string | null; referents?: number[] } = {}) {
  seq++;
  const type = await db.selectFrom('type_site').where('code', '=', 'QUA').select('id').executeTakeFirstOrThrow();
  const composteur = await db.selectFrom('type_composteur').select('id').orderBy('id').executeTakeFirstOrThrow();
  const site = await db
    .insertInto('site')
    .values({
      code: `T${crypto.randomBytes(3).toString('hex').toUpperCase()}${seq}`,
      nom: opts.nom === undefined ? `Site test ${seq}` : opts.nom,
      ville: 'Brest',
      cp: '29200',
      code_insee: '29019',
      adresse: `${seq} rue de Siam`,
      numero: String(seq),
      type_site_id: type.id,
      statut_id: opts.statut ?? 1,
    })
    .returning(['id', 'code'])
    .executeTakeFirstOrThrow();
  for (const accountId of opts.referents ?? []) await db.insertInto('site_referent').values({ site_id: site.id, account_id: accountId }).execute();
  return { ...site, typeComposteurId: composteur.id };
}

/** A cell (site_composteur) of the given cell type: 1 Apport, 2 Broyat, 3 Maturation. */
export async function createCell(db: Db, siteId: number, typeBac: 1 | 2 | 3, numero: number, opts: { actif?: boolean } = {}) {
  const composteur = await db.selectFrom('type_composteur').select('id').orderBy('id').executeTakeFirstOrThrow();
  const row = await db
    .insertInto('site_composteur')
    .values({ site_id: siteId, type_composteur_id: composteur.id, type_bac_id: typeBac, numero, actif: opts.actif ?? true })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A site with one cell of each type (apport n°1, broyat n°2, maturation n°3) and an inactive apport n°4. */
export async function createEquippedSite(db: Db, opts: Parameters<typeof createSite>[1] = {}) {
  const site = await createSite(db, opts);
  return {
    ...site,
    apport: await createCell(db, site.id, 1, 1),
    broyat: await createCell(db, site.id, 2, 2),
    maturation: await createCell(db, site.id, 3, 3),
    inactive: await createCell(db, site.id, 1, 4, { actif: false }),
  };
}

/** A pending request (status 3) on a cell, as the rules would have raised it. */
export async function createPendingDemande(db: Db, siteId: number, cellId: number, actionProgrammee: number, statut = 3) {
  const row = await db
    .insertInto('demande_intervention')
    .values({
      site_id: siteId,
      site_composteur_id: cellId,
      statut_id: statut,
      type_action_programmee_id: actionProgrammee,
      date_echeance: new Date(Date.now() + 7 * 24 * 3600 * 1000),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** An intervention written straight to the table (no rule runs): value columns as stored. */
export async function createIntervention(
  db: Db,
  row: { site: number; cell: number; action: number; date: Date; by: number; nombre?: number; constante?: number; texte?: string; observations?: string },
) {
  const inserted = await db
    .insertInto('intervention')
    .values({
      date: row.date,
      site_id: row.site,
      site_composteur_id: row.cell,
      type_action_id: row.action,
      valeur_nombre: row.nombre ?? null,
      valeur_constante: row.constante ?? null,
      valeur_texte: row.texte ?? null,
      observations: row.observations ?? null,
      intervenant_id: row.by,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}
