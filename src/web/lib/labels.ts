// How a site and a cell are named on screen, the same on every screen that lists them (site
// choice, site sheet, outbox, labels, statistics filters, public reports).
import type { ActiveSite } from '../../shared/schemas/site-choice';

/** 'QUA012 - rue de Siam (Jardin des Capucins)', as the site choice shows it. */
export function siteLabel(site: Pick<ActiveSite, 'code' | 'adresse' | 'nom'>): string {
  return site.nom ? `${site.code} - ${site.adresse} (${site.nom})` : `${site.code} - ${site.adresse}`;
}

/** 'Cellule n°2 - Maturation', as the site sheet shows it. */
export function cellLabel(cell: { numero: number; libelleTypeBac: string }): string {
  return `Cellule n°${cell.numero} - ${cell.libelleTypeBac}`;
}
