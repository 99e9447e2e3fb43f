// Photos of field entries: the upload answer, the reference a list row carries, and the query
// of the photo route. The upload itself is multipart (a clientId field and the image), read by
// the route; its field errors use the keys 'clientId' and 'photo'.
import { z } from 'zod';

export const PHOTO_MESSAGES = {
  added: 'Photo enregistrée',
  notFound: 'Photo introuvable',
  interventionNotFound: 'Intervention introuvable',
  notMultipart: 'Envoyez la photo dans un formulaire multipart (champs clientId et photo).',
  missingPhoto: 'Aucune photo reçue',
  clientIdInvalid: 'Identifiant de photo invalide',
  tooLarge: 'Photo trop volumineuse : 8 Mo au plus.',
  unsupported: 'Format non pris en charge : envoyez une photo JPEG, PNG ou WebP.',
  tooManyPixels: 'Image trop grande : 40 mégapixels au plus.',
  unreadable: 'Image illisible ou endommagée.',
  tooManyParts: 'Une seule photo par envoi, avec son identifiant.',
  conflict: 'Cette photo a déjà été envoyée pour une autre intervention.',
  sizeInvalid: 'Taille invalide : miniature ou complete',
} as const;

/** A photo as list rows carry it (interventions, requests): the id is enough to show it. */
export const photoRefSchema = z.object({ id: z.number() });
export type PhotoRef = z.infer<typeof photoRefSchema>;

export const photoSchema = z.object({
  id: z.number(),
  idIntervention: z.number(),
  /** Of the full image, in pixels, once re-encoded. */
  largeur: z.number(),
  hauteur: z.number(),
  /** Bytes of the full image and of the thumbnail. */
  taille: z.number(),
  tailleMiniature: z.number(),
});
export type Photo = z.infer<typeof photoSchema>;

export const photoAddResponseSchema = z.object({ status: z.literal('success'), message: z.string(), photo: photoSchema });
export type PhotoAddResponse = z.infer<typeof photoAddResponseSchema>;

export const PHOTO_SIZES = ['miniature', 'complete'] as const;
export type PhotoSize = (typeof PHOTO_SIZES)[number];

export const photoQuerySchema = z.strictObject(
  { taille: z.enum(PHOTO_SIZES, { error: PHOTO_MESSAGES.sizeInvalid }).default('complete') },
  { error: 'Paramètre inconnu' },
);
export type PhotoQuery = z.infer<typeof photoQuerySchema>;

export const photoClientIdSchema = z.uuid({ error: PHOTO_MESSAGES.clientIdInvalid });
