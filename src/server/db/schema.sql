-- The schema of a database migrated up to migration 036 (no-intervenant-summary).
-- Generated from the catalog by `npm run db:schema` (src/server/db/schema-sql.ts); do not edit:
-- a change of schema is a new migration, then run `npm run db:schema`.

-- Extensions

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE EXTENSION IF NOT EXISTS unaccent;

-- Functions

CREATE OR REPLACE FUNCTION public.account_names_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM sites_refresh_referent(ARRAY(
    SELECT DISTINCT sr.site_id FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN site_referent sr ON sr.account_id = n.id
      WHERE (n.nom, n.prenom) IS DISTINCT FROM (o.nom, o.prenom)));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.compost_auth_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('compost_auth', TG_TABLE_NAME);
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.compost_auth_sessions_gone()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF EXISTS (SELECT 1 FROM gone WHERE expires_at > now()) THEN
    PERFORM pg_notify('compost_auth', TG_TABLE_NAME);
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.demande_intervention_counts_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_statut integer[];
  v_action integer[];
  v_site integer[];
  v_n integer[];
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE demande_intervention_count;
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    SELECT array_agg(st), array_agg(a), array_agg(s), array_agg(n) INTO v_statut, v_action, v_site, v_n
      FROM (SELECT statut_id, type_action_programmee_id, site_id, count(*)::int FROM new_rows GROUP BY 1, 2, 3) g(st, a, s, n);
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(st), array_agg(a), array_agg(s), array_agg(n) INTO v_statut, v_action, v_site, v_n
      FROM (SELECT statut_id, type_action_programmee_id, site_id, -count(*)::int FROM old_rows GROUP BY 1, 2, 3) g(st, a, s, n);
  ELSE
    SELECT array_agg(st), array_agg(a), array_agg(s), array_agg(n) INTO v_statut, v_action, v_site, v_n
      FROM (SELECT st, a, s, sum(n)::int
              FROM (SELECT statut_id, type_action_programmee_id, site_id, 1 FROM new_rows
                    UNION ALL
                    SELECT statut_id, type_action_programmee_id, site_id, -1 FROM old_rows) d(st, a, s, n)
             GROUP BY 1, 2, 3 HAVING sum(n) <> 0) g(st, a, s, n);
  END IF;
  -- Each request counts in four rows of its site: its status and action, its status with action
  -- 0, its action with status 0, and 0/0.
  INSERT INTO demande_intervention_count AS c (statut_id, type_action_programmee_id, site_id, n)
  SELECT k.st, k.a, x.s, sum(x.n)::int
    FROM unnest(v_statut, v_action, v_site, v_n) x(st, a, s, n)
    CROSS JOIN LATERAL (VALUES (x.st, x.a), (x.st, 0), (0, x.a), (0, 0)) k(st, a)
   GROUP BY k.st, k.a, x.s HAVING sum(x.n) <> 0 ORDER BY k.st, k.a, x.s
  ON CONFLICT (statut_id, type_action_programmee_id, site_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.f_natural_sort_key(text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
  SELECT coalesce(string_agg(
           CASE WHEN part ~ '^[0-9]'
             THEN lpad(least(length(num), 99)::text, 2, '0') || num
             ELSE part END,
           '' ORDER BY i), '')
    FROM regexp_matches(btrim(regexp_replace(f_unaccent(lower($1)), '[^[:alnum:]]+', ' ', 'g')), '[0-9]+|[^0-9]+', 'g')
           WITH ORDINALITY AS r(m, i),
         LATERAL (SELECT m[1] AS part, coalesce(nullif(ltrim(m[1], '0'), ''), '0') AS num) x
$function$;

CREATE OR REPLACE FUNCTION public.f_paris_datetime(timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$ SELECT to_char($1 AT TIME ZONE 'Europe/Paris', 'DD/MM/YYYY HH24:MI') $function$;

CREATE OR REPLACE FUNCTION public.f_unaccent(text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $function$;

CREATE OR REPLACE FUNCTION public.f_word_starts(text)
 RETURNS text[]
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT COST 5000
AS $function$
  SELECT coalesce(array_agg(DISTINCT p), '{}')
    FROM regexp_split_to_table($1, '[^[:alnum:]]+') w, LATERAL (VALUES (left(w, 1)), (left(w, 2))) v(p)
    WHERE w <> ''
$function$;

CREATE OR REPLACE FUNCTION public.intervention_cell_copy()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  SELECT sc.type_bac_id, sc.numero INTO NEW.type_bac_id, NEW.numero_bac FROM site_composteur sc WHERE sc.id = NEW.site_composteur_id;
  RETURN NEW;
END $function$;

CREATE OR REPLACE FUNCTION public.intervention_cells_recheck(p_cells integer[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF cardinality(p_cells) = 0 THEN RETURN; END IF;
  PERFORM 1 FROM site_composteur WHERE id = ANY(p_cells) AND a_interventions ORDER BY id FOR UPDATE;
  UPDATE site_composteur sc SET a_interventions = false
    WHERE sc.id = ANY(p_cells) AND sc.a_interventions
      AND NOT EXISTS (SELECT 1 FROM intervention i WHERE i.site_composteur_id = sc.id)
      AND NOT EXISTS (SELECT 1 FROM intervention i WHERE i.bac_destination_id = sc.id);
END $function$;

CREATE OR REPLACE FUNCTION public.intervention_log_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_action integer[];
  v_mois date[];
  v_site integer[];
  v_intervenant integer[];
  v_n integer[];
  v_q numeric[];
  v_gained integer[] := '{}';
  v_lost integer[] := '{}';
  r_action integer;
  r_mois date;
  r_site integer;
  r_intervenant integer;
  r_q numeric;
  r_cell integer;
  r_destination integer;
  v_rows integer;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE intervention_count, intervention_stats_mois, intervention_stats_mois_reseau, intervention_stats_site_mois;
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    -- One new row (every field entry): its summaries are written with one row of values each,
    -- in the same statement shape and table order as the delta below, without building it.
    SELECT type_action_id, stats_mois(date), site_id, intervenant_id, coalesce(valeur_nombre, 0), site_composteur_id, bac_destination_id, count(*) OVER ()
      INTO r_action, r_mois, r_site, r_intervenant, r_q, r_cell, r_destination, v_rows FROM new_rows LIMIT 1;
    IF v_rows = 1 THEN
      IF EXISTS (SELECT FROM site_composteur WHERE id IN (r_cell, r_destination) AND NOT a_interventions) THEN
        UPDATE site_composteur SET a_interventions = true WHERE id IN (r_cell, r_destination) AND NOT a_interventions;
      END IF;
      WITH per_site_intervenant AS (
        INSERT INTO intervention_stats_mois AS t (type_action_id, mois, site_id, intervenant_id, nb, quantite) VALUES (r_action, r_mois, r_site, r_intervenant, 1, r_q)
        ON CONFLICT (type_action_id, mois, site_id, intervenant_id) DO UPDATE SET nb = t.nb + 1, quantite = t.quantite + EXCLUDED.quantite),
      per_band AS (
        INSERT INTO intervention_stats_mois_reseau AS t (type_action_id, mois, bande, nb, quantite) VALUES (r_action, r_mois, r_site % 16, 1, r_q)
        ON CONFLICT (type_action_id, mois, bande) DO UPDATE SET nb = t.nb + 1, quantite = t.quantite + EXCLUDED.quantite),
      per_site AS (
        INSERT INTO intervention_stats_site_mois AS t (mois, site_id, nb, quantite) VALUES (r_mois, r_site, 1, r_q)
        ON CONFLICT (mois, site_id) DO UPDATE SET nb = t.nb + 1, quantite = t.quantite + EXCLUDED.quantite)
      INSERT INTO intervention_count AS t (site_id, type_action_id, n) VALUES (r_site, 0, 1), (r_site, r_action, 1)
      ON CONFLICT (site_id, type_action_id) DO UPDATE SET n = t.n + 1;
      RETURN NULL;
    END IF;
    SELECT array_agg(a), array_agg(m), array_agg(s), array_agg(i), array_agg(n), array_agg(q)
      INTO v_action, v_mois, v_site, v_intervenant, v_n, v_q
      FROM (SELECT type_action_id, stats_mois(date), site_id, intervenant_id, count(*)::int, sum(coalesce(valeur_nombre, 0))
              FROM new_rows GROUP BY 1, 2, 3, 4) g(a, m, s, i, n, q);
    v_gained := ARRAY(SELECT site_composteur_id FROM new_rows UNION SELECT bac_destination_id FROM new_rows WHERE bac_destination_id IS NOT NULL);
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(a), array_agg(m), array_agg(s), array_agg(i), array_agg(n), array_agg(q)
      INTO v_action, v_mois, v_site, v_intervenant, v_n, v_q
      FROM (SELECT type_action_id, stats_mois(date), site_id, intervenant_id, -count(*)::int, -sum(coalesce(valeur_nombre, 0))
              FROM old_rows GROUP BY 1, 2, 3, 4) g(a, m, s, i, n, q);
    v_lost := ARRAY(SELECT site_composteur_id FROM old_rows UNION SELECT bac_destination_id FROM old_rows WHERE bac_destination_id IS NOT NULL);
  ELSE
    SELECT array_agg(a), array_agg(m), array_agg(s), array_agg(i), array_agg(n), array_agg(q)
      INTO v_action, v_mois, v_site, v_intervenant, v_n, v_q
      FROM (SELECT a, m, s, i, sum(n)::int, sum(q)
              FROM (SELECT type_action_id, stats_mois(date), site_id, intervenant_id, 1, coalesce(valeur_nombre, 0) FROM new_rows
                    UNION ALL
                    SELECT type_action_id, stats_mois(date), site_id, intervenant_id, -1, -coalesce(valeur_nombre, 0) FROM old_rows) d(a, m, s, i, n, q)
             GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 OR sum(q) <> 0) g(a, m, s, i, n, q);
    v_gained := ARRAY(
      SELECT n.site_composteur_id FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.site_composteur_id <> o.site_composteur_id
      UNION
      SELECT n.bac_destination_id FROM old_rows o JOIN new_rows n ON n.id = o.id
       WHERE n.bac_destination_id IS NOT NULL AND n.bac_destination_id IS DISTINCT FROM o.bac_destination_id);
    v_lost := ARRAY(
      SELECT o.site_composteur_id FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.site_composteur_id <> o.site_composteur_id
      UNION
      SELECT o.bac_destination_id FROM old_rows o JOIN new_rows n ON n.id = o.id
       WHERE o.bac_destination_id IS NOT NULL AND o.bac_destination_id IS DISTINCT FROM n.bac_destination_id);
  END IF;

  -- A statement that changed nothing (a cell's renumbering touches no intervention) stops here.
  IF v_action IS NULL AND cardinality(v_gained) = 0 AND cardinality(v_lost) = 0 THEN
    RETURN NULL;
  END IF;
  -- Only cells getting their first intervention are written: an UPDATE of no row would still
  -- fire the cells' statement triggers, whose cell copy fires this one again.
  v_gained := ARRAY(SELECT id FROM site_composteur WHERE id = ANY(v_gained) AND NOT a_interventions ORDER BY id);
  IF cardinality(v_gained) > 0 THEN
    UPDATE site_composteur SET a_interventions = true WHERE id = ANY(v_gained) AND NOT a_interventions;
  END IF;

  WITH g AS (SELECT * FROM unnest(v_action, v_mois, v_site, v_intervenant, v_n, v_q) g(a, m, s, i, n, q)),
  per_site_intervenant AS (
    INSERT INTO intervention_stats_mois AS t (type_action_id, mois, site_id, intervenant_id, nb, quantite)
    SELECT a, m, s, i, n, q FROM g ORDER BY 1, 2, 3, 4
    ON CONFLICT (type_action_id, mois, site_id, intervenant_id) DO UPDATE SET nb = t.nb + EXCLUDED.nb, quantite = t.quantite + EXCLUDED.quantite),
  per_band AS (
    INSERT INTO intervention_stats_mois_reseau AS t (type_action_id, mois, bande, nb, quantite)
    SELECT a, m, s % 16, sum(n)::int, sum(q) FROM g GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (type_action_id, mois, bande) DO UPDATE SET nb = t.nb + EXCLUDED.nb, quantite = t.quantite + EXCLUDED.quantite),
  per_site AS (
    INSERT INTO intervention_stats_site_mois AS t (mois, site_id, nb, quantite)
    SELECT m, s, sum(n)::int, sum(q) FROM g GROUP BY 1, 2 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2
    ON CONFLICT (mois, site_id) DO UPDATE SET nb = t.nb + EXCLUDED.nb, quantite = t.quantite + EXCLUDED.quantite)
  INSERT INTO intervention_count AS t (site_id, type_action_id, n)
  SELECT s, k, sum(n)::int FROM g CROSS JOIN LATERAL (VALUES (a), (0)) x(k) GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2
  ON CONFLICT (site_id, type_action_id) DO UPDATE SET n = t.n + EXCLUDED.n;

  IF TG_OP <> 'INSERT' THEN
    WITH k AS (SELECT DISTINCT a, m, s, i FROM unnest(v_action, v_mois, v_site, v_intervenant) k(a, m, s, i)),
    per_site_intervenant AS (
      DELETE FROM intervention_stats_mois t USING k
       WHERE t.type_action_id = k.a AND t.mois = k.m AND t.site_id = k.s AND t.intervenant_id = k.i AND t.nb = 0),
    per_band AS (
      DELETE FROM intervention_stats_mois_reseau t USING (SELECT DISTINCT a, m, s % 16 AS b FROM k) k
       WHERE t.type_action_id = k.a AND t.mois = k.m AND t.bande = k.b AND t.nb = 0)
    DELETE FROM intervention_stats_site_mois t USING (SELECT DISTINCT m, s FROM k) k
     WHERE t.mois = k.m AND t.site_id = k.s AND t.nb = 0;
    PERFORM intervention_cells_recheck(v_lost);
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.site_cells_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM sites_refresh_cells(ARRAY(SELECT DISTINCT site_id FROM old_rows));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.site_cells_inserted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM sites_refresh_cells(ARRAY(SELECT DISTINCT site_id FROM new_rows));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.site_cells_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM sites_refresh_cells(ARRAY(
    SELECT o.site_id FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.site_id, o.type_composteur_id, o.actif) IS DISTINCT FROM (n.site_id, n.type_composteur_id, n.actif)
    UNION
    SELECT n.site_id FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.site_id, o.type_composteur_id, o.actif) IS DISTINCT FROM (n.site_id, n.type_composteur_id, n.actif)));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.site_composteur_cell_copy()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  UPDATE intervention i SET type_bac_id = n.type_bac_id, numero_bac = n.numero
    FROM new_cells n JOIN old_cells o ON o.id = n.id
    WHERE i.site_composteur_id = n.id AND (o.type_bac_id, o.numero) IS DISTINCT FROM (n.type_bac_id, n.numero);
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.site_conventions_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM sites_refresh_convention(ARRAY(SELECT DISTINCT site_id FROM old_rows));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.site_conventions_inserted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM sites_refresh_convention(ARRAY(SELECT DISTINCT site_id FROM new_rows));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.site_conventions_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM sites_refresh_convention(ARRAY(SELECT site_id FROM old_rows UNION SELECT site_id FROM new_rows));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.site_list_labels()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  -- An unknown id keeps '' so that the foreign key, not this trigger, reports it.
  NEW.type_libelle := coalesce((SELECT libelle FROM type_site WHERE id = NEW.type_site_id), '');
  NEW.statut_libelle := coalesce((SELECT libelle FROM statut WHERE id = NEW.statut_id), '');
  RETURN NEW;
END $function$;

CREATE OR REPLACE FUNCTION public.site_referents_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM sites_refresh_referent(ARRAY(SELECT DISTINCT site_id FROM old_rows));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.site_referents_inserted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM sites_refresh_referent(ARRAY(SELECT DISTINCT site_id FROM new_rows));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.site_referents_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM sites_refresh_referent(ARRAY(SELECT site_id FROM old_rows UNION SELECT site_id FROM new_rows));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.sites_refresh_cells(p_sites integer[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF cardinality(p_sites) = 0 THEN RETURN; END IF;
  UPDATE site s SET volume = c.v, nb_composteurs = c.n
    FROM (SELECT x.id, coalesce(sum(tc.volume) FILTER (WHERE sc.actif), 0)::int AS v, (count(sc.id) FILTER (WHERE sc.actif))::int AS n
            FROM unnest(p_sites) x(id)
            LEFT JOIN site_composteur sc ON sc.site_id = x.id
            LEFT JOIN type_composteur tc ON tc.id = sc.type_composteur_id
            GROUP BY x.id) c
    WHERE s.id = c.id AND (s.volume, s.nb_composteurs) IS DISTINCT FROM (c.v, c.n);
END
$function$;

CREATE OR REPLACE FUNCTION public.sites_refresh_convention(p_sites integer[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF cardinality(p_sites) = 0 THEN RETURN; END IF;
  UPDATE site s SET date_convention = c.d
    FROM (SELECT x.id, max(sc.date_convention) AS d
            FROM unnest(p_sites) x(id) LEFT JOIN site_convention sc ON sc.site_id = x.id
            GROUP BY x.id) c
    WHERE s.id = c.id AND s.date_convention IS DISTINCT FROM c.d;
END
$function$;

CREATE OR REPLACE FUNCTION public.sites_refresh_referent(p_sites integer[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF cardinality(p_sites) = 0 THEN RETURN; END IF;
  UPDATE site s SET referent = r.txt
    FROM (SELECT x.id, string_agg(trim(a.nom || ' ' || coalesce(a.prenom, '')), ', ' ORDER BY a.nom, a.prenom, a.id) AS txt
            FROM unnest(p_sites) x(id)
            LEFT JOIN (site_referent sr JOIN account a ON a.id = sr.account_id) ON sr.site_id = x.id
            GROUP BY x.id) r
    WHERE s.id = r.id AND s.referent IS DISTINCT FROM r.txt;
END
$function$;

CREATE OR REPLACE FUNCTION public.stats_mois(timestamp with time zone)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$ SELECT date_trunc('month', $1 AT TIME ZONE 'Europe/Paris')::date $function$;

CREATE OR REPLACE FUNCTION public.statut_libelles_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  UPDATE site s SET statut_libelle = n.libelle
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE n.libelle IS DISTINCT FROM o.libelle AND s.statut_id = n.id AND s.statut_libelle IS DISTINCT FROM n.libelle;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.type_composteur_volumes_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM sites_refresh_cells(ARRAY(
    SELECT DISTINCT sc.site_id FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN site_composteur sc ON sc.type_composteur_id = n.id
      WHERE n.volume IS DISTINCT FROM o.volume));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.type_site_libelles_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  UPDATE site s SET type_libelle = n.libelle
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE n.libelle IS DISTINCT FROM o.libelle AND s.type_site_id = n.id AND s.type_libelle IS DISTINCT FROM n.libelle;
  RETURN NULL;
END $function$;

-- Tables

CREATE TABLE account (
  id integer DEFAULT nextval('account_id_seq'::regclass) NOT NULL,
  kind text NOT NULL,
  identifiant text,
  email text NOT NULL,
  password_hash text,
  type_user_id integer,
  organisme text,
  nom text NOT NULL,
  prenom text,
  tel text,
  photo text,
  email_valide boolean DEFAULT false NOT NULL,
  actif boolean DEFAULT false NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  search_text text GENERATED ALWAYS AS (f_unaccent(lower(((((((nom || ''::text) || COALESCE(prenom, ''::text)) || ''::text) || COALESCE(organisme, ''::text)) || ''::text) || email)))) STORED,
  intervention_sort_key text GENERATED ALWAYS AS (f_unaccent(lower(((nom || ' '::text) || COALESCE(prenom, ''::text))))) STORED,
  tournee_depart_latitude double precision,
  tournee_depart_longitude double precision,
  tri_nom text GENERATED ALWAYS AS (f_unaccent(lower(nom))) STORED,
  tri_prenom text GENERATED ALWAYS AS (f_unaccent(lower(COALESCE(prenom, ''::text)))) STORED,
  tri_organisme text GENERATED ALWAYS AS (f_unaccent(lower(COALESCE(organisme, ''::text)))) STORED,
  CONSTRAINT account_pkey PRIMARY KEY (id),
  CONSTRAINT account_kind_check CHECK (kind = ANY (ARRAY['user'::text, 'agent'::text, 'intervenant'::text])),
  CONSTRAINT account_tournee_depart_check CHECK ((tournee_depart_latitude IS NULL) = (tournee_depart_longitude IS NULL) AND (tournee_depart_latitude IS NULL OR tournee_depart_latitude >= '-90'::integer::double precision AND tournee_depart_latitude <= 90::double precision) AND (tournee_depart_longitude IS NULL OR tournee_depart_longitude >= '-180'::integer::double precision AND tournee_depart_longitude <= 180::double precision)),
  CONSTRAINT account_type_user_id_fkey FOREIGN KEY (type_user_id) REFERENCES type_user(id)
);

CREATE TABLE account_role (
  account_id integer NOT NULL,
  role_id integer NOT NULL,
  CONSTRAINT account_role_pkey PRIMARY KEY (account_id, role_id),
  CONSTRAINT account_role_account_id_fkey FOREIGN KEY (account_id) REFERENCES account(id) ON DELETE CASCADE,
  CONSTRAINT account_role_role_id_fkey FOREIGN KEY (role_id) REFERENCES role(id)
);

CREATE TABLE account_token (
  token_hash text NOT NULL,
  account_id integer NOT NULL,
  purpose text NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  used_at timestamp with time zone,
  CONSTRAINT account_token_pkey PRIMARY KEY (token_hash),
  CONSTRAINT account_token_account_id_fkey FOREIGN KEY (account_id) REFERENCES account(id) ON DELETE CASCADE,
  CONSTRAINT account_token_purpose_check CHECK (purpose = ANY (ARRAY['confirm'::text, 'reset'::text]))
);

CREATE TABLE adresse_point (
  code_insee text NOT NULL,
  voie_cle text NOT NULL,
  numero_cle text NOT NULL,
  longitude double precision NOT NULL,
  latitude double precision NOT NULL,
  CONSTRAINT adresse_point_pkey PRIMARY KEY (code_insee, voie_cle, numero_cle),
  CONSTRAINT adresse_point_latitude_check CHECK (latitude >= '-90'::integer::double precision AND latitude <= 90::double precision),
  CONSTRAINT adresse_point_longitude_check CHECK (longitude >= '-180'::integer::double precision AND longitude <= 180::double precision)
);

CREATE TABLE alerte (
  id integer DEFAULT nextval('alerte_id_seq'::regclass) NOT NULL,
  kind text NOT NULL,
  objet_id integer NOT NULL,
  site_id integer NOT NULL,
  site_composteur_id integer,
  demande_id integer,
  message text NOT NULL,
  opened_at timestamp with time zone NOT NULL,
  closed_at timestamp with time zone,
  acknowledged_at timestamp with time zone,
  acknowledged_by integer,
  CONSTRAINT alerte_pkey PRIMARY KEY (id),
  CONSTRAINT alerte_acknowledged_by_fkey FOREIGN KEY (acknowledged_by) REFERENCES account(id) ON DELETE SET NULL,
  CONSTRAINT alerte_demande_id_fkey FOREIGN KEY (demande_id) REFERENCES demande_intervention(id) ON DELETE CASCADE,
  CONSTRAINT alerte_kind_check CHECK (kind = ANY (ARRAY['request_overdue'::text, 'request_due_soon'::text, 'no_reading'::text, 'temperature_high'::text, 'temperature_low'::text, 'site_idle'::text, 'intake_high'::text, 'public_reports'::text, 'permanence_sans_ouvreur'::text])),
  CONSTRAINT alerte_site_composteur_id_fkey FOREIGN KEY (site_composteur_id) REFERENCES site_composteur(id) ON DELETE CASCADE,
  CONSTRAINT alerte_site_id_fkey FOREIGN KEY (site_id) REFERENCES site(id) ON DELETE CASCADE
);

CREATE TABLE alerte_cle (
  id integer NOT NULL,
  secret text NOT NULL,
  CONSTRAINT alerte_cle_pkey PRIMARY KEY (id),
  CONSTRAINT alerte_cle_id_check CHECK (id = 1),
  CONSTRAINT alerte_cle_secret_check CHECK (length(secret) >= 64)
);

CREATE TABLE alerte_digest (
  account_id integer NOT NULL,
  jour text NOT NULL,
  last_alerte_id integer NOT NULL,
  nb integer NOT NULL,
  sent_at timestamp with time zone NOT NULL,
  CONSTRAINT alerte_digest_pkey PRIMARY KEY (account_id, jour),
  CONSTRAINT alerte_digest_account_id_fkey FOREIGN KEY (account_id) REFERENCES account(id) ON DELETE CASCADE,
  CONSTRAINT alerte_digest_jour_check CHECK (jour ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'::text)
);

CREATE TABLE alerte_preference (
  account_id integer NOT NULL,
  kind text NOT NULL,
  CONSTRAINT alerte_preference_pkey PRIMARY KEY (account_id, kind),
  CONSTRAINT alerte_preference_account_id_fkey FOREIGN KEY (account_id) REFERENCES account(id) ON DELETE CASCADE,
  CONSTRAINT alerte_preference_kind_check CHECK (kind = ANY (ARRAY['request_overdue'::text, 'request_due_soon'::text, 'no_reading'::text, 'temperature_high'::text, 'temperature_low'::text, 'site_idle'::text, 'intake_high'::text, 'public_reports'::text, 'permanence_sans_ouvreur'::text]))
);

CREATE TABLE alerte_run (
  id integer DEFAULT nextval('alerte_run_id_seq'::regclass) NOT NULL,
  trigger text NOT NULL,
  started_at timestamp with time zone NOT NULL,
  finished_at timestamp with time zone,
  ouvertes integer DEFAULT 0 NOT NULL,
  fermees integer DEFAULT 0 NOT NULL,
  mails integer DEFAULT 0 NOT NULL,
  CONSTRAINT alerte_run_pkey PRIMARY KEY (id),
  CONSTRAINT alerte_run_trigger_check CHECK (trigger = ANY (ARRAY['schedule'::text, 'manual'::text, 'cli'::text]))
);

CREATE TABLE alerte_seuils (
  id integer NOT NULL,
  temperature_min numeric NOT NULL,
  temperature_max numeric NOT NULL,
  jours_sans_releve integer NOT NULL,
  jours_sans_intervention integer NOT NULL,
  pourcentage_apport integer NOT NULL,
  limite_hebdo_kg integer NOT NULL,
  densite_kg_par_litre numeric NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone,
  updated_by integer,
  kg_par_seau numeric DEFAULT 2 NOT NULL,
  CONSTRAINT alerte_seuils_pkey PRIMARY KEY (id),
  CONSTRAINT alerte_seuils_check CHECK (temperature_min < temperature_max),
  CONSTRAINT alerte_seuils_densite_kg_par_litre_check CHECK (densite_kg_par_litre > 0::numeric),
  CONSTRAINT alerte_seuils_id_check CHECK (id = 1),
  CONSTRAINT alerte_seuils_jours_sans_intervention_check CHECK (jours_sans_intervention >= 1 AND jours_sans_intervention <= 365),
  CONSTRAINT alerte_seuils_jours_sans_releve_check CHECK (jours_sans_releve >= 1 AND jours_sans_releve <= 365),
  CONSTRAINT alerte_seuils_kg_par_seau_check CHECK (kg_par_seau > 0::numeric AND kg_par_seau <= 50::numeric),
  CONSTRAINT alerte_seuils_limite_hebdo_kg_check CHECK (limite_hebdo_kg > 0),
  CONSTRAINT alerte_seuils_pourcentage_apport_check CHECK (pourcentage_apport >= 1 AND pourcentage_apport <= 100),
  CONSTRAINT alerte_seuils_updated_by_fkey FOREIGN KEY (updated_by) REFERENCES account(id) ON DELETE SET NULL
);

CREATE TABLE demande_intervention (
  id integer DEFAULT nextval('demande_intervention_id_seq'::regclass) NOT NULL,
  site_id integer NOT NULL,
  site_composteur_id integer NOT NULL,
  statut_id integer NOT NULL,
  type_action_programmee_id integer NOT NULL,
  intervention_declenchante_id integer,
  intervention_realisee_id integer,
  date_creation timestamp with time zone DEFAULT now() NOT NULL,
  date_echeance timestamp with time zone NOT NULL,
  date_programmee timestamp with time zone,
  programme_par_id integer,
  date_annulation timestamp with time zone,
  annulee_par_id integer,
  motif_annulation text,
  CONSTRAINT demande_intervention_pkey PRIMARY KEY (id),
  CONSTRAINT demande_declenchante_fk FOREIGN KEY (intervention_declenchante_id) REFERENCES intervention(id) ON DELETE SET NULL,
  CONSTRAINT demande_intervention_annulee_par_id_fkey FOREIGN KEY (annulee_par_id) REFERENCES account(id),
  CONSTRAINT demande_intervention_motif_annulation_check CHECK (char_length(motif_annulation) <= 500),
  CONSTRAINT demande_intervention_programme_par_id_fkey FOREIGN KEY (programme_par_id) REFERENCES account(id),
  CONSTRAINT demande_intervention_site_composteur_id_fkey FOREIGN KEY (site_composteur_id) REFERENCES site_composteur(id),
  CONSTRAINT demande_intervention_site_id_fkey FOREIGN KEY (site_id) REFERENCES site(id),
  CONSTRAINT demande_intervention_statut_id_fkey FOREIGN KEY (statut_id) REFERENCES statut(id),
  CONSTRAINT demande_intervention_type_action_programmee_id_fkey FOREIGN KEY (type_action_programmee_id) REFERENCES type_action(id),
  CONSTRAINT demande_realisee_fk FOREIGN KEY (intervention_realisee_id) REFERENCES intervention(id) ON DELETE SET NULL
);

CREATE TABLE demande_intervention_count (
  statut_id integer NOT NULL,
  type_action_programmee_id integer NOT NULL,
  site_id integer NOT NULL,
  n integer NOT NULL,
  CONSTRAINT demande_intervention_count_pkey PRIMARY KEY (statut_id, type_action_programmee_id, site_id)
);

CREATE TABLE demande_rule (
  id integer DEFAULT nextval('demande_rule_id_seq'::regclass) NOT NULL,
  type_action_declenchante_id integer NOT NULL,
  id_constante integer,
  type_action_programmee_id integer NOT NULL,
  delai_jours integer NOT NULL,
  CONSTRAINT demande_rule_pkey PRIMARY KEY (id),
  CONSTRAINT demande_rule_delai_jours_check CHECK (delai_jours >= 0),
  CONSTRAINT demande_rule_type_action_declenchante_id_fkey FOREIGN KEY (type_action_declenchante_id) REFERENCES type_action(id),
  CONSTRAINT demande_rule_type_action_programmee_id_fkey FOREIGN KEY (type_action_programmee_id) REFERENCES type_action(id)
);

CREATE TABLE demande_signalement (
  demande_intervention_id integer NOT NULL,
  intervention_id integer NOT NULL,
  date_echeance timestamp with time zone NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT demande_signalement_pkey PRIMARY KEY (demande_intervention_id, intervention_id),
  CONSTRAINT demande_signalement_demande_intervention_id_fkey FOREIGN KEY (demande_intervention_id) REFERENCES demande_intervention(id) ON DELETE CASCADE,
  CONSTRAINT demande_signalement_intervention_id_fkey FOREIGN KEY (intervention_id) REFERENCES intervention(id) ON DELETE CASCADE
);

CREATE TABLE demandeur (
  id integer DEFAULT nextval('demandeur_id_seq'::regclass) NOT NULL,
  date timestamp with time zone,
  civilite text NOT NULL,
  nom text NOT NULL,
  prenom text NOT NULL,
  fonction text NOT NULL,
  precisions text,
  telephone text NOT NULL,
  telephone2 text,
  email text,
  periode_implantation text,
  annee_implantation integer,
  CONSTRAINT demandeur_pkey PRIMARY KEY (id)
);

CREATE TABLE foyer (
  id integer DEFAULT nextval('foyer_id_seq'::regclass) NOT NULL,
  site_id integer NOT NULL,
  prenom text,
  email text,
  personnes integer NOT NULL,
  bioseau boolean NOT NULL,
  statut text DEFAULT 'en_attente'::text NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  traite_le timestamp with time zone,
  traite_par integer,
  nouvelles boolean DEFAULT true NOT NULL,
  CONSTRAINT foyer_pkey PRIMARY KEY (id),
  CONSTRAINT foyer_email_check CHECK (char_length(email) <= 254),
  CONSTRAINT foyer_personnes_check CHECK (personnes >= 1 AND personnes <= 20),
  CONSTRAINT foyer_prenom_check CHECK (char_length(prenom) <= 100),
  CONSTRAINT foyer_site_id_fkey FOREIGN KEY (site_id) REFERENCES site(id) ON DELETE CASCADE,
  CONSTRAINT foyer_statut_check CHECK (statut = ANY (ARRAY['en_attente'::text, 'confirme'::text, 'refuse'::text])),
  CONSTRAINT foyer_traite_par_fkey FOREIGN KEY (traite_par) REFERENCES account(id) ON DELETE SET NULL,
  CONSTRAINT foyer_traitement_check CHECK ((statut = 'en_attente'::text) = (traite_le IS NULL))
);

CREATE TABLE foyer_depart (
  id integer DEFAULT nextval('foyer_depart_id_seq'::regclass) NOT NULL,
  site_id integer NOT NULL,
  personnes integer NOT NULL,
  confirme_le timestamp with time zone NOT NULL,
  parti_le timestamp with time zone NOT NULL,
  CONSTRAINT foyer_depart_pkey PRIMARY KEY (id),
  CONSTRAINT foyer_depart_check CHECK (parti_le >= confirme_le),
  CONSTRAINT foyer_depart_personnes_check CHECK (personnes >= 1 AND personnes <= 20),
  CONSTRAINT foyer_depart_site_id_fkey FOREIGN KEY (site_id) REFERENCES site(id) ON DELETE CASCADE
);

CREATE TABLE foyer_nouvelle (
  id integer DEFAULT nextval('foyer_nouvelle_id_seq'::regclass) NOT NULL,
  site_id integer NOT NULL,
  jour date NOT NULL,
  sujet text NOT NULL,
  texte text NOT NULL,
  envoye_par integer,
  envoye_le timestamp with time zone DEFAULT now() NOT NULL,
  destinataires integer NOT NULL,
  CONSTRAINT foyer_nouvelle_pkey PRIMARY KEY (id),
  CONSTRAINT foyer_nouvelle_destinataires_check CHECK (destinataires >= 0),
  CONSTRAINT foyer_nouvelle_envoye_par_fkey FOREIGN KEY (envoye_par) REFERENCES account(id) ON DELETE SET NULL,
  CONSTRAINT foyer_nouvelle_site_id_fkey FOREIGN KEY (site_id) REFERENCES site(id) ON DELETE CASCADE,
  CONSTRAINT foyer_nouvelle_sujet_check CHECK (char_length(sujet) >= 1 AND char_length(sujet) <= 120),
  CONSTRAINT foyer_nouvelle_texte_check CHECK (char_length(texte) >= 1 AND char_length(texte) <= 2000),
  CONSTRAINT foyer_nouvelle_un_par_jour UNIQUE (site_id, jour)
);

CREATE TABLE intervention (
  id integer DEFAULT nextval('intervention_id_seq'::regclass) NOT NULL,
  client_id uuid,
  date timestamp with time zone NOT NULL,
  site_id integer NOT NULL,
  site_composteur_id integer NOT NULL,
  type_action_id integer NOT NULL,
  valeur_nombre numeric,
  valeur_constante integer,
  valeur_texte text,
  bac_destination_id integer,
  observations text,
  intervenant_id integer NOT NULL,
  modification_agent_id integer,
  modified_at timestamp with time zone,
  demande_intervention_id integer,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  type_bac_id integer,
  numero_bac integer,
  date_paris text GENERATED ALWAYS AS (f_paris_datetime(date)) STORED,
  CONSTRAINT intervention_pkey PRIMARY KEY (id),
  CONSTRAINT intervention_bac_destination_id_fkey FOREIGN KEY (bac_destination_id) REFERENCES site_composteur(id),
  CONSTRAINT intervention_client_id_fkey FOREIGN KEY (client_id) REFERENCES intervention_submission(client_id),
  CONSTRAINT intervention_demande_intervention_id_fkey FOREIGN KEY (demande_intervention_id) REFERENCES demande_intervention(id),
  CONSTRAINT intervention_intervenant_id_fkey FOREIGN KEY (intervenant_id) REFERENCES account(id),
  CONSTRAINT intervention_modification_agent_id_fkey FOREIGN KEY (modification_agent_id) REFERENCES account(id),
  CONSTRAINT intervention_site_composteur_id_fkey FOREIGN KEY (site_composteur_id) REFERENCES site_composteur(id),
  CONSTRAINT intervention_site_id_fkey FOREIGN KEY (site_id) REFERENCES site(id),
  CONSTRAINT intervention_type_action_id_fkey FOREIGN KEY (type_action_id) REFERENCES type_action(id)
);

CREATE TABLE intervention_audit (
  id integer DEFAULT nextval('intervention_audit_id_seq'::regclass) NOT NULL,
  intervention_id integer NOT NULL,
  action text NOT NULL,
  agent_id integer,
  agent_nom text NOT NULL,
  at timestamp with time zone DEFAULT now() NOT NULL,
  before jsonb NOT NULL,
  after jsonb,
  CONSTRAINT intervention_audit_pkey PRIMARY KEY (id),
  CONSTRAINT intervention_audit_action_check CHECK (action = ANY (ARRAY['update'::text, 'delete'::text])),
  CONSTRAINT intervention_audit_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES account(id) ON DELETE SET NULL
);

CREATE TABLE intervention_count (
  site_id integer NOT NULL,
  type_action_id integer NOT NULL,
  n integer NOT NULL,
  CONSTRAINT intervention_count_pkey PRIMARY KEY (site_id, type_action_id)
);

CREATE TABLE intervention_photo (
  id integer DEFAULT nextval('intervention_photo_id_seq'::regclass) NOT NULL,
  client_id uuid NOT NULL,
  intervention_id integer NOT NULL,
  envoye_par_id integer,
  largeur integer NOT NULL,
  hauteur integer NOT NULL,
  taille integer NOT NULL,
  taille_miniature integer NOT NULL,
  empreinte text NOT NULL,
  image bytea NOT NULL,
  miniature bytea NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT intervention_photo_pkey PRIMARY KEY (id),
  CONSTRAINT intervention_photo_client_id_key UNIQUE (client_id),
  CONSTRAINT intervention_photo_envoye_par_id_fkey FOREIGN KEY (envoye_par_id) REFERENCES account(id) ON DELETE SET NULL,
  CONSTRAINT intervention_photo_hauteur_check CHECK (hauteur > 0),
  CONSTRAINT intervention_photo_intervention_id_fkey FOREIGN KEY (intervention_id) REFERENCES intervention(id) ON DELETE CASCADE,
  CONSTRAINT intervention_photo_largeur_check CHECK (largeur > 0),
  CONSTRAINT intervention_photo_taille_check CHECK (taille > 0),
  CONSTRAINT intervention_photo_taille_miniature_check CHECK (taille_miniature > 0)
);

CREATE TABLE intervention_stats_mois (
  type_action_id integer NOT NULL,
  mois date NOT NULL,
  site_id integer NOT NULL,
  intervenant_id integer NOT NULL,
  nb integer NOT NULL,
  quantite numeric NOT NULL,
  CONSTRAINT intervention_stats_mois_pkey PRIMARY KEY (type_action_id, mois, site_id, intervenant_id)
);

CREATE TABLE intervention_stats_mois_reseau (
  type_action_id integer NOT NULL,
  mois date NOT NULL,
  bande integer NOT NULL,
  nb integer NOT NULL,
  quantite numeric NOT NULL,
  CONSTRAINT intervention_stats_mois_reseau_pkey PRIMARY KEY (type_action_id, mois, bande)
);

CREATE TABLE intervention_stats_site_mois (
  mois date NOT NULL,
  site_id integer NOT NULL,
  nb integer NOT NULL,
  quantite numeric NOT NULL,
  CONSTRAINT intervention_stats_site_mois_pkey PRIMARY KEY (mois, site_id)
);

CREATE TABLE intervention_submission (
  client_id uuid NOT NULL,
  account_id integer NOT NULL,
  payload_hash text NOT NULL,
  result jsonb NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT intervention_submission_pkey PRIMARY KEY (client_id),
  CONSTRAINT intervention_submission_account_id_fkey FOREIGN KEY (account_id) REFERENCES account(id)
);

CREATE TABLE login_attempt (
  kind text NOT NULL,
  key text NOT NULL,
  window_start timestamp with time zone NOT NULL,
  count integer NOT NULL,
  CONSTRAINT login_attempt_pkey PRIMARY KEY (kind, key)
);

CREATE TABLE permanence (
  id integer DEFAULT nextval('permanence_id_seq'::regclass) NOT NULL,
  site_id integer NOT NULL,
  serie_id integer,
  debut timestamp with time zone NOT NULL,
  fin timestamp with time zone NOT NULL,
  titre text,
  message text,
  apres_coup boolean DEFAULT false NOT NULL,
  created_by integer,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  annulee_le timestamp with time zone,
  annulee_par integer,
  motif_annulation text,
  bilan_foyers integer,
  bilan_seaux integer,
  bilan_kg numeric(9,2),
  bilan_kg_estime boolean,
  bilan_temperature numeric(4,1),
  bilan_client_id uuid,
  bilan_par integer,
  bilan_le timestamp with time zone,
  CONSTRAINT permanence_pkey PRIMARY KEY (id),
  CONSTRAINT permanence_annulation_check CHECK ((annulee_le IS NULL) = (motif_annulation IS NULL)),
  CONSTRAINT permanence_annulee_par_fkey FOREIGN KEY (annulee_par) REFERENCES account(id) ON DELETE SET NULL,
  CONSTRAINT permanence_bilan_check CHECK ((bilan_le IS NULL) = (bilan_foyers IS NULL) AND (bilan_le IS NULL) = (bilan_seaux IS NULL) AND (bilan_le IS NULL) = (bilan_kg IS NULL) AND (bilan_le IS NULL) = (bilan_kg_estime IS NULL)),
  CONSTRAINT permanence_bilan_client_id_key UNIQUE (bilan_client_id),
  CONSTRAINT permanence_bilan_foyers_check CHECK (bilan_foyers >= 0),
  CONSTRAINT permanence_bilan_kg_check CHECK (bilan_kg >= 0::numeric),
  CONSTRAINT permanence_bilan_par_fkey FOREIGN KEY (bilan_par) REFERENCES account(id) ON DELETE SET NULL,
  CONSTRAINT permanence_bilan_seaux_check CHECK (bilan_seaux >= 0),
  CONSTRAINT permanence_bilan_temperature_check CHECK (bilan_temperature >= '-30'::integer::numeric AND bilan_temperature <= 99::numeric),
  CONSTRAINT permanence_created_by_fkey FOREIGN KEY (created_by) REFERENCES account(id) ON DELETE SET NULL,
  CONSTRAINT permanence_duree_check CHECK (fin > debut AND fin <= (debut + '24:00:00'::interval)),
  CONSTRAINT permanence_message_check CHECK (char_length(message) <= 1000),
  CONSTRAINT permanence_motif_annulation_check CHECK (char_length(motif_annulation) <= 500),
  CONSTRAINT permanence_serie_id_fkey FOREIGN KEY (serie_id) REFERENCES permanence_serie(id) ON DELETE SET NULL,
  CONSTRAINT permanence_site_id_fkey FOREIGN KEY (site_id) REFERENCES site(id) ON DELETE CASCADE,
  CONSTRAINT permanence_titre_check CHECK (char_length(titre) <= 120)
);

CREATE TABLE permanence_ouvreur (
  permanence_id integer NOT NULL,
  account_id integer NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  rappel_envoye_le timestamp with time zone,
  CONSTRAINT permanence_ouvreur_pkey PRIMARY KEY (permanence_id, account_id),
  CONSTRAINT permanence_ouvreur_account_id_fkey FOREIGN KEY (account_id) REFERENCES account(id) ON DELETE CASCADE,
  CONSTRAINT permanence_ouvreur_permanence_id_fkey FOREIGN KEY (permanence_id) REFERENCES permanence(id) ON DELETE CASCADE
);

CREATE TABLE permanence_serie (
  id integer DEFAULT nextval('permanence_serie_id_seq'::regclass) NOT NULL,
  site_id integer NOT NULL,
  frequence text NOT NULL,
  jusqua date NOT NULL,
  created_by integer,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT permanence_serie_pkey PRIMARY KEY (id),
  CONSTRAINT permanence_serie_created_by_fkey FOREIGN KEY (created_by) REFERENCES account(id) ON DELETE SET NULL,
  CONSTRAINT permanence_serie_frequence_check CHECK (frequence = ANY (ARRAY['hebdomadaire'::text, 'bimensuelle'::text, 'mensuelle'::text])),
  CONSTRAINT permanence_serie_site_id_fkey FOREIGN KEY (site_id) REFERENCES site(id) ON DELETE CASCADE
);

CREATE TABLE role (
  id integer NOT NULL,
  code text NOT NULL,
  libelle text NOT NULL,
  CONSTRAINT role_pkey PRIMARY KEY (id),
  CONSTRAINT role_code_key UNIQUE (code)
);

CREATE TABLE rue (
  id integer DEFAULT nextval('rue_id_seq'::regclass) NOT NULL,
  code_insee text NOT NULL,
  nom text NOT NULL,
  CONSTRAINT rue_pkey PRIMARY KEY (id),
  CONSTRAINT rue_code_insee_nom_key UNIQUE (code_insee, nom)
);

CREATE TABLE schema_migration (
  id integer NOT NULL,
  name text NOT NULL,
  applied_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT schema_migration_pkey PRIMARY KEY (id)
);

CREATE TABLE session (
  id_hash text NOT NULL,
  account_id integer NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT session_pkey PRIMARY KEY (id_hash),
  CONSTRAINT session_account_id_fkey FOREIGN KEY (account_id) REFERENCES account(id) ON DELETE CASCADE
);

CREATE TABLE signalement_public (
  id integer DEFAULT nextval('signalement_public_id_seq'::regclass) NOT NULL,
  site_id integer NOT NULL,
  categorie text NOT NULL,
  texte text NOT NULL,
  reponse_demandee boolean NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  statut text DEFAULT 'nouveau'::text NOT NULL,
  traite_le timestamp with time zone,
  traite_par_id integer,
  motif text,
  demande_intervention_id integer,
  occurrences integer DEFAULT 1 NOT NULL,
  visible_le timestamp with time zone DEFAULT now() NOT NULL,
  fusionne_dans_id integer,
  CONSTRAINT signalement_public_pkey PRIMARY KEY (id),
  CONSTRAINT signalement_public_categorie_check CHECK (categorie = ANY (ARRAY['bac_plein'::text, 'odeur'::text, 'nuisibles'::text, 'degradation'::text, 'autre'::text])),
  CONSTRAINT signalement_public_demande_intervention_id_fkey FOREIGN KEY (demande_intervention_id) REFERENCES demande_intervention(id) ON DELETE SET NULL,
  CONSTRAINT signalement_public_fusionne_dans_id_fkey FOREIGN KEY (fusionne_dans_id) REFERENCES signalement_public(id) ON DELETE SET NULL,
  CONSTRAINT signalement_public_occurrences_check CHECK (occurrences >= 1),
  CONSTRAINT signalement_public_site_id_fkey FOREIGN KEY (site_id) REFERENCES site(id) ON DELETE CASCADE,
  CONSTRAINT signalement_public_statut_check CHECK (statut = ANY (ARRAY['nouveau'::text, 'transforme'::text, 'classe'::text])),
  CONSTRAINT signalement_public_traite_par_id_fkey FOREIGN KEY (traite_par_id) REFERENCES account(id) ON DELETE SET NULL
);

CREATE TABLE signalement_public_contact (
  signalement_id integer NOT NULL,
  email text NOT NULL,
  CONSTRAINT signalement_public_contact_pkey PRIMARY KEY (signalement_id, email),
  CONSTRAINT signalement_public_contact_signalement_id_fkey FOREIGN KEY (signalement_id) REFERENCES signalement_public(id) ON DELETE CASCADE
);

CREATE TABLE site (
  id integer DEFAULT nextval('site_id_seq'::regclass) NOT NULL,
  code text NOT NULL,
  nom text,
  ville text NOT NULL,
  cp text NOT NULL,
  code_insee text,
  adresse text NOT NULL,
  numero text,
  complement text,
  type_site_id integer NOT NULL,
  observations text,
  cadena text,
  date_implantation timestamp with time zone,
  date_inauguration timestamp with time zone,
  statut_id integer NOT NULL,
  demandeur_id integer,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  type_libelle text DEFAULT ''::text NOT NULL,
  statut_libelle text DEFAULT ''::text NOT NULL,
  referent text,
  volume integer DEFAULT 0 NOT NULL,
  nb_composteurs integer DEFAULT 0 NOT NULL,
  date_convention timestamp with time zone,
  nom_code_text text GENERATED ALWAYS AS (f_unaccent(lower(((COALESCE(nom, ''::text) || ' '::text) || code)))) STORED,
  adresse_text text GENERATED ALWAYS AS (f_unaccent(lower((COALESCE((numero || ' '::text), ''::text) || adresse)))) STORED,
  search_text text GENERATED ALWAYS AS (f_unaccent(lower(((((((((((((COALESCE(nom, ''::text) || ' '::text) || code) || ''::text) || ville) || ''::text) || adresse) || ''::text) || COALESCE(complement, ''::text)) || ''::text) || COALESCE(cadena, ''::text)) || ''::text) || type_libelle)))) STORED,
  intervention_sort_key text GENERATED ALWAYS AS (f_unaccent(lower(COALESCE(NULLIF(nom, ''::text), code)))) STORED,
  horaires text,
  consignes text,
  latitude double precision,
  longitude double precision,
  coordonnees_source text,
  open_data boolean DEFAULT true NOT NULL,
  nom_tri text COLLATE "C" GENERATED ALWAYS AS (f_natural_sort_key(COALESCE(NULLIF(nom, ''::text), code))) STORED,
  CONSTRAINT site_pkey PRIMARY KEY (id),
  CONSTRAINT site_code_key UNIQUE (code),
  CONSTRAINT site_coordonnees_paire CHECK ((latitude IS NULL) = (longitude IS NULL) AND (latitude IS NULL) = (coordonnees_source IS NULL)),
  CONSTRAINT site_coordonnees_source_check CHECK (coordonnees_source = ANY (ARRAY['ban'::text, 'saisie'::text])),
  CONSTRAINT site_demandeur_id_fkey FOREIGN KEY (demandeur_id) REFERENCES demandeur(id),
  CONSTRAINT site_latitude_check CHECK (latitude >= '-90'::integer::double precision AND latitude <= 90::double precision),
  CONSTRAINT site_longitude_check CHECK (longitude >= '-180'::integer::double precision AND longitude <= 180::double precision),
  CONSTRAINT site_statut_id_fkey FOREIGN KEY (statut_id) REFERENCES statut(id),
  CONSTRAINT site_type_site_id_fkey FOREIGN KEY (type_site_id) REFERENCES type_site(id)
);

CREATE TABLE site_composteur (
  id integer DEFAULT nextval('site_composteur_id_seq'::regclass) NOT NULL,
  site_id integer NOT NULL,
  type_composteur_id integer NOT NULL,
  type_bac_id integer NOT NULL,
  numero integer NOT NULL,
  actif boolean DEFAULT true NOT NULL,
  a_interventions boolean DEFAULT false NOT NULL,
  CONSTRAINT site_composteur_pkey PRIMARY KEY (id),
  CONSTRAINT site_composteur_numero_check CHECK (numero >= 0 AND numero <= 20),
  CONSTRAINT site_composteur_site_id_fkey FOREIGN KEY (site_id) REFERENCES site(id) ON DELETE CASCADE,
  CONSTRAINT site_composteur_type_bac_id_fkey FOREIGN KEY (type_bac_id) REFERENCES type_bac(id),
  CONSTRAINT site_composteur_type_composteur_id_fkey FOREIGN KEY (type_composteur_id) REFERENCES type_composteur(id)
);

CREATE TABLE site_convention (
  id integer DEFAULT nextval('site_convention_id_seq'::regclass) NOT NULL,
  site_id integer NOT NULL,
  date_convention timestamp with time zone NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT site_convention_pkey PRIMARY KEY (id),
  CONSTRAINT site_convention_site_id_fkey FOREIGN KEY (site_id) REFERENCES site(id) ON DELETE CASCADE
);

CREATE TABLE site_referent (
  site_id integer NOT NULL,
  account_id integer NOT NULL,
  CONSTRAINT site_referent_pkey PRIMARY KEY (site_id, account_id),
  CONSTRAINT site_referent_account_id_fkey FOREIGN KEY (account_id) REFERENCES account(id) ON DELETE CASCADE,
  CONSTRAINT site_referent_site_id_fkey FOREIGN KEY (site_id) REFERENCES site(id) ON DELETE CASCADE
);

CREATE TABLE statut (
  id integer NOT NULL,
  libelle text NOT NULL,
  CONSTRAINT statut_pkey PRIMARY KEY (id)
);

CREATE TABLE tournee_ordre (
  account_id integer NOT NULL,
  jour date NOT NULL,
  demandes integer[] NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT tournee_ordre_pkey PRIMARY KEY (account_id, jour),
  CONSTRAINT tournee_ordre_account_id_fkey FOREIGN KEY (account_id) REFERENCES account(id) ON DELETE CASCADE
);

CREATE TABLE type_action (
  id integer NOT NULL,
  libelle text NOT NULL,
  valeur boolean NOT NULL,
  value_kind text NOT NULL,
  stats_series text,
  CONSTRAINT type_action_pkey PRIMARY KEY (id),
  CONSTRAINT type_action_value_kind_check CHECK (value_kind = ANY (ARRAY['none'::text, 'litres'::text, 'temperature'::text, 'constant'::text, 'text'::text, 'transfer'::text]))
);

CREATE TABLE type_action_constante (
  id_constante integer NOT NULL,
  constante text NOT NULL,
  id_action integer NOT NULL,
  CONSTRAINT type_action_constante_pkey PRIMARY KEY (id_constante, id_action),
  CONSTRAINT type_action_constante_id_action_fkey FOREIGN KEY (id_action) REFERENCES type_action(id)
);

CREATE TABLE type_action_type_bac (
  type_action_id integer NOT NULL,
  type_bac_id integer NOT NULL,
  CONSTRAINT type_action_type_bac_pkey PRIMARY KEY (type_action_id, type_bac_id),
  CONSTRAINT type_action_type_bac_type_action_id_fkey FOREIGN KEY (type_action_id) REFERENCES type_action(id),
  CONSTRAINT type_action_type_bac_type_bac_id_fkey FOREIGN KEY (type_bac_id) REFERENCES type_bac(id)
);

CREATE TABLE type_bac (
  id integer NOT NULL,
  libelle text NOT NULL,
  CONSTRAINT type_bac_pkey PRIMARY KEY (id)
);

CREATE TABLE type_composteur (
  id integer DEFAULT nextval('type_composteur_id_seq'::regclass) NOT NULL,
  volume integer NOT NULL,
  precisions text NOT NULL,
  CONSTRAINT type_composteur_pkey PRIMARY KEY (id),
  CONSTRAINT type_composteur_volume_check CHECK (volume >= 0)
);

CREATE TABLE type_site (
  id integer DEFAULT nextval('type_site_id_seq'::regclass) NOT NULL,
  libelle text NOT NULL,
  code text NOT NULL,
  next_sequence integer DEFAULT 1 NOT NULL,
  CONSTRAINT type_site_pkey PRIMARY KEY (id),
  CONSTRAINT type_site_code_check CHECK (code ~ '^[A-Z]{1,3}$'::text)
);

CREATE TABLE type_user (
  id integer NOT NULL,
  libelle text NOT NULL,
  CONSTRAINT type_user_pkey PRIMARY KEY (id)
);

CREATE TABLE ville (
  id integer DEFAULT nextval('ville_id_seq'::regclass) NOT NULL,
  code_insee text NOT NULL,
  nom text NOT NULL,
  cp text NOT NULL,
  CONSTRAINT ville_pkey PRIMARY KEY (id),
  CONSTRAINT ville_code_insee_cp_key UNIQUE (code_insee, cp)
);

-- Indexes

CREATE INDEX account_created_idx ON public.account USING btree (created_at);

CREATE INDEX account_email_trgm ON public.account USING gin (lower(email) gin_trgm_ops);

CREATE INDEX account_email_unaccent_trgm ON public.account USING gin (f_unaccent(lower(email)) gin_trgm_ops);

CREATE UNIQUE INDEX account_email_uq ON public.account USING btree (lower(email));

CREATE UNIQUE INDEX account_identifiant_uq ON public.account USING btree (lower(identifiant)) WHERE (identifiant IS NOT NULL);

CREATE INDEX account_intervention_sort ON public.account USING btree (intervention_sort_key, id);

CREATE INDEX account_kind_idx ON public.account USING btree (kind, actif);

CREATE INDEX account_nom_idx ON public.account USING btree (nom, id);

CREATE INDEX account_nom_trgm ON public.account USING gin (f_unaccent(lower(nom)) gin_trgm_ops);

CREATE INDEX account_organisme_trgm ON public.account USING gin (f_unaccent(lower(COALESCE(organisme, ''::text))) gin_trgm_ops);

CREATE INDEX account_prenom_trgm ON public.account USING gin (f_unaccent(lower(COALESCE(prenom, ''::text))) gin_trgm_ops);

CREATE INDEX account_tel_trgm ON public.account USING gin (f_unaccent(lower(COALESCE(tel, ''::text))) gin_trgm_ops);

CREATE INDEX account_user_actif_sort ON public.account USING btree (actif, id) WHERE (kind = 'user'::text);

CREATE INDEX account_user_date_sort ON public.account USING btree (created_at, id) WHERE (kind = 'user'::text);

CREATE INDEX account_user_email_sort ON public.account USING btree (lower(email), id) INCLUDE (email) WHERE (kind = 'user'::text);

CREATE INDEX account_user_email_valide_sort ON public.account USING btree (email_valide, id) WHERE (kind = 'user'::text);

CREATE INDEX account_user_nom_sort ON public.account USING btree (tri_nom, id) WHERE (kind = 'user'::text);

CREATE INDEX account_user_organisme_sort ON public.account USING btree (tri_organisme, id) WHERE (kind = 'user'::text);

CREATE INDEX account_user_prenom_sort ON public.account USING btree (tri_prenom, id) WHERE (kind = 'user'::text);

CREATE INDEX account_user_search_starts ON public.account USING gin (f_word_starts(search_text)) WHERE (kind = 'user'::text);

CREATE INDEX account_user_search_trgm ON public.account USING gin (search_text gin_trgm_ops) WHERE (kind = 'user'::text);

CREATE INDEX account_user_tel_prefix ON public.account USING btree (COALESCE(tel, ''::text) text_pattern_ops) WHERE (kind = 'user'::text);

CREATE INDEX account_user_tel_sort ON public.account USING btree (COALESCE(tel, ''::text), id) INCLUDE (tel) WHERE (kind = 'user'::text);

CREATE INDEX account_user_type_sort ON public.account USING btree (type_user_id, id) WHERE (kind = 'user'::text);

CREATE INDEX account_role_role_idx ON public.account_role USING btree (role_id);

CREATE INDEX account_token_account_idx ON public.account_token USING btree (account_id, purpose);

CREATE INDEX alerte_acknowledged_by_idx ON public.alerte USING btree (acknowledged_by) WHERE (acknowledged_by IS NOT NULL);

CREATE INDEX alerte_cell_idx ON public.alerte USING btree (site_composteur_id) WHERE (site_composteur_id IS NOT NULL);

CREATE INDEX alerte_demande_idx ON public.alerte USING btree (demande_id) WHERE (demande_id IS NOT NULL);

CREATE INDEX alerte_open_list_idx ON public.alerte USING btree (opened_at DESC, id DESC) WHERE (closed_at IS NULL);

CREATE UNIQUE INDEX alerte_open_uq ON public.alerte USING btree (kind, objet_id) WHERE (closed_at IS NULL);

CREATE INDEX alerte_site_idx ON public.alerte USING btree (site_id, opened_at DESC);

CREATE INDEX alerte_run_started_idx ON public.alerte_run USING btree (started_at DESC);

CREATE INDEX alerte_seuils_updated_by_idx ON public.alerte_seuils USING btree (updated_by) WHERE (updated_by IS NOT NULL);

CREATE INDEX demande_action_programmee_idx ON public.demande_intervention USING btree (type_action_programmee_id, id);

CREATE INDEX demande_annulation_asc_idx ON public.demande_intervention USING btree (date_annulation, id);

CREATE INDEX demande_annulation_desc_idx ON public.demande_intervention USING btree (date_annulation DESC NULLS LAST, id DESC);

CREATE INDEX demande_annulee_par_idx ON public.demande_intervention USING btree (annulee_par_id) WHERE (annulee_par_id IS NOT NULL);

CREATE INDEX demande_creation_idx ON public.demande_intervention USING btree (date_creation DESC, id DESC);

CREATE INDEX demande_declenchante_idx ON public.demande_intervention USING btree (intervention_declenchante_id);

CREATE INDEX demande_echeance_idx ON public.demande_intervention USING btree (date_echeance, id);

CREATE INDEX demande_pending_cell_idx ON public.demande_intervention USING btree (site_composteur_id, type_action_programmee_id, date_echeance) WHERE (statut_id = ANY (ARRAY[3, 4]));

CREATE INDEX demande_pending_echeance_idx ON public.demande_intervention USING btree (date_echeance, id) WHERE (statut_id = ANY (ARRAY[3, 4]));

CREATE INDEX demande_pending_site_idx ON public.demande_intervention USING btree (site_id, date_echeance, id) WHERE (statut_id = ANY (ARRAY[3, 4]));

CREATE INDEX demande_programme_par_idx ON public.demande_intervention USING btree (programme_par_id) WHERE (programme_par_id IS NOT NULL);

CREATE INDEX demande_realisee_idx ON public.demande_intervention USING btree (intervention_realisee_id);

CREATE INDEX demande_site_id_idx ON public.demande_intervention USING btree (site_id, id);

CREATE INDEX demande_statut_id_idx ON public.demande_intervention USING btree (statut_id, id);

CREATE INDEX demande_statut_idx ON public.demande_intervention USING btree (statut_id, site_id);

CREATE INDEX demande_rule_action_idx ON public.demande_rule USING btree (type_action_declenchante_id);

CREATE INDEX demande_signalement_intervention_idx ON public.demande_signalement USING btree (intervention_id);

CREATE INDEX foyer_email_idx ON public.foyer USING btree (lower(email));

CREATE INDEX foyer_site_idx ON public.foyer USING btree (site_id, statut);

CREATE INDEX foyer_depart_site_idx ON public.foyer_depart USING btree (site_id);

CREATE INDEX intervention_bac_destination_idx ON public.intervention USING btree (bac_destination_id) WHERE (bac_destination_id IS NOT NULL);

CREATE INDEX intervention_cell_idx ON public.intervention USING btree (site_composteur_id);

CREATE INDEX intervention_client_idx ON public.intervention USING btree (client_id);

CREATE INDEX intervention_constante_idx ON public.intervention USING btree (type_action_id, valeur_constante) WHERE (valeur_constante IS NOT NULL);

CREATE INDEX intervention_demande_idx ON public.intervention USING btree (demande_intervention_id);

CREATE INDEX intervention_free_text_starts ON public.intervention USING gin (f_word_starts(f_unaccent(lower(((COALESCE(observations, ''::text) || ' '::text) || COALESCE(valeur_texte, ''::text)))))) WHERE ((observations IS NOT NULL) OR (valeur_texte IS NOT NULL));

CREATE INDEX intervention_free_text_trgm ON public.intervention USING gin (f_unaccent(lower(((COALESCE(observations, ''::text) || ' '::text) || COALESCE(valeur_texte, ''::text)))) gin_trgm_ops) WHERE ((observations IS NOT NULL) OR (valeur_texte IS NOT NULL));

CREATE INDEX intervention_list_action ON public.intervention USING btree (type_action_id, date, id);

CREATE INDEX intervention_list_date ON public.intervention USING btree (date, id);

CREATE INDEX intervention_list_intervenant ON public.intervention USING btree (intervenant_id, date, id);

CREATE INDEX intervention_list_numero_bac ON public.intervention USING btree (numero_bac, date, id);

CREATE INDEX intervention_list_site ON public.intervention USING btree (site_id, date, id) INCLUDE (type_action_id, intervenant_id, type_bac_id, numero_bac);

CREATE INDEX intervention_list_site_numero_bac ON public.intervention USING btree (site_id, numero_bac, date, id);

CREATE INDEX intervention_list_type_bac ON public.intervention USING btree (type_bac_id, date, id);

CREATE INDEX intervention_modification_agent_idx ON public.intervention USING btree (modification_agent_id) WHERE (modification_agent_id IS NOT NULL);

CREATE INDEX intervention_public_latest_idx ON public.intervention USING btree (site_id, type_action_id, date DESC) WHERE (type_action_id = ANY (ARRAY[1, 3, 16, 19]));

CREATE INDEX intervention_temperature_idx ON public.intervention USING btree (site_composteur_id, date DESC, id DESC) WHERE (type_action_id = 6);

CREATE INDEX intervention_audit_agent_idx ON public.intervention_audit USING btree (agent_id);

CREATE INDEX intervention_audit_intervention_idx ON public.intervention_audit USING btree (intervention_id, id);

CREATE INDEX intervention_count_action_idx ON public.intervention_count USING btree (type_action_id);

CREATE INDEX intervention_photo_intervention_idx ON public.intervention_photo USING btree (intervention_id, id);

CREATE INDEX intervention_stats_mois_by_intervenant ON public.intervention_stats_mois USING btree (intervenant_id, mois);

CREATE INDEX intervention_stats_mois_site_idx ON public.intervention_stats_mois USING btree (site_id, mois);

CREATE INDEX intervention_stats_mois_reseau_mois_idx ON public.intervention_stats_mois_reseau USING btree (mois);

CREATE INDEX intervention_submission_account_idx ON public.intervention_submission USING btree (account_id);

CREATE INDEX login_attempt_window_start ON public.login_attempt USING btree (window_start);

CREATE INDEX permanence_debut_idx ON public.permanence USING btree (debut);

CREATE INDEX permanence_serie_idx ON public.permanence USING btree (serie_id);

CREATE INDEX permanence_site_debut_idx ON public.permanence USING btree (site_id, debut);

CREATE INDEX permanence_ouvreur_account_idx ON public.permanence_ouvreur USING btree (account_id);

CREATE INDEX permanence_serie_site_idx ON public.permanence_serie USING btree (site_id);

CREATE INDEX rue_nom_trgm ON public.rue USING gin (f_unaccent(lower(nom)) gin_trgm_ops);

CREATE INDEX session_account_idx ON public.session USING btree (account_id);

CREATE INDEX session_expires_idx ON public.session USING btree (expires_at);

CREATE INDEX signalement_public_demande_idx ON public.signalement_public USING btree (demande_intervention_id) WHERE (demande_intervention_id IS NOT NULL);

CREATE INDEX signalement_public_fusion_idx ON public.signalement_public USING btree (fusionne_dans_id) WHERE (fusionne_dans_id IS NOT NULL);

CREATE INDEX signalement_public_ouvert_texte_idx ON public.signalement_public USING btree (site_id, texte) WHERE (statut = 'nouveau'::text);

CREATE INDEX signalement_public_site_idx ON public.signalement_public USING btree (site_id, created_at DESC, id DESC);

CREATE INDEX signalement_public_site_visible_idx ON public.signalement_public USING btree (site_id, visible_le DESC);

CREATE INDEX signalement_public_statut_idx ON public.signalement_public USING btree (statut, created_at DESC, id DESC);

CREATE INDEX site_intervention_sort ON public.site USING btree (intervention_sort_key, code);

CREATE INDEX site_list_adresse_sort ON public.site USING btree (f_unaccent(lower(adresse)), code);

CREATE INDEX site_list_adresse_starts ON public.site USING gin (f_word_starts(adresse_text));

CREATE INDEX site_list_adresse_trgm ON public.site USING gin (adresse_text gin_trgm_ops);

CREATE INDEX site_list_cadena_asc ON public.site USING btree ((
CASE
    WHEN (COALESCE(cadena, ''::text) = ''::text) THEN '1'::text
    ELSE ('0'::text || lower(cadena))
END), code);

CREATE INDEX site_list_cadena_desc ON public.site USING btree ((
CASE
    WHEN (COALESCE(cadena, ''::text) = ''::text) THEN '0'::text
    ELSE ('1'::text || lower(cadena))
END), code);

CREATE INDEX site_list_complement_asc ON public.site USING btree ((
CASE
    WHEN (COALESCE(complement, ''::text) = ''::text) THEN '1'::text
    ELSE ('0'::text || f_unaccent(lower(complement)))
END), code);

CREATE INDEX site_list_complement_desc ON public.site USING btree ((
CASE
    WHEN (COALESCE(complement, ''::text) = ''::text) THEN '0'::text
    ELSE ('1'::text || f_unaccent(lower(complement)))
END), code);

CREATE INDEX site_list_convention_asc ON public.site USING btree (COALESCE(date_convention, 'infinity'::timestamp with time zone), code);

CREATE INDEX site_list_convention_desc ON public.site USING btree (COALESCE(date_convention, '-infinity'::timestamp with time zone), code);

CREATE INDEX site_list_implantation_asc ON public.site USING btree (COALESCE(date_implantation, 'infinity'::timestamp with time zone), code);

CREATE INDEX site_list_implantation_desc ON public.site USING btree (COALESCE(date_implantation, '-infinity'::timestamp with time zone), code);

CREATE INDEX site_list_inauguration_asc ON public.site USING btree (COALESCE(date_inauguration, 'infinity'::timestamp with time zone), code);

CREATE INDEX site_list_inauguration_desc ON public.site USING btree (COALESCE(date_inauguration, '-infinity'::timestamp with time zone), code);

CREATE INDEX site_list_nb_composteurs_sort ON public.site USING btree (nb_composteurs, code);

CREATE INDEX site_list_nom_code_trgm ON public.site USING gin (nom_code_text gin_trgm_ops);

CREATE INDEX site_list_nom_sort ON public.site USING btree (nom_tri, code);

CREATE INDEX site_list_nom_starts ON public.site USING gin (f_word_starts(nom_code_text));

CREATE INDEX site_list_observations_asc ON public.site USING btree ((
CASE
    WHEN (COALESCE(observations, ''::text) = ''::text) THEN '1'::text
    ELSE ('0'::text || f_unaccent(lower("left"(observations, 200))))
END), code);

CREATE INDEX site_list_observations_desc ON public.site USING btree ((
CASE
    WHEN (COALESCE(observations, ''::text) = ''::text) THEN '0'::text
    ELSE ('1'::text || f_unaccent(lower("left"(observations, 200))))
END), code);

CREATE INDEX site_list_referent_asc ON public.site USING btree ((
CASE
    WHEN (COALESCE(referent, ''::text) = ''::text) THEN '1'::text
    ELSE ('0'::text || f_unaccent(lower("left"(referent, 200))))
END), code);

CREATE INDEX site_list_referent_desc ON public.site USING btree ((
CASE
    WHEN (COALESCE(referent, ''::text) = ''::text) THEN '0'::text
    ELSE ('1'::text || f_unaccent(lower("left"(referent, 200))))
END), code);

CREATE INDEX site_list_search_starts ON public.site USING gin (f_word_starts(search_text));

CREATE INDEX site_list_search_trgm ON public.site USING gin (search_text gin_trgm_ops);

CREATE INDEX site_list_statut_sort ON public.site USING btree (f_unaccent(lower(statut_libelle)), code);

CREATE INDEX site_list_type_sort ON public.site USING btree (f_unaccent(lower(type_libelle)), code);

CREATE INDEX site_list_ville_sort ON public.site USING btree (f_unaccent(lower(ville)), code);

CREATE INDEX site_list_volume_sort ON public.site USING btree (volume, code);

CREATE INDEX site_statut_idx ON public.site USING btree (statut_id);

CREATE INDEX site_type_idx ON public.site USING btree (type_site_id);

CREATE INDEX site_ville_idx ON public.site USING btree (ville);

CREATE UNIQUE INDEX site_composteur_numero_uq ON public.site_composteur USING btree (site_id, numero) WHERE actif;

CREATE INDEX site_composteur_site_idx ON public.site_composteur USING btree (site_id);

CREATE INDEX site_convention_site_idx ON public.site_convention USING btree (site_id, date_convention DESC);

CREATE INDEX site_referent_account_idx ON public.site_referent USING btree (account_id);

CREATE INDEX type_composteur_precisions_sort ON public.type_composteur USING btree (f_unaccent(lower(precisions)), id);

CREATE INDEX type_composteur_precisions_trgm ON public.type_composteur USING gin (f_unaccent(lower(precisions)) gin_trgm_ops);

CREATE INDEX type_composteur_volume_sort ON public.type_composteur USING btree (volume, id);

CREATE INDEX type_site_code_trgm ON public.type_site USING gin (f_unaccent(lower(code)) gin_trgm_ops);

CREATE UNIQUE INDEX type_site_code_uq ON public.type_site USING btree (code);

CREATE INDEX type_site_libelle_sort ON public.type_site USING btree (f_unaccent(lower(libelle)), id);

CREATE INDEX type_site_libelle_trgm ON public.type_site USING gin (f_unaccent(lower(libelle)) gin_trgm_ops);

CREATE INDEX ville_nom_idx ON public.ville USING btree (nom);

-- Triggers

CREATE TRIGGER account_auth_changed AFTER DELETE OR UPDATE OR TRUNCATE ON account FOR EACH STATEMENT EXECUTE FUNCTION compost_auth_changed();

CREATE TRIGGER account_names_changed AFTER UPDATE ON account REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION account_names_changed();

CREATE TRIGGER account_role_auth_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON account_role FOR EACH STATEMENT EXECUTE FUNCTION compost_auth_changed();

CREATE TRIGGER demande_intervention_counts_deleted AFTER DELETE ON demande_intervention REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_counts_changed();

CREATE TRIGGER demande_intervention_counts_inserted AFTER INSERT ON demande_intervention REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_counts_changed();

CREATE TRIGGER demande_intervention_counts_truncated AFTER TRUNCATE ON demande_intervention FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_counts_changed();

CREATE TRIGGER demande_intervention_counts_updated AFTER UPDATE ON demande_intervention REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_counts_changed();

CREATE TRIGGER intervention_cell_copy BEFORE INSERT OR UPDATE OF site_composteur_id ON intervention FOR EACH ROW EXECUTE FUNCTION intervention_cell_copy();

CREATE TRIGGER intervention_log_deleted AFTER DELETE ON intervention REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_log_changed();

CREATE TRIGGER intervention_log_inserted AFTER INSERT ON intervention REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_log_changed();

CREATE TRIGGER intervention_log_truncated AFTER TRUNCATE ON intervention FOR EACH STATEMENT EXECUTE FUNCTION intervention_log_changed();

CREATE TRIGGER intervention_log_updated AFTER UPDATE ON intervention REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_log_changed();

CREATE TRIGGER role_auth_changed AFTER DELETE OR UPDATE OR TRUNCATE ON role FOR EACH STATEMENT EXECUTE FUNCTION compost_auth_changed();

CREATE TRIGGER session_auth_changed AFTER UPDATE ON session FOR EACH ROW WHEN (new.expires_at < old.expires_at OR new.account_id <> old.account_id OR new.id_hash <> old.id_hash) EXECUTE FUNCTION compost_auth_changed();

CREATE TRIGGER session_auth_gone AFTER DELETE ON session REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION compost_auth_sessions_gone();

CREATE TRIGGER session_auth_truncated AFTER TRUNCATE ON session FOR EACH STATEMENT EXECUTE FUNCTION compost_auth_changed();

CREATE TRIGGER site_list_labels BEFORE INSERT OR UPDATE OF type_site_id, statut_id ON site FOR EACH ROW EXECUTE FUNCTION site_list_labels();

CREATE TRIGGER site_cells_deleted AFTER DELETE ON site_composteur REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION site_cells_deleted();

CREATE TRIGGER site_cells_inserted AFTER INSERT ON site_composteur REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_cells_inserted();

CREATE TRIGGER site_cells_updated AFTER UPDATE ON site_composteur REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_cells_updated();

CREATE TRIGGER site_composteur_cell_copy AFTER UPDATE ON site_composteur REFERENCING OLD TABLE AS old_cells NEW TABLE AS new_cells FOR EACH STATEMENT EXECUTE FUNCTION site_composteur_cell_copy();

CREATE TRIGGER site_conventions_deleted AFTER DELETE ON site_convention REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION site_conventions_deleted();

CREATE TRIGGER site_conventions_inserted AFTER INSERT ON site_convention REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_conventions_inserted();

CREATE TRIGGER site_conventions_updated AFTER UPDATE ON site_convention REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_conventions_updated();

CREATE TRIGGER site_referents_deleted AFTER DELETE ON site_referent REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION site_referents_deleted();

CREATE TRIGGER site_referents_inserted AFTER INSERT ON site_referent REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_referents_inserted();

CREATE TRIGGER site_referents_updated AFTER UPDATE ON site_referent REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_referents_updated();

CREATE TRIGGER statut_libelles_changed AFTER UPDATE ON statut REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION statut_libelles_changed();

CREATE TRIGGER type_composteur_volumes_changed AFTER UPDATE ON type_composteur REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION type_composteur_volumes_changed();

CREATE TRIGGER type_site_libelles_changed AFTER UPDATE ON type_site REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION type_site_libelles_changed();
