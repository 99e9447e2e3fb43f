// The requests history pages newest first over every request ever raised: an index
// on the creation date keeps that page a short index walk instead of a sort of the table.
export const up = `
CREATE INDEX IF NOT EXISTS demande_creation_idx ON demande_intervention (date_creation DESC, id DESC);
`;
