// What other modules may use of the interventions administration (lint: a module reaches
// another only through its public.ts): the photos strip of a stored intervention, which the
// requests board and its history show too.
export { InterventionPhotos } from './intervention-photos';
