// What other modules may use of the sites module: its repository (a site's header, its referents).
export { createSitesRepository } from './sites.repository.js';
