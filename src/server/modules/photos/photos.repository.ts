// SQL of the photos of field entries (table intervention_photo, migration 017). The image
// bytes are selected only by readImage: every other query reads the small columns, so a list
// or a rights check never drags the photos along. On the embedded database (PGlite) images
// travel as base64 text that the database decodes and encodes itself: PGlite turns a bytea
// parameter into hex text in JavaScript (360 ms for 300 KB, against 32 ms as base64; 68 ms
// against 14 ms to read one back). node-postgres sends and reads bytea efficiently as it is,
// and base64 would only add garbage there (a server taking 100 photos grew by 26 MB with
// bytea, by up to 120 MB with base64).
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';
import { intArray } from '../../db/list.js';
import { planOnce } from '../../db/plan-once.js';
import type { Row } from '../../db/schema.js';

export type NewPhoto = Omit<Row<'intervention_photo'>, 'id' | 'envoye_par_id' | 'created_at'> & { envoye_par_id: number };

/** What the rights on an intervention's photos depend on, for one account. */
export interface InterventionAccess {
  id: number;
  siteId: number;
  siteStatut: number;
  intervenantId: number;
  /** The account is a referent of the intervention's site. */
  isReferent: boolean;
  /** Trigger (first or later) or result of an intervention request: what the requests board and history show. */
  linkedToRequest: boolean;
}

const PHOTO_COLUMNS = [
  'id',
  'client_id as clientId',
  'intervention_id as interventionId',
  'envoye_par_id as envoyeParId',
  'largeur',
  'hauteur',
  'taille',
  'taille_miniature as tailleMiniature',
  'empreinte',
] as const;
const P_COLUMNS = PHOTO_COLUMNS.map((c) => `p.${c}` as const);

export function createPhotosRepository(db: Db) {
  // Which database this is, asked once.
  let embedded: Promise<boolean> | null = null;
  const isEmbedded = () =>
    (embedded ??= sql<{ pglite: boolean }>`SELECT version() LIKE '%PGlite%' AS pglite`.execute(db).then(
      (r) => r.rows[0].pglite,
      (e: unknown) => {
        embedded = null;
        throw e;
      },
    ));

  /** The access facts of intervention `i` for `accountId`, as select expressions. */
  const accessFacts = (accountId: number) =>
    [
      'i.site_id as siteId',
      's.statut_id as siteStatut',
      'i.intervenant_id as intervenantId',
      sql<boolean>`EXISTS (SELECT 1 FROM site_referent sr WHERE sr.site_id = i.site_id AND sr.account_id = ${accountId})`.as('isReferent'),
      // Its result, its first trigger, or a later entry that called for it again (demande_signalement).
      sql<boolean>`(i.demande_intervention_id IS NOT NULL
        OR EXISTS (SELECT 1 FROM demande_intervention d WHERE d.intervention_declenchante_id = i.id)
        OR EXISTS (SELECT 1 FROM demande_signalement ds WHERE ds.intervention_id = i.id))`.as('linkedToRequest'),
    ] as const;

  return {
    interventionAccess(interventionId: number, accountId: number): Promise<InterventionAccess | undefined> {
      return db
        .selectFrom('intervention as i')
        .innerJoin('site as s', 's.id', 'i.site_id')
        .where('i.id', '=', interventionId)
        .select(['i.id', ...accessFacts(accountId)])
        .executeTakeFirst();
    },

    /** A photo's description (no bytes) with the access facts of its intervention. */
    photoForRead(photoId: number, accountId: number) {
      return db
        .selectFrom('intervention_photo as p')
        .innerJoin('intervention as i', 'i.id', 'p.intervention_id')
        .innerJoin('site as s', 's.id', 'i.site_id')
        .where('p.id', '=', photoId)
        .select([...P_COLUMNS, ...accessFacts(accountId)])
        .executeTakeFirst();
    },

    findByClientId(clientId: string) {
      return db.selectFrom('intervention_photo').where('client_id', '=', clientId).select(PHOTO_COLUMNS).executeTakeFirst();
    },

    /** Inserts the photo; undefined when its client id is already stored (a concurrent resend). */
    async insert(row: NewPhoto) {
      const base64 = (b: Uint8Array) => sql<Uint8Array>`decode(${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64')}, 'base64')`;
      const values = (await isEmbedded()) ? { ...row, image: base64(row.image), miniature: base64(row.miniature) } : row;
      return db
        .insertInto('intervention_photo')
        .values(values)
        .onConflict((oc) => oc.column('client_id').doNothing())
        .returning(PHOTO_COLUMNS)
        .executeTakeFirst();
    },

    /** The stored bytes of one size of a photo. */
    async readImage(photoId: number, size: 'miniature' | 'complete'): Promise<Buffer | undefined> {
      const column = size === 'miniature' ? 'miniature' : 'image';
      const photo = db.selectFrom('intervention_photo').where('id', '=', photoId);
      if (await isEmbedded()) {
        const row = await photo.select(sql<string>`encode(${sql.ref(column)}, 'base64')`.as('base64')).executeTakeFirst();
        // The database breaks base64 lines every 76 characters; Node skips the line breaks.
        return row ? Buffer.from(row.base64, 'base64') : undefined;
      }
      const row = await photo.select(`${column} as bytes`).executeTakeFirst();
      const bytes = (row as { bytes: Uint8Array } | undefined)?.bytes;
      return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : undefined;
    },

    /**
     * The photos of each intervention, oldest first: what a list row carries as `photos: [{id}]`.
     * Every id asked for is in the map, with an empty list when it has none.
     */
    async photoIdsByIntervention(interventionIds: readonly number[]): Promise<Map<number, { id: number }[]>> {
      const out = new Map<number, { id: number }[]>(interventionIds.map((id) => [id, []]));
      if (interventionIds.length === 0) return out;
      // One text for any page, planned once per connection (plan-once.ts).
      const { rows } = await planOnce(sql<{ id: number; intervention_id: number }>`SELECT id, intervention_id FROM intervention_photo
          WHERE intervention_id = ANY(${intArray([...new Set(interventionIds)])}) ORDER BY intervention_id, id`).execute(db);
      for (const r of rows) out.get(r.intervention_id)?.push({ id: r.id });
      return out;
    },
  };
}

export type PhotosRepository = ReturnType<typeof createPhotosRepository>;
export type StoredPhoto = NonNullable<Awaited<ReturnType<PhotosRepository['findByClientId']>>>;
