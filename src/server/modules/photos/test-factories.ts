// Photos written straight to the database for the tests of the lists that carry photo ids
// (interventions administration, requests board and history). A list never reads the image
// bytes, so a few random bytes stand in for the JPEG; photos.test.ts sends real images.
import crypto from 'node:crypto';
import type { Db } from '../../db/client.js';
import { createPhotosRepository } from './photos.repository.js';

/** Stores a photo of the intervention as sent by its author; returns the photo's id. */
export async function storeTestPhoto(db: Db, interventionId: number): Promise<number> {
  const { intervenant_id } = await db.selectFrom('intervention').where('id', '=', interventionId).select('intervenant_id').executeTakeFirstOrThrow();
  const bytes = new Uint8Array(crypto.randomBytes(16));
  const row = await createPhotosRepository(db).insert({
    client_id: crypto.randomUUID(),
    intervention_id: interventionId,
    envoye_par_id: intervenant_id,
    largeur: 4,
    hauteur: 3,
    taille: bytes.length,
    taille_miniature: bytes.length,
    empreinte: crypto.createHash('sha256').update(bytes).digest('hex'),
    image: bytes,
    miniature: bytes,
  });
  if (!row) throw new Error('photo not stored');
  return row.id;
}
