// Paths of the map screens (kept apart so that the route map and the drawer do not pull the
// screens' code).
export const CARTE_PATH = '/admin/carte';
export const TOURNEE_PATH = '/admin/tournee';
