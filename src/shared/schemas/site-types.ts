// Site types catalogue (the 'Types de Site' screen and its API routes). A site's code is its
// type code followed by a sequence number, so the code is short, upper-case and unique.
import { z } from 'zod';
import { plainString } from './common.js';
import { listQuerySchema } from './list.js';

export const SITE_TYPE_CODE_MAX = 3;
export const SITE_TYPE_LIBELLE_MAX = 100;

export const SITE_TYPE_MESSAGES = {
  libelleRequired: 'Le libellé est obligatoire',
  libelleMax: `${SITE_TYPE_LIBELLE_MAX} caractères au plus`,
  codeRequired: 'Le code est obligatoire',
  codeFormat: `Le code contient de 1 à ${SITE_TYPE_CODE_MAX} lettres (A à Z)`,
  codeTaken: 'Ce code est déjà utilisé par un autre type de site',
  added: 'Enregistrement effectué',
} as const;

/** Forced while typing: upper case, letters only, at most 3. */
export function formatSiteTypeCode(v: string): string {
  return v
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z]/g, '')
    .slice(0, SITE_TYPE_CODE_MAX);
}

export const siteTypeListQuerySchema = listQuerySchema({
  sortFields: ['libelle', 'code'],
  defaultSort: 'libelle',
  filters: { libelle: plainString().trim().max(SITE_TYPE_LIBELLE_MAX) },
});

export const siteTypeRowSchema = z.object({ id: z.number(), libelle: z.string(), code: z.string() });
export type SiteTypeRow = z.infer<typeof siteTypeRowSchema>;
export const siteTypeListSchema = z.object({ count: z.number(), typeSites: z.array(siteTypeRowSchema) });

export const siteTypeAddSchema = z.object({
  libelle: plainString({ message: SITE_TYPE_MESSAGES.libelleRequired })
    .trim()
    .min(1, { message: SITE_TYPE_MESSAGES.libelleRequired })
    .max(SITE_TYPE_LIBELLE_MAX, { message: SITE_TYPE_MESSAGES.libelleMax }),
  code: plainString({ message: SITE_TYPE_MESSAGES.codeRequired })
    .trim()
    .min(1, { message: SITE_TYPE_MESSAGES.codeRequired })
    .transform((v) => v.toUpperCase())
    .pipe(z.string().regex(/^[A-Z]{1,3}$/, { message: SITE_TYPE_MESSAGES.codeFormat })),
});
export type SiteTypeAdd = z.infer<typeof siteTypeAddSchema>;

export const siteTypeAddResponseSchema = z.object({ status: z.literal('success'), message: z.string(), id: z.number() });
