// Rows of households and permanences written straight into the database, for the tests of the
// figures built on them (statistics, yearly report). Only what those figures read is chosen by
// the caller: a household's status, confirmation time and size; an opening's start, its tally's
// kilos (weighed or estimated) and whether it was cancelled.
import type { Db } from '../../src/server/db/client.js';

export type FoyerStatut = 'en_attente' | 'confirme' | 'refuse';

/** A household of `site`, confirmed (or refused) at `traite`, of `personnes` people. */
export async function insertFoyer(db: Db, site: { id: number }, statut: FoyerStatut, traite: string | null, personnes: number) {
  await db.insertInto('foyer').values({ site_id: site.id, personnes, bioseau: true, statut, traite_le: traite === null ? null : new Date(traite) }).execute();
}

/** A two-hour opening of `site` starting at `debut`; with `kg`, its tally; `annulee`: cancelled the day before. */
export async function insertPermanence(db: Db, site: { id: number }, debut: string, opts: { kg?: number; estime?: boolean; annulee?: boolean } = {}) {
  const start = new Date(debut);
  await db
    .insertInto('permanence')
    .values({
      site_id: site.id,
      debut: start,
      fin: new Date(start.getTime() + 2 * 3600_000),
      annulee_le: opts.annulee ? new Date(start.getTime() - 86400_000) : null,
      motif_annulation: opts.annulee ? 'Travaux' : null,
      ...(opts.kg === undefined ? {} : { bilan_foyers: 6, bilan_seaux: 3, bilan_kg: opts.kg, bilan_kg_estime: opts.estime ?? false, bilan_le: start }),
    })
    .execute();
}
