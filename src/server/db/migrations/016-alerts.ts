// Site follow-up alerts (docs/alerts.md): the thresholds, the alerts themselves, the runs of
// the daily job, the digests sent and each person's opt-outs.
// - alerte: one row per cause and opening. At most one open row per (kind, objet_id), where
//   objet_id is the request, the cell or the site the kind is about; the job closes it when its
//   cause has gone and a later return of the cause opens a new row.
// - alerte_run: one row per run; the daily run is skipped when a run started after the day's
//   scheduled time (several processes, a restart). alerte_seuils.created_at tells a missed day
//   (the feature existed at the scheduled time) from a fresh installation.
// - alerte_digest: one row per person and Paris day (text 'YYYY-MM-DD': a calendar day, not an
//   instant), claimed before the e-mail leaves, so nobody gets two digests a day; last_alerte_id
//   is how far the person has been told (alerts are only inserted by the job, under its lock, so
//   their ids grow with time).
// - intervention_temperature_idx: a cell's latest temperature reading without reading its
//   other interventions (temperature is action 6).
export const up = `
CREATE TABLE alerte_seuils (
  id integer PRIMARY KEY CHECK (id = 1),
  temperature_min numeric NOT NULL,
  temperature_max numeric NOT NULL,
  jours_sans_releve integer NOT NULL CHECK (jours_sans_releve BETWEEN 1 AND 365),
  jours_sans_intervention integer NOT NULL CHECK (jours_sans_intervention BETWEEN 1 AND 365),
  pourcentage_apport integer NOT NULL CHECK (pourcentage_apport BETWEEN 1 AND 100),
  limite_hebdo_kg integer NOT NULL CHECK (limite_hebdo_kg > 0),
  densite_kg_par_litre numeric NOT NULL CHECK (densite_kg_par_litre > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  updated_by integer REFERENCES account(id) ON DELETE SET NULL,
  CHECK (temperature_min < temperature_max)
);
INSERT INTO alerte_seuils (id, temperature_min, temperature_max, jours_sans_releve, jours_sans_intervention, pourcentage_apport, limite_hebdo_kg, densite_kg_par_litre)
VALUES (1, 10, 70, 14, 30, 80, 1000, 0.5);
CREATE INDEX alerte_seuils_updated_by_idx ON alerte_seuils (updated_by) WHERE updated_by IS NOT NULL;

CREATE TABLE alerte (
  id serial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('request_overdue', 'request_due_soon', 'no_reading', 'temperature_high', 'temperature_low', 'site_idle', 'intake_high')),
  objet_id integer NOT NULL,
  site_id integer NOT NULL REFERENCES site(id) ON DELETE CASCADE,
  site_composteur_id integer REFERENCES site_composteur(id) ON DELETE CASCADE,
  demande_id integer REFERENCES demande_intervention(id) ON DELETE CASCADE,
  message text NOT NULL,
  opened_at timestamptz NOT NULL,
  closed_at timestamptz,
  acknowledged_at timestamptz,
  acknowledged_by integer REFERENCES account(id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX alerte_open_uq ON alerte (kind, objet_id) WHERE closed_at IS NULL;
CREATE INDEX alerte_open_list_idx ON alerte (opened_at DESC, id DESC) WHERE closed_at IS NULL;
CREATE INDEX alerte_site_idx ON alerte (site_id, opened_at DESC);
CREATE INDEX alerte_cell_idx ON alerte (site_composteur_id) WHERE site_composteur_id IS NOT NULL;
CREATE INDEX alerte_demande_idx ON alerte (demande_id) WHERE demande_id IS NOT NULL;
CREATE INDEX alerte_acknowledged_by_idx ON alerte (acknowledged_by) WHERE acknowledged_by IS NOT NULL;

CREATE TABLE alerte_run (
  id serial PRIMARY KEY,
  trigger text NOT NULL CHECK (trigger IN ('schedule', 'manual', 'cli')),
  started_at timestamptz NOT NULL,
  finished_at timestamptz,
  ouvertes integer NOT NULL DEFAULT 0,
  fermees integer NOT NULL DEFAULT 0,
  mails integer NOT NULL DEFAULT 0
);
CREATE INDEX alerte_run_started_idx ON alerte_run (started_at DESC);

CREATE TABLE alerte_digest (
  account_id integer NOT NULL REFERENCES account(id) ON DELETE CASCADE,
  jour text NOT NULL CHECK (jour ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  last_alerte_id integer NOT NULL,
  nb integer NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, jour)
);

CREATE TABLE alerte_preference (
  account_id integer NOT NULL REFERENCES account(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('request_overdue', 'request_due_soon', 'no_reading', 'temperature_high', 'temperature_low', 'site_idle', 'intake_high')),
  PRIMARY KEY (account_id, kind)
);

CREATE INDEX intervention_temperature_idx ON intervention (site_composteur_id, date DESC, id DESC) WHERE type_action_id = 6;
`;
