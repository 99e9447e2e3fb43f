// Paths and display labels shared by the interventions screens (kept apart so that a screen
// importing a label does not pull another screen's chunk).
import type { ActiveSite } from '../../../shared/schemas/site-choice';

export const SITE_CHOICE_PATH = '/admin/choix/site';
export const OUTBOX_PATH = '/admin/envois';
export const siteSheetPath = (siteId: number) => `/admin/fiche/site/${siteId}`;

/** 'QUA012 - rue de Siam (Jardin des Capucins)', as the site choice shows it. */
export function siteLabel(site: Pick<ActiveSite, 'code' | 'adresse' | 'nom'>): string {
  return site.nom ? `${site.code} - ${site.adresse} (${site.nom})` : `${site.code} - ${site.adresse}`;
}

/** 'Cellule n°2 - Maturation', as the site sheet shows it. */
export function cellLabel(cell: { numero: number; libelleTypeBac: string }): string {
  return `Cellule n°${cell.numero} - ${cell.libelleTypeBac}`;
}

