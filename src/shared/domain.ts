// The reference data whose ids and codes are part of the API: statuses, cell types, actions,
// user types and role codes (what they mean: docs/domain.md and docs/glossary.md). The server
// and the web app take them from here. The migration that seeded these tables
// (002-reference-data.ts) holds a copy frozen at its release, and migrate.test.ts checks that
// the migrated database still equals this file: a change here takes a new migration.
//
// Plain values only, importing nothing: the field screen's first load includes this file
// (through schemas/intervention-rules.ts), where zod would cost 14 to 23 KB gzip.

// ---- Statuses (table statut): sites 1 and 2, requests 3 to 6 ----

export const STATUTS = [
  { id: 1, libelle: 'Actif' },
  { id: 2, libelle: 'Demande' },
  { id: 3, libelle: 'En attente' },
  { id: 4, libelle: 'Programmée' },
  { id: 5, libelle: 'Réalisée' },
  { id: 6, libelle: 'Annulée' },
] as const;

/** A site is installed (actif) or requested (demande). */
export const SITE_STATUT = { actif: 1, demande: 2 } as const;

/** A request raised and not scheduled yet. */
export const STATUT_EN_ATTENTE = 3;
/** A request with a planned day. */
export const STATUT_PROGRAMMEE = 4;
/** A request processed by an intervention. */
export const STATUT_REALISEE = 5;
/** A request closed without being done. */
export const STATUT_ANNULEE = 6;
/** The pending statuses: only a pending request changes. */
export const PENDING_STATUTS = [STATUT_EN_ATTENTE, STATUT_PROGRAMMEE] as const;

// ---- Cell types (table type_bac): what a cell is used for ----

export const TYPE_BAC = { apport: 1, broyat: 2, maturation: 3 } as const;

export const TYPE_BACS = [
  { id: TYPE_BAC.apport, libelle: 'Apport' },
  { id: TYPE_BAC.broyat, libelle: 'Broyat' },
  { id: TYPE_BAC.maturation, libelle: 'Maturation' },
] as const;

/** The only cell type that can receive a transfer. */
export const TYPE_BAC_MATURATION = TYPE_BAC.maturation;

// ---- Actions (table type_action): what can be done on a cell ----

/** What an action records: nothing, litres, a temperature, a constant of a list, a free text, or litres and a destination cell. */
export const ACTION_VALUE_KIND_LIST = ['none', 'litres', 'temperature', 'constant', 'text', 'transfer'] as const;
export type ActionValueKind = (typeof ACTION_VALUE_KIND_LIST)[number];

export const ACTION = {
  retournement: 1,
  brassage: 2,
  transfert: 3,
  viderCellule: 4,
  nettoyageSite: 5,
  temperature: 6,
  niveauBroyat: 7,
  etatBroyat: 8,
  etatComposteur: 9,
  prelevement: 10,
  distributionCompost: 11,
  apportBroyat: 12,
  autreIntervention: 13,
  reparationEffectuee: 14,
  arrosage: 15,
  niveauApport: 16,
  tamisage: 17,
  reparationAEffectuer: 18,
  niveauMatiere: 19,
} as const;

export interface ActionDefinition {
  id: number;
  libelle: string;
  valueKind: ActionValueKind;
  /** The statistics series that counts it (type_action.stats_series), if any. */
  statsSeries: string | null;
  /** The cell types it is allowed on. */
  typeBacs: readonly number[];
}

const { apport, broyat, maturation } = TYPE_BAC;
const ALL_CELLS = [apport, broyat, maturation] as const;

/** The catalogue, in id order. */
export const ACTIONS: readonly ActionDefinition[] = [
  { id: ACTION.retournement, libelle: 'Retournement', valueKind: 'none', statsSeries: 'retournement', typeBacs: [apport, maturation] },
  { id: ACTION.brassage, libelle: 'Brassage', valueKind: 'none', statsSeries: null, typeBacs: [apport] },
  { id: ACTION.transfert, libelle: 'Transfert', valueKind: 'transfer', statsSeries: 'transfert', typeBacs: [apport] },
  { id: ACTION.viderCellule, libelle: 'Vider la cellule', valueKind: 'litres', statsSeries: 'viderBac', typeBacs: ALL_CELLS },
  { id: ACTION.nettoyageSite, libelle: 'Nettoyage du site', valueKind: 'none', statsSeries: null, typeBacs: ALL_CELLS },
  { id: ACTION.temperature, libelle: 'Température', valueKind: 'temperature', statsSeries: 'temperature', typeBacs: [apport, maturation] },
  { id: ACTION.niveauBroyat, libelle: 'Niveau de broyat', valueKind: 'constant', statsSeries: null, typeBacs: [broyat] },
  { id: ACTION.etatBroyat, libelle: 'État du broyat', valueKind: 'constant', statsSeries: null, typeBacs: [broyat] },
  { id: ACTION.etatComposteur, libelle: 'État du composteur', valueKind: 'constant', statsSeries: null, typeBacs: ALL_CELLS },
  { id: ACTION.prelevement, libelle: 'Prélèvement', valueKind: 'litres', statsSeries: null, typeBacs: [maturation] },
  { id: ACTION.distributionCompost, libelle: 'Distribution de compost', valueKind: 'litres', statsSeries: 'distribution', typeBacs: [maturation] },
  { id: ACTION.apportBroyat, libelle: 'Apport de broyat', valueKind: 'litres', statsSeries: 'apportBroyat', typeBacs: [broyat] },
  { id: ACTION.autreIntervention, libelle: 'Autre intervention', valueKind: 'none', statsSeries: null, typeBacs: ALL_CELLS },
  { id: ACTION.reparationEffectuee, libelle: 'Réparation effectuée', valueKind: 'text', statsSeries: 'reparation', typeBacs: ALL_CELLS },
  { id: ACTION.arrosage, libelle: 'Arrosage', valueKind: 'litres', statsSeries: 'arrosage', typeBacs: [apport, maturation] },
  { id: ACTION.niveauApport, libelle: "Niveau d'apport", valueKind: 'constant', statsSeries: null, typeBacs: [apport] },
  { id: ACTION.tamisage, libelle: 'Tamisage', valueKind: 'litres', statsSeries: 'tamisage', typeBacs: [maturation] },
  { id: ACTION.reparationAEffectuer, libelle: 'Réparation à effectuer', valueKind: 'text', statsSeries: null, typeBacs: ALL_CELLS },
  { id: ACTION.niveauMatiere, libelle: 'Niveau de matière', valueKind: 'constant', statsSeries: null, typeBacs: [maturation] },
];

/** Value kind of each action id, for displays that only know the id. */
export const ACTION_VALUE_KINDS: Readonly<Record<number, ActionValueKind>> = Object.fromEntries(ACTIONS.map((a) => [a.id, a.valueKind]));

/** A transfer moves matter from an input cell to a maturation cell. */
export const ACTION_TRANSFERT = ACTION.transfert;
/** 'Autre intervention' needs observations. */
export const ACTION_AUTRE = ACTION.autreIntervention;
/** 'Réparation à effectuer': its text says what to repair, and it raises a repair request. */
export const ACTION_REPARATION_A_EFFECTUER = ACTION.reparationAEffectuer;

// ---- User types (table type_user) ----

export const TYPE_USER = { particulier: 1, organisme: 2, prestataire: 3 } as const;

export const TYPE_USERS = [
  { id: TYPE_USER.particulier, libelle: 'Particulier' },
  { id: TYPE_USER.organisme, libelle: 'Organisme' },
  { id: TYPE_USER.prestataire, libelle: 'Prestataire' },
] as const;

/** Service providers (ROLE_PRESTATAIRE), who see every site. */
export const TYPE_PRESTATAIRE = TYPE_USER.prestataire;

// ---- Roles (table role): the id of a role is its rank in this list, from 1 ----

export const ROLES = [
  'ROLE_ADMIN',
  'ROLE_ADMIN_SITE',
  'ROLE_ADMIN_USER',
  'ROLE_ADMIN_ROLE',
  'ROLE_ADMIN_COMPOSTEUR',
  'ROLE_ADMIN_UPDATE',
  'ROLE_ADMIN_DELETE',
  'ROLE_USER',
  'ROLE_PRESTATAIRE',
] as const;
export type Role = (typeof ROLES)[number];

/** The id of a role in the table role (ROLE_ADMIN is 1, ROLE_PRESTATAIRE 9). */
export function roleId(code: Role): number {
  return ROLES.indexOf(code) + 1;
}
