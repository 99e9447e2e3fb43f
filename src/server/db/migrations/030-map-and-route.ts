// Where things are: the start point of each user's route (kept per account, used by
// /admin/tournee when the provider set one), the order of a day's route when the provider
// changed it by hand (one row per account and Paris day, the requests in the order chosen),
// and the reason given when requests are cancelled from the board.

export const up = `
ALTER TABLE account ADD COLUMN tournee_depart_latitude double precision;
ALTER TABLE account ADD COLUMN tournee_depart_longitude double precision;
ALTER TABLE account ADD CONSTRAINT account_tournee_depart_check CHECK (
  (tournee_depart_latitude IS NULL) = (tournee_depart_longitude IS NULL)
  AND (tournee_depart_latitude IS NULL OR tournee_depart_latitude BETWEEN -90 AND 90)
  AND (tournee_depart_longitude IS NULL OR tournee_depart_longitude BETWEEN -180 AND 180)
);

CREATE TABLE tournee_ordre (
  account_id integer NOT NULL REFERENCES account(id) ON DELETE CASCADE,
  jour date NOT NULL,
  demandes integer[] NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT tournee_ordre_pkey PRIMARY KEY (account_id, jour)
);

ALTER TABLE demande_intervention ADD COLUMN motif_annulation text;
ALTER TABLE demande_intervention ADD CONSTRAINT demande_intervention_motif_annulation_check CHECK (char_length(motif_annulation) <= 500);
`;
