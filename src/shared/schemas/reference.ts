// Reference lists (the API's session and reference routes).
import { z } from 'zod';
import { ACTION_VALUE_KIND_LIST } from '../domain.js';

export const appInfoSchema = z.object({ appName: z.string(), contact: z.string() });
export type AppInfo = z.infer<typeof appInfoSchema>;

export const idLibelleSchema = z.object({ id: z.number(), libelle: z.string() });
export type IdLibelle = z.infer<typeof idLibelleSchema>;

export const typeActionSchema = z.object({
  id: z.number(),
  libelle: z.string(),
  /** Whether the action carries a value. */
  valeur: z.boolean(),
  valueKind: z.enum(ACTION_VALUE_KIND_LIST),
  /** Cell types (typeBac ids) on which the action is allowed. */
  typeBac: z.array(z.number()),
  aConstantes: z.boolean(),
  /** The constants its value is chosen from (levels, states), in id order; empty for the others. */
  constantes: z.array(z.object({ idConstante: z.number(), constante: z.string() })),
});
export type TypeAction = z.infer<typeof typeActionSchema>;

export const typeActionConstanteSchema = z.object({ idConstante: z.number(), constante: z.string(), idAction: z.number() });
export type TypeActionConstante = z.infer<typeof typeActionConstanteSchema>;

export const anneeSchema = z.object({ annee: z.number() });
export const villeSchema = z.object({ nom: z.string(), cp: z.string(), codeInsee: z.string() });
export type Ville = z.infer<typeof villeSchema>;
export const rueSchema = z.object({ nom: z.string() });
export const typeSiteSchema = z.object({ id: z.number(), libelle: z.string(), code: z.string() });
export type TypeSite = z.infer<typeof typeSiteSchema>;
export const composterTypeSchema = z.object({ id: z.number(), volume: z.number(), precisions: z.string() });
export type ComposterType = z.infer<typeof composterTypeSchema>;

/** Litres are whole numbers from 0 to 10 000 (docs/domain.md, actions and their values). */
export const LITRES_MAX = 10_000;
export const TEMPERATURE_MIN = -20;
export const TEMPERATURE_MAX = 90;
