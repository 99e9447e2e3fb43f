// The whole schema of the product. Reference rows whose ids are part of the contract
// (002-reference-data.ts, from src/shared/domain.ts) are seeded too, so every database has them.
export const up = `
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- unaccent() is only STABLE; an IMMUTABLE wrapper lets indexes use it.
CREATE OR REPLACE FUNCTION f_unaccent(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;

CREATE TABLE type_user (id integer PRIMARY KEY, libelle text NOT NULL);
CREATE TABLE role (id integer PRIMARY KEY, code text NOT NULL UNIQUE, libelle text NOT NULL);
CREATE TABLE type_bac (id integer PRIMARY KEY, libelle text NOT NULL);
CREATE TABLE statut (id integer PRIMARY KEY, libelle text NOT NULL);

CREATE TABLE account (
  id serial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('user', 'agent')),
  identifiant text,
  email text NOT NULL,
  password_hash text,
  type_user_id integer REFERENCES type_user(id),
  organisme text,
  nom text NOT NULL,
  prenom text,
  tel text,
  photo text,
  email_valide boolean NOT NULL DEFAULT false,
  actif boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX account_email_uq ON account (lower(email));
CREATE UNIQUE INDEX account_identifiant_uq ON account (lower(identifiant)) WHERE identifiant IS NOT NULL;
CREATE INDEX account_kind_idx ON account (kind, actif);
CREATE INDEX account_nom_trgm ON account USING gin (f_unaccent(lower(nom)) gin_trgm_ops);
CREATE INDEX account_prenom_trgm ON account USING gin (f_unaccent(lower(coalesce(prenom, ''))) gin_trgm_ops);
CREATE INDEX account_organisme_trgm ON account USING gin (f_unaccent(lower(coalesce(organisme, ''))) gin_trgm_ops);
CREATE INDEX account_email_trgm ON account USING gin (lower(email) gin_trgm_ops);
CREATE INDEX account_created_idx ON account (created_at);
CREATE INDEX account_nom_idx ON account (nom, id);

CREATE TABLE account_role (
  account_id integer NOT NULL REFERENCES account(id) ON DELETE CASCADE,
  role_id integer NOT NULL REFERENCES role(id),
  PRIMARY KEY (account_id, role_id)
);
CREATE INDEX account_role_role_idx ON account_role (role_id);

CREATE TABLE session (
  id_hash text PRIMARY KEY,
  account_id integer NOT NULL REFERENCES account(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX session_account_idx ON session (account_id);
CREATE INDEX session_expires_idx ON session (expires_at);

CREATE TABLE account_token (
  token_hash text PRIMARY KEY,
  account_id integer NOT NULL REFERENCES account(id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('confirm', 'reset')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX account_token_account_idx ON account_token (account_id, purpose);

CREATE TABLE type_site (
  id serial PRIMARY KEY,
  libelle text NOT NULL,
  code text NOT NULL CHECK (code ~ '^[A-Z]{1,3}$'),
  next_sequence integer NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX type_site_code_uq ON type_site (code);
CREATE INDEX type_site_libelle_trgm ON type_site USING gin (f_unaccent(lower(libelle)) gin_trgm_ops);

CREATE TABLE type_composteur (
  id serial PRIMARY KEY,
  volume integer NOT NULL CHECK (volume >= 0),
  precisions text NOT NULL
);
CREATE INDEX type_composteur_volume_idx ON type_composteur (volume);

CREATE TABLE type_action (
  id integer PRIMARY KEY,
  libelle text NOT NULL,
  valeur boolean NOT NULL,
  value_kind text NOT NULL CHECK (value_kind IN ('none', 'litres', 'temperature', 'constant', 'text', 'transfer')),
  stats_series text
);
CREATE TABLE type_action_type_bac (
  type_action_id integer NOT NULL REFERENCES type_action(id),
  type_bac_id integer NOT NULL REFERENCES type_bac(id),
  PRIMARY KEY (type_action_id, type_bac_id)
);
CREATE TABLE type_action_constante (
  id_constante integer NOT NULL,
  constante text NOT NULL,
  id_action integer NOT NULL REFERENCES type_action(id),
  PRIMARY KEY (id_constante, id_action)
);

CREATE TABLE ville (
  id serial PRIMARY KEY,
  code_insee text NOT NULL,
  nom text NOT NULL,
  cp text NOT NULL,
  UNIQUE (code_insee, cp)
);
CREATE INDEX ville_nom_idx ON ville (nom);

CREATE TABLE rue (
  id serial PRIMARY KEY,
  code_insee text NOT NULL,
  nom text NOT NULL,
  UNIQUE (code_insee, nom)
);
CREATE INDEX rue_nom_trgm ON rue USING gin (f_unaccent(lower(nom)) gin_trgm_ops);

CREATE TABLE demandeur (
  id serial PRIMARY KEY,
  date timestamptz,
  civilite text NOT NULL,
  nom text NOT NULL,
  prenom text NOT NULL,
  fonction text NOT NULL,
  precisions text,
  telephone text NOT NULL,
  telephone2 text,
  email text,
  periode_implantation text,
  annee_implantation integer
);

CREATE TABLE site (
  id serial PRIMARY KEY,
  code text NOT NULL UNIQUE,
  nom text,
  ville text NOT NULL,
  cp text NOT NULL,
  code_insee text,
  adresse text NOT NULL,
  numero text,
  complement text,
  type_site_id integer NOT NULL REFERENCES type_site(id),
  observations text,
  cadena text,
  date_implantation timestamptz,
  date_inauguration timestamptz,
  statut_id integer NOT NULL REFERENCES statut(id),
  demandeur_id integer REFERENCES demandeur(id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX site_statut_idx ON site (statut_id);
CREATE INDEX site_ville_idx ON site (ville);
CREATE INDEX site_type_idx ON site (type_site_id);
CREATE INDEX site_nom_idx ON site (nom, id);
CREATE INDEX site_nom_trgm ON site USING gin (f_unaccent(lower(coalesce(nom, '') || ' ' || code)) gin_trgm_ops);
CREATE INDEX site_adresse_trgm ON site USING gin (f_unaccent(lower(adresse)) gin_trgm_ops);

CREATE TABLE site_convention (
  id serial PRIMARY KEY,
  site_id integer NOT NULL REFERENCES site(id) ON DELETE CASCADE,
  date_convention timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX site_convention_site_idx ON site_convention (site_id, date_convention DESC);

CREATE TABLE site_referent (
  site_id integer NOT NULL REFERENCES site(id) ON DELETE CASCADE,
  account_id integer NOT NULL REFERENCES account(id) ON DELETE CASCADE,
  PRIMARY KEY (site_id, account_id)
);
CREATE INDEX site_referent_account_idx ON site_referent (account_id);

CREATE TABLE site_composteur (
  id serial PRIMARY KEY,
  site_id integer NOT NULL REFERENCES site(id) ON DELETE CASCADE,
  type_composteur_id integer NOT NULL REFERENCES type_composteur(id),
  type_bac_id integer NOT NULL REFERENCES type_bac(id),
  numero integer NOT NULL CHECK (numero BETWEEN 0 AND 20),
  actif boolean NOT NULL DEFAULT true
);
CREATE UNIQUE INDEX site_composteur_numero_uq ON site_composteur (site_id, numero) WHERE actif;
CREATE INDEX site_composteur_site_idx ON site_composteur (site_id);

CREATE TABLE intervention_submission (
  client_id uuid PRIMARY KEY,
  account_id integer NOT NULL REFERENCES account(id),
  payload_hash text NOT NULL,
  result jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE demande_intervention (
  id serial PRIMARY KEY,
  site_id integer NOT NULL REFERENCES site(id),
  site_composteur_id integer NOT NULL REFERENCES site_composteur(id),
  statut_id integer NOT NULL REFERENCES statut(id),
  type_action_programmee_id integer NOT NULL REFERENCES type_action(id),
  intervention_declenchante_id integer,
  intervention_realisee_id integer,
  date_creation timestamptz NOT NULL DEFAULT now(),
  date_echeance timestamptz NOT NULL,
  date_programmee timestamptz,
  programme_par_id integer REFERENCES account(id),
  date_annulation timestamptz,
  annulee_par_id integer REFERENCES account(id)
);
CREATE INDEX demande_statut_idx ON demande_intervention (statut_id, site_id);
CREATE INDEX demande_site_idx ON demande_intervention (site_id);

CREATE TABLE intervention (
  id serial PRIMARY KEY,
  client_id uuid REFERENCES intervention_submission(client_id),
  date timestamptz NOT NULL,
  site_id integer NOT NULL REFERENCES site(id),
  site_composteur_id integer NOT NULL REFERENCES site_composteur(id),
  type_action_id integer NOT NULL REFERENCES type_action(id),
  valeur_nombre numeric,
  valeur_constante integer,
  valeur_texte text,
  bac_destination_id integer REFERENCES site_composteur(id),
  observations text,
  intervenant_id integer NOT NULL REFERENCES account(id),
  modification_agent_id integer REFERENCES account(id),
  modified_at timestamptz,
  demande_intervention_id integer REFERENCES demande_intervention(id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX intervention_site_date_idx ON intervention (site_id, date DESC);
CREATE INDEX intervention_date_idx ON intervention (date DESC);
CREATE INDEX intervention_action_date_idx ON intervention (type_action_id, date);
CREATE INDEX intervention_client_idx ON intervention (client_id);

ALTER TABLE demande_intervention
  ADD CONSTRAINT demande_declenchante_fk FOREIGN KEY (intervention_declenchante_id) REFERENCES intervention(id) ON DELETE SET NULL,
  ADD CONSTRAINT demande_realisee_fk FOREIGN KEY (intervention_realisee_id) REFERENCES intervention(id) ON DELETE SET NULL;

CREATE TABLE demande_rule (
  id serial PRIMARY KEY,
  type_action_declenchante_id integer NOT NULL REFERENCES type_action(id),
  id_constante integer,
  type_action_programmee_id integer NOT NULL REFERENCES type_action(id),
  delai_jours integer NOT NULL CHECK (delai_jours >= 0)
);
CREATE INDEX demande_rule_action_idx ON demande_rule (type_action_declenchante_id);
`;
