// The requests history pages at most 10,000 requests deep (list-depth.ts): no page lies deep
// enough any more for the requests per Paris month of creation (migration 025) to pay for their
// upkeep on every request written. Their triggers, functions and table go.

export const up = `
DROP TRIGGER demande_intervention_mois_ins ON demande_intervention;
DROP TRIGGER demande_intervention_mois_del ON demande_intervention;
DROP TRIGGER demande_intervention_mois_upd ON demande_intervention;
DROP TRIGGER demande_intervention_mois_truncate ON demande_intervention;
DROP FUNCTION demande_intervention_mois_ins();
DROP FUNCTION demande_intervention_mois_del();
DROP FUNCTION demande_intervention_mois_upd();
DROP FUNCTION demande_intervention_mois_truncate();
DROP FUNCTION demande_intervention_mois_apply(date[], integer[], integer[]);
DROP TABLE demande_intervention_mois;
`;
