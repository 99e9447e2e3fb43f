// The neighbourhood's door into the product: what a site shows on its public page, where it
// stands on a map, whether it goes to the open-data files, the address points that place it,
// and the anonymous reports of its users.
// - site: opening hours and 'what to bring' (texts written for the public page), coordinates
//   (WGS 84) with where they came from ('ban': the imported address points, refreshed when the
//   address changes; 'saisie': typed on the site form, kept), and the open-data switch.
// - adresse_point: one point per (city, street, house number) of the imported Base Adresse
//   Nationale files; the keys are the street and number as reference/streets-import.ts
//   normalises them (lower case, no accents, single spaces).
// - signalement_public: a report sent from a site's public page ('nouveau'), then turned into
//   an intervention request ('transforme') or filed with a reason ('classe'). The reporter's
//   e-mail, kept only to answer, is erased when the report is handled.
// - the public page reads the latest turn (1), transfer (3), input level (16) and material
//   level (19) of a site: a partial index over those actions finds each in one probe.
export const up = `
ALTER TABLE site
  ADD COLUMN horaires text,
  ADD COLUMN consignes text,
  ADD COLUMN latitude double precision CHECK (latitude BETWEEN -90 AND 90),
  ADD COLUMN longitude double precision CHECK (longitude BETWEEN -180 AND 180),
  ADD COLUMN coordonnees_source text CHECK (coordonnees_source IN ('ban', 'saisie')),
  ADD COLUMN open_data boolean NOT NULL DEFAULT true,
  ADD CONSTRAINT site_coordonnees_paire CHECK ((latitude IS NULL) = (longitude IS NULL) AND (latitude IS NULL) = (coordonnees_source IS NULL));

CREATE TABLE adresse_point (
  code_insee text NOT NULL,
  voie_cle text NOT NULL,
  numero_cle text NOT NULL,
  longitude double precision NOT NULL CHECK (longitude BETWEEN -180 AND 180),
  latitude double precision NOT NULL CHECK (latitude BETWEEN -90 AND 90),
  PRIMARY KEY (code_insee, voie_cle, numero_cle)
);

CREATE TABLE signalement_public (
  id serial PRIMARY KEY,
  site_id integer NOT NULL REFERENCES site(id) ON DELETE CASCADE,
  categorie text NOT NULL CHECK (categorie IN ('bac_plein', 'odeur', 'nuisibles', 'degradation', 'autre')),
  texte text NOT NULL,
  email text,
  reponse_demandee boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  statut text NOT NULL DEFAULT 'nouveau' CHECK (statut IN ('nouveau', 'transforme', 'classe')),
  traite_le timestamptz,
  traite_par_id integer REFERENCES account(id) ON DELETE SET NULL,
  motif text,
  demande_intervention_id integer REFERENCES demande_intervention(id) ON DELETE SET NULL
);
-- The tab lists the new reports, or the handled ones, newest first; a referent's only for their sites.
CREATE INDEX signalement_public_statut_idx ON signalement_public (statut, created_at DESC, id DESC);
CREATE INDEX signalement_public_site_idx ON signalement_public (site_id, created_at DESC, id DESC);
CREATE INDEX signalement_public_demande_idx ON signalement_public (demande_intervention_id) WHERE demande_intervention_id IS NOT NULL;

CREATE INDEX intervention_public_latest_idx ON intervention (site_id, type_action_id, date DESC)
  WHERE type_action_id IN (1, 3, 16, 19);
`;
