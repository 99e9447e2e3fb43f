// The requests history sorted by site or by programmed action walks the sites (or actions) in
// label order and takes each one's requests by id: these indexes give them in that order.
// (site_id, id) replaces the site_id index of migration 007, whose lookups it serves as well.
export const up = `
CREATE INDEX IF NOT EXISTS demande_site_id_idx ON demande_intervention (site_id, id);
DROP INDEX IF EXISTS demande_site_idx;
CREATE INDEX IF NOT EXISTS demande_action_programmee_idx ON demande_intervention (type_action_programmee_id, id);
`;
