// What the board's 'Traiter' puts in the site sheet for one request, in a file of its own so
// that the map's site card and the day's route can use it without loading the board.
import { ACTION_REPARATION_A_EFFECTUER } from '../../../shared/domain';
import type { DemandeIntervention } from '../../../shared/schemas/requests';
import type { RequestPrefill } from '../field-entry/public';

/**
 * Destination cell if any, else the cell; the scheduled action; the value of a trigger 18
 * (the latest repair to do when it was signalled again: it says the most about the work).
 */
export function requestPrefill(d: DemandeIntervention): RequestPrefill {
  const latest = d.dernierSignalement;
  const valeur =
    latest && latest.idAction === ACTION_REPARATION_A_EFFECTUER && latest.valeur !== ''
      ? latest.valeur
      : d.idAction === ACTION_REPARATION_A_EFFECTUER && d.value !== ''
        ? d.value
        : null;
  return { demandeIntervention: d.id, composteur: d.destinationIdBac ?? d.idBac, action: d.idActionProgrammee, valeur };
}

