// Photos of field entries: one row per photo, its re-encoded JPEG and thumbnail kept in the
// database itself, so that every server process serves them and a database backup holds them.
// A photo belongs to one intervention and goes with it. client_id is the phone's id of the
// photo: a resend after a lost answer finds it and stores nothing twice.
// The image columns are read only by the photo route; the lists read id and intervention_id,
// which PostgreSQL keeps apart from the large values (stored out of line).
export const up = `
CREATE TABLE intervention_photo (
  id serial PRIMARY KEY,
  client_id uuid NOT NULL UNIQUE,
  intervention_id integer NOT NULL REFERENCES intervention(id) ON DELETE CASCADE,
  envoye_par_id integer REFERENCES account(id) ON DELETE SET NULL,
  largeur integer NOT NULL CHECK (largeur > 0),
  hauteur integer NOT NULL CHECK (hauteur > 0),
  taille integer NOT NULL CHECK (taille > 0),
  taille_miniature integer NOT NULL CHECK (taille_miniature > 0),
  empreinte text NOT NULL,
  image bytea NOT NULL,
  miniature bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX intervention_photo_intervention_idx ON intervention_photo (intervention_id, id);
-- JPEG is compressed already: stored out of line as it is, without a compression attempt.
ALTER TABLE intervention_photo ALTER COLUMN image SET STORAGE EXTERNAL, ALTER COLUMN miniature SET STORAGE EXTERNAL;
`;
