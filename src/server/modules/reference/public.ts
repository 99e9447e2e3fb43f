// What other modules and the start may use of the reference module: address keys and street imports.
export { addressKeys, importStreets, seedStreetsSample } from './streets-import.js';
