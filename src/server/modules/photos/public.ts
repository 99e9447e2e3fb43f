// What other modules may use of the photos module: the photos of interventions.
export { createPhotosRepository } from './photos.repository.js';
