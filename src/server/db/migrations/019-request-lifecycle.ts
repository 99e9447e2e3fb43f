// Intervention requests that follow their triggers, and a history whose every sort is an index
// walk.
// - demande_signalement: the later entries that called for a request already pending (a weekly
//   'Plein' on the same bin), so that one request stands for all of them. The first trigger
//   stays in demande_intervention.intervention_declenchante_id; each later one keeps the due
//   date it alone would have given, which becomes the request's when the first one goes.
// - the pending request of a cell and scheduled action is looked up on every entry that
//   matches a rule: a partial index over the few pending rows answers it.
// - the history sorted by status, due date or cancellation date read and sorted every request
//   (an external merge at 87,000 requests): each sort now has an index in its exact order,
//   NULLS LAST included for the cancellation date, which a backward scan cannot give.
export const up = `
CREATE TABLE IF NOT EXISTS demande_signalement (
  demande_intervention_id integer NOT NULL REFERENCES demande_intervention(id) ON DELETE CASCADE,
  intervention_id integer NOT NULL REFERENCES intervention(id) ON DELETE CASCADE,
  date_echeance timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (demande_intervention_id, intervention_id)
);
CREATE INDEX IF NOT EXISTS demande_signalement_intervention_idx ON demande_signalement (intervention_id);

CREATE INDEX IF NOT EXISTS demande_pending_cell_idx ON demande_intervention (site_composteur_id, type_action_programmee_id, date_echeance)
  WHERE statut_id IN (3, 4);

CREATE INDEX IF NOT EXISTS demande_statut_id_idx ON demande_intervention (statut_id, id);
CREATE INDEX IF NOT EXISTS demande_echeance_idx ON demande_intervention (date_echeance, id);
CREATE INDEX IF NOT EXISTS demande_annulation_asc_idx ON demande_intervention (date_annulation ASC NULLS LAST, id ASC);
CREATE INDEX IF NOT EXISTS demande_annulation_desc_idx ON demande_intervention (date_annulation DESC NULLS LAST, id DESC);
`;
