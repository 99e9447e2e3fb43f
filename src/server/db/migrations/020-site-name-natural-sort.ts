// Site names in natural order: 'École 2' before 'École 13', on PGlite (which has no ICU
// collation) as on PostgreSQL. f_natural_sort_key() turns a text into a key that sorts that way
// byte by byte: accent-free and lower-cased, every run of spaces and punctuation made one space,
// and every number written as its count of digits (two digits) followed by its digits without
// leading zeros, so that a shorter number always comes first ('2' -> '012', '13' -> '0213').
// site.nom_tri is that key of the name (the code when unnamed), in the "C" collation so that
// both engines compare it the same way; the sites list sorts by it (its index, followed by the
// unique code, also serves the export's keyset batches), the site choice lists sort by it.
export const up = `
CREATE FUNCTION f_natural_sort_key(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT coalesce(string_agg(
           CASE WHEN part ~ '^[0-9]'
             THEN lpad(least(length(num), 99)::text, 2, '0') || num
             ELSE part END,
           '' ORDER BY i), '')
    FROM regexp_matches(btrim(regexp_replace(f_unaccent(lower($1)), '[^[:alnum:]]+', ' ', 'g')), '[0-9]+|[^0-9]+', 'g')
           WITH ORDINALITY AS r(m, i),
         LATERAL (SELECT m[1] AS part, coalesce(nullif(ltrim(m[1], '0'), ''), '0') AS num) x
$$;

ALTER TABLE site ADD COLUMN nom_tri text COLLATE "C" GENERATED ALWAYS AS (f_natural_sort_key(coalesce(nullif(nom, ''), code))) STORED;

DROP INDEX IF EXISTS site_list_nom_sort;
CREATE INDEX site_list_nom_sort ON site (nom_tri, code);
`;
