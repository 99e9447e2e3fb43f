// Anonymous reports that cannot flood a site: each one still reaches the board, in order.
// - occurrences: an identical text sent again on the same site counts into the report still
//   open ('nouveau') instead of adding a row; a merge on the board adds the merged reports'.
// - visible_le: when the report enters the board. Past the site's daily share (the service
//   says how many), a new report waits for the next free place instead of being refused.
// - fusionne_dans_id: the report this one was merged into (it is then 'classe').
// - signalement_public_contact: the addresses of the people waiting for an answer, several once
//   reports are grouped or merged (the former signalement_public.email moves there). Each is kept
//   only until its report is handled: the handling deletes them in its transaction.
export const up = `
ALTER TABLE signalement_public
  ADD COLUMN occurrences integer NOT NULL DEFAULT 1 CHECK (occurrences >= 1),
  ADD COLUMN visible_le timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN fusionne_dans_id integer REFERENCES signalement_public(id) ON DELETE SET NULL;
UPDATE signalement_public SET visible_le = created_at;

CREATE TABLE signalement_public_contact (
  signalement_id integer NOT NULL REFERENCES signalement_public(id) ON DELETE CASCADE,
  email text NOT NULL,
  PRIMARY KEY (signalement_id, email)
);
INSERT INTO signalement_public_contact (signalement_id, email)
  SELECT id, email FROM signalement_public WHERE email IS NOT NULL;
ALTER TABLE signalement_public DROP COLUMN email;

-- The next free place of a site: its latest entries on the board.
CREATE INDEX signalement_public_site_visible_idx ON signalement_public (site_id, visible_le DESC);
-- The open report of a site with the same text.
CREATE INDEX signalement_public_ouvert_texte_idx ON signalement_public (site_id, texte) WHERE statut = 'nouveau';
CREATE INDEX signalement_public_fusion_idx ON signalement_public (fusionne_dans_id) WHERE fusionne_dans_id IS NOT NULL;
`;
