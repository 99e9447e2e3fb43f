// What other modules may use of the sites module: its repository (a site's header, its referents),
// and the frame typed coordinates must fall in (the sites import checks its lines against it).
export { createSitesRepository } from './sites.repository.js';
export { loadTerritoryFrame } from './sites.service.js';
