// The people around a site: its permanences (openings of the site to households, once or as a
// recurring series, their openers, their cancellation and the tally recorded after each), the
// households who compost there, the short news sent to them, and the programme's kilos per bucket.
// - permanence_serie: the rule a recurring series was scheduled with; its occurrences are rows of
//   permanence, written out when the series is made (a cancelled or edited occurrence is its own row).
// - permanence: one opening, Paris wall-clock times stored as instants; a tally (bilan_*) once
//   recorded, keyed by the phone's client id so a replayed tally is stored once.
// - permanence_ouvreur: who holds an opening, and when the reminder of the day before was sent.
// - foyer: a household that registered from the public page; foyer_depart: what remains, without
//   any personal data, of a confirmed household that left (so past months keep their count).
// - alerte accepts 'permanence_sans_ouvreur'; alerte_seuils gains the kilos per bucket.
export const up = `
CREATE TABLE permanence_serie (
  id serial PRIMARY KEY,
  site_id integer NOT NULL REFERENCES site(id) ON DELETE CASCADE,
  frequence text NOT NULL CHECK (frequence IN ('hebdomadaire', 'bimensuelle', 'mensuelle')),
  jusqua date NOT NULL,
  created_by integer REFERENCES account(id) ON DELETE SET NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL
);
CREATE INDEX permanence_serie_site_idx ON permanence_serie (site_id);

CREATE TABLE permanence (
  id serial PRIMARY KEY,
  site_id integer NOT NULL REFERENCES site(id) ON DELETE CASCADE,
  serie_id integer REFERENCES permanence_serie(id) ON DELETE SET NULL,
  debut timestamp with time zone NOT NULL,
  fin timestamp with time zone NOT NULL,
  titre text CHECK (char_length(titre) <= 120),
  message text CHECK (char_length(message) <= 1000),
  apres_coup boolean DEFAULT false NOT NULL,
  created_by integer REFERENCES account(id) ON DELETE SET NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  annulee_le timestamp with time zone,
  annulee_par integer REFERENCES account(id) ON DELETE SET NULL,
  motif_annulation text CHECK (char_length(motif_annulation) <= 500),
  bilan_foyers integer CHECK (bilan_foyers >= 0),
  bilan_seaux integer CHECK (bilan_seaux >= 0),
  bilan_kg numeric(9,2) CHECK (bilan_kg >= 0),
  bilan_kg_estime boolean,
  bilan_temperature numeric(4,1) CHECK (bilan_temperature BETWEEN -30 AND 99),
  bilan_client_id uuid UNIQUE,
  bilan_par integer REFERENCES account(id) ON DELETE SET NULL,
  bilan_le timestamp with time zone,
  CONSTRAINT permanence_duree_check CHECK (fin > debut AND fin <= debut + interval '24 hours'),
  CONSTRAINT permanence_annulation_check CHECK ((annulee_le IS NULL) = (motif_annulation IS NULL)),
  CONSTRAINT permanence_bilan_check CHECK (
    (bilan_le IS NULL) = (bilan_foyers IS NULL)
    AND (bilan_le IS NULL) = (bilan_seaux IS NULL)
    AND (bilan_le IS NULL) = (bilan_kg IS NULL)
    AND (bilan_le IS NULL) = (bilan_kg_estime IS NULL)
  )
);
CREATE INDEX permanence_site_debut_idx ON permanence (site_id, debut);
CREATE INDEX permanence_debut_idx ON permanence (debut);
CREATE INDEX permanence_serie_idx ON permanence (serie_id);

CREATE TABLE permanence_ouvreur (
  permanence_id integer NOT NULL REFERENCES permanence(id) ON DELETE CASCADE,
  account_id integer NOT NULL REFERENCES account(id) ON DELETE CASCADE,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  rappel_envoye_le timestamp with time zone,
  PRIMARY KEY (permanence_id, account_id)
);
CREATE INDEX permanence_ouvreur_account_idx ON permanence_ouvreur (account_id);

CREATE TABLE foyer (
  id serial PRIMARY KEY,
  site_id integer NOT NULL REFERENCES site(id) ON DELETE CASCADE,
  prenom text CHECK (char_length(prenom) <= 100),
  email text CHECK (char_length(email) <= 254),
  personnes integer NOT NULL CHECK (personnes BETWEEN 1 AND 20),
  bioseau boolean NOT NULL,
  statut text DEFAULT 'en_attente' NOT NULL CHECK (statut IN ('en_attente', 'confirme', 'refuse')),
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  traite_le timestamp with time zone,
  traite_par integer REFERENCES account(id) ON DELETE SET NULL,
  nouvelles boolean DEFAULT true NOT NULL,
  CONSTRAINT foyer_traitement_check CHECK ((statut = 'en_attente') = (traite_le IS NULL))
);
CREATE INDEX foyer_site_idx ON foyer (site_id, statut);
CREATE INDEX foyer_email_idx ON foyer (lower(email));

CREATE TABLE foyer_depart (
  id serial PRIMARY KEY,
  site_id integer NOT NULL REFERENCES site(id) ON DELETE CASCADE,
  personnes integer NOT NULL CHECK (personnes BETWEEN 1 AND 20),
  confirme_le timestamp with time zone NOT NULL,
  parti_le timestamp with time zone NOT NULL,
  CHECK (parti_le >= confirme_le)
);
CREATE INDEX foyer_depart_site_idx ON foyer_depart (site_id);

CREATE TABLE foyer_nouvelle (
  id serial PRIMARY KEY,
  site_id integer NOT NULL REFERENCES site(id) ON DELETE CASCADE,
  jour date NOT NULL,
  sujet text NOT NULL CHECK (char_length(sujet) BETWEEN 1 AND 120),
  texte text NOT NULL CHECK (char_length(texte) BETWEEN 1 AND 2000),
  envoye_par integer REFERENCES account(id) ON DELETE SET NULL,
  envoye_le timestamp with time zone DEFAULT now() NOT NULL,
  destinataires integer NOT NULL CHECK (destinataires >= 0),
  CONSTRAINT foyer_nouvelle_un_par_jour UNIQUE (site_id, jour)
);

ALTER TABLE alerte DROP CONSTRAINT alerte_kind_check,
  ADD CONSTRAINT alerte_kind_check CHECK (kind IN ('request_overdue', 'request_due_soon', 'no_reading', 'temperature_high', 'temperature_low', 'site_idle', 'intake_high', 'public_reports', 'permanence_sans_ouvreur'));
ALTER TABLE alerte_preference DROP CONSTRAINT alerte_preference_kind_check,
  ADD CONSTRAINT alerte_preference_kind_check CHECK (kind IN ('request_overdue', 'request_due_soon', 'no_reading', 'temperature_high', 'temperature_low', 'site_idle', 'intake_high', 'public_reports', 'permanence_sans_ouvreur'));

ALTER TABLE alerte_seuils ADD COLUMN kg_par_seau numeric DEFAULT 2 NOT NULL CHECK (kg_par_seau > 0 AND kg_par_seau <= 50);
`;
