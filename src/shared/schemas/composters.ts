// Composter types catalogue (the 'Composteurs' screen, its form rules and its API routes).
import { z } from 'zod';
import { decimalIntSchema, plainString } from './common.js';
import { listQuerySchema } from './list.js';

export const PRECISIONS_MAX = 50;
export const VOLUME_MIN = 0;
/** Upper bound so the volume fits the integer column; far above any real composter. */
export const VOLUME_MAX = 100_000;

export const COMPOSTER_MESSAGES = {
  volumeRequired: 'Le volume est obligatoire',
  volumeNumber: 'Le volume doit être un nombre entier de litres',
  volumeMin: `Le volume doit être supérieur ou égal à ${VOLUME_MIN}`,
  volumeMax: `Le volume doit être inférieur ou égal à ${VOLUME_MAX}`,
  precisionsRequired: 'Les précisions sont obligatoires',
  precisionsMax: `${PRECISIONS_MAX} caractères au plus`,
  /** The contract's wording: the same toast as after adding a site. */
  added: 'Site ajouté',
} as const;

export const composterListQuerySchema = listQuerySchema({
  sortFields: ['volume', 'precisions'],
  defaultSort: 'volume',
  filters: {
    volume: decimalIntSchema({ min: 0, max: VOLUME_MAX, message: 'Volume invalide' }),
  },
});

export const composterRowSchema = z.object({ id: z.number(), volume: z.number(), precisions: z.string() });
export type ComposterRow = z.infer<typeof composterRowSchema>;
export const composterListSchema = z.object({ count: z.number(), composteurs: z.array(composterRowSchema) });

export const composterAddSchema = z.object({
  volume: z
    .number({ error: (issue) => (issue.input === undefined || issue.input === null || issue.input === '' ? COMPOSTER_MESSAGES.volumeRequired : COMPOSTER_MESSAGES.volumeNumber) })
    .int({ message: COMPOSTER_MESSAGES.volumeNumber })
    .min(VOLUME_MIN, { message: COMPOSTER_MESSAGES.volumeMin })
    .max(VOLUME_MAX, { message: COMPOSTER_MESSAGES.volumeMax }),
  precisions: plainString({ message: COMPOSTER_MESSAGES.precisionsRequired })
    .trim()
    .min(1, { message: COMPOSTER_MESSAGES.precisionsRequired })
    .max(PRECISIONS_MAX, { message: COMPOSTER_MESSAGES.precisionsMax }),
});
export type ComposterAdd = z.infer<typeof composterAddSchema>;

export const composterAddResponseSchema = z.object({ status: z.literal('success'), message: z.string(), id: z.number() });
