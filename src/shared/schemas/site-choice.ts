// Sites offered to someone about to record an intervention (site choice screen, loader).
import { z } from 'zod';

export const activeSiteSchema = z.object({
  id: z.number(),
  code: z.string(),
  nom: z.string().nullable(),
  adresse: z.string(),
  numero: z.string().nullable(),
  ville: z.string(),
  cp: z.string(),
});
export type ActiveSite = z.infer<typeof activeSiteSchema>;
