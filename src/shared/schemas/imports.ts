// Moving in: the three kinds of file an administrator imports (sites, users, interventions),
// their columns, the query of an import and its report. The screen and the server read the
// same columns and messages from here.
import { z } from 'zod';

export const IMPORT_KINDS = ['sites', 'utilisateurs', 'interventions'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export const IMPORT_KIND_LABELS: Record<ImportKind, string> = { sites: 'Sites', utilisateurs: 'Utilisateurs', interventions: 'Interventions' };

/** Largest file and number of lines accepted. */
export const IMPORT_MAX_BYTES = 10 * 1024 * 1024;
export const IMPORT_MAX_LINES = 200_000;

/** The columns of each kind, in the template's order; `required` ones must be in the header. */
export interface ImportColumn {
  key: string;
  header: string;
  required?: boolean;
}

export const SITE_COLUMNS = [
  { key: 'code', header: 'Code', required: true },
  { key: 'nom', header: 'Nom', required: true },
  { key: 'numero', header: 'Numéro' },
  { key: 'adresse', header: 'Adresse', required: true },
  { key: 'complement', header: 'Précisions' },
  { key: 'cp', header: 'CP' },
  { key: 'ville', header: 'Ville', required: true },
  { key: 'type', header: 'Type', required: true },
  { key: 'statut', header: 'Statut' },
  { key: 'cadena', header: 'Cadena' },
  { key: 'dateConvention', header: 'Date Convention' },
  { key: 'dateImplantation', header: 'Date Implantation' },
  { key: 'dateInauguration', header: 'Date inauguration' },
  { key: 'latitude', header: 'Latitude' },
  { key: 'longitude', header: 'Longitude' },
  { key: 'observations', header: 'Observations' },
  { key: 'referents', header: 'Référent(s)' },
  { key: 'cellules', header: 'Cellules' },
] as const satisfies readonly ImportColumn[];

export const USER_COLUMNS = [
  { key: 'type', header: 'Type', required: true },
  { key: 'nom', header: 'Nom', required: true },
  { key: 'prenom', header: 'Prénom' },
  { key: 'email', header: 'E-mail', required: true },
  { key: 'tel', header: 'Téléphone' },
  { key: 'organisme', header: 'Organisme' },
  { key: 'sites', header: 'Sites' },
] as const satisfies readonly ImportColumn[];

/** The interventions CSV export's own columns (interventions/intervention-export.ts), 'Modifiée par' read but not imported. */
export const INTERVENTION_COLUMNS = [
  { key: 'date', header: 'Date', required: true },
  { key: 'site', header: 'Site', required: true },
  { key: 'intervenant', header: 'Intervenant' },
  { key: 'typeBac', header: 'Type Cellule', required: true },
  { key: 'numeroBac', header: 'N° Cellule', required: true },
  { key: 'action', header: 'Action', required: true },
  { key: 'valeur', header: 'Valeur' },
  { key: 'unite', header: 'Unité' },
  { key: 'observations', header: 'Observations' },
  { key: 'modifieePar', header: 'Modifiée par' },
] as const satisfies readonly ImportColumn[];

export const IMPORT_COLUMNS: Record<ImportKind, readonly ImportColumn[]> = { sites: SITE_COLUMNS, utilisateurs: USER_COLUMNS, interventions: INTERVENTION_COLUMNS };

/** Cells in the 'Cellules' column of the sites file: 'n°1 Apport (400 L - Bois)', separated by ' | ', 'Désactivé - ' before a retired one. */
export const CELL_SEPARATOR = ' | ';
export const CELL_INACTIVE_PREFIX = 'Désactivé - ';

export const importKindParamsSchema = z.object({ kind: z.enum(IMPORT_KINDS, { message: "Type d'import inconnu" }) });

export const importTemplateQuerySchema = z.object({ donnees: z.enum(['0', '1'], { message: 'Valeur invalide' }).optional() });

/** A progress id chosen by the screen, to poll while its import runs. */
const suiviSchema = z.string().regex(/^[A-Za-z0-9-]{8,64}$/, { message: 'Identifiant de suivi invalide' });

export const importQuerySchema = z.object({
  mode: z.enum(['essai', 'import'], { message: 'Mode invalide' }).default('essai'),
  envoyerInvitation: z.enum(['0', '1'], { message: 'Valeur invalide' }).optional(),
  suivi: suiviSchema.optional(),
});
export type ImportQuery = z.infer<typeof importQuerySchema>;

export const importProgressParamsSchema = z.object({ suivi: suiviSchema });

export const importLineErrorSchema = z.object({ ligne: z.number(), colonne: z.string(), message: z.string() });
export type ImportLineError = z.infer<typeof importLineErrorSchema>;

export const importReportSchema = z.object({
  status: z.literal('success'),
  mode: z.enum(['essai', 'import']),
  /** Lines of data read (the header aside). */
  lignes: z.number(),
  crees: z.number(),
  modifies: z.number(),
  inchanges: z.number(),
  /** Every error of the file; any error means nothing was (or would be) written. */
  erreurs: z.array(importLineErrorSchema),
  /** What does not stop the import but deserves a look (a referent not imported yet...). */
  avertissements: z.array(importLineErrorSchema),
  /** Invitations sent (users imported with envoyerInvitation=1). */
  invitations: z.number(),
});
export type ImportReport = z.infer<typeof importReportSchema>;

export const importProgressSchema = z.object({
  phase: z.enum(['lecture', 'verification', 'ecriture', 'termine']),
  fait: z.number(),
  total: z.number(),
});
export type ImportProgress = z.infer<typeof importProgressSchema>;

export const IMPORT_MESSAGES = {
  noFile: 'Joignez un fichier (champ « fichier »).',
  notMultipart: 'Envoyez le fichier en multipart/form-data, champ « fichier ».',
  tooLarge: `Fichier trop volumineux : ${IMPORT_MAX_BYTES / 1024 / 1024} Mo au plus.`,
  tooManyLines: `Trop de lignes : ${IMPORT_MAX_LINES.toLocaleString('fr-FR')} au plus par fichier.`,
  empty: 'Le fichier est vide.',
  binary: "Fichier illisible : ce n'est ni un CSV ni un classeur Excel (.xlsx).",
  xlsxBroken: 'Classeur Excel illisible (fichier tronqué ou abîmé ?).',
  noSheet: 'Le classeur ne contient aucune feuille.',
  csvBroken: (ligne: number) => `Fichier CSV tronqué ou mal formé à partir de la ligne ${ligne} (guillemet non refermé ?).`,
  missingColumns: (cols: string[]) =>
    `Colonnes manquantes : ${cols.join(', ')}. La première ligne (de la première feuille, pour un classeur) doit porter les en-têtes du modèle.`,
  noLines: 'Le fichier ne contient aucune ligne de données.',
  hasErrors: 'Le fichier contient des erreurs : rien n’a été importé.',
  required: 'Champ obligatoire',
  tooLong: (max: number) => `${max} caractères au plus`,
  controlChars: 'Caractères non autorisés',
  dateInvalid: 'Date invalide : jj/mm/aaaa, jj/mm/aaaa hh:mm ou AAAA-MM-JJ',
  dateFuture: 'La date ne peut pas être dans le futur',
  dateTooOld: 'Date antérieure à 2000',
  numberInvalid: 'Nombre invalide',
  codeInvalid: 'Code invalide : lettres, chiffres, « - » ou « _ », 20 caractères au plus',
  duplicateCode: (ligne: number) => `Code déjà présent à la ligne ${ligne} du fichier`,
  duplicateEmail: (ligne: number) => `Adresse déjà présente à la ligne ${ligne} du fichier`,
  villeUnknown: 'Ville inconnue sur ce territoire (vérifiez le nom et le code postal)',
  typeSiteUnknown: (known: string) => `Type de site inconnu (types : ${known})`,
  statutUnknown: 'Statut inconnu : Actif ou Demande',
  coordinates: 'Renseignez la latitude et la longitude (nombres), ou aucune des deux',
  cellFormat: `Cellule illisible : écrivez « n°1 Apport (400 L - Bois) », séparées par «${CELL_SEPARATOR}»`,
  cellNumero: 'Numéro de cellule entre 0 et 20',
  cellTypeUnknown: 'Type de cellule inconnu : Apport, Broyat ou Maturation',
  composteurUnknown: (known: string) => `Type de composteur inconnu (types : ${known})`,
  cellDuplicate: 'Cette cellule (type et numéro) apparaît deux fois',
  cellNumeroTaken: 'Deux cellules actives portent ce numéro',
  cellTypeLocked: "Impossible de changer le type d'une cellule qui a des interventions",
  referentUnknown: (email: string) => `Aucun utilisateur ${email} pour l'instant : il sera rattaché s'il figure avec ce site dans l'import des utilisateurs`,
  referentNotUser: (email: string) => `${email} n'est pas un référent (prestataire ou agent)`,
  emailInvalid: 'Adresse mail invalide',
  emailAgent: 'Cette adresse appartient à un agent',
  typeUserUnknown: 'Type inconnu : Particulier, Organisme ou Prestataire',
  organismeRequired: 'Organisme obligatoire pour le type Organisme',
  tel: 'Le numéro de téléphone doit contenir 10 chiffres',
  siteUnknown: (code: string) => `Site inconnu : ${code}`,
  siteAmbiguous: 'Plusieurs sites portent ce nom : indiquez son code',
  siteNotActive: "Ce site n'est pas actif (statut Demande)",
  prestataireSites: "Un prestataire intervient sur tous les sites : laissez « Sites » vide",
  cellUnknown: "Cette cellule (type et numéro) n'existe pas sur ce site",
  actionUnknown: 'Action inconnue',
  uniteInvalid: 'Unité invalide',
  destinationUnknown: "Destination inconnue : « L vers le composteur n°N », N une cellule de maturation du site",
} as const;
