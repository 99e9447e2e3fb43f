// Screens of the map domain, mounted by app/router.tsx: the map of the sites and the day's
// route. Each is its own chunk, so Leaflet loads only with the map. Importing this file also
// adds their drawer entries (lib/nav-extras.ts: the product's menu does not name them), for
// the roles of their permissions.
import type { RouteObject } from 'react-router';
import { PERMISSIONS } from '../../../shared/permissions';
import { registerNavEntry } from '../../lib/nav-extras';
import { CARTE_PATH, TOURNEE_PATH } from './map-paths';

const BOARD_PATH = '/admin/demande/intervention/list';

let done = false;
function setupMap() {
  if (done) return;
  done = true;
  // After the requests board, where both roles that plan the day look; at the end for the others.
  registerNavEntry({ label: 'Carte des sites', path: CARTE_PATH, roles: PERMISSIONS['map.view'] }, { after: BOARD_PATH });
  registerNavEntry({ label: 'Tournée du jour', path: TOURNEE_PATH, roles: PERMISSIONS['route.view'] }, { after: CARTE_PATH });
}
setupMap();

export const mapRoutes: RouteObject[] = [
  { path: CARTE_PATH, lazy: async () => ({ Component: (await import('./map-page')).MapPage }) },
  { path: TOURNEE_PATH, lazy: async () => ({ Component: (await import('./tournee-page')).TourneePage }) },
];
