// The schema of a migrated database as one SQL text (src/server/db/schema.sql), read from the
// catalog through the app's own client rather than pg_dump, so that it reads the same on PGlite
// and on PostgreSQL whatever pg_dump a machine has. It is where a reader finds the current
// definition of every table, index, function and trigger, however many migrations replaced it.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from './client.js';

/** Objects of the public schema that belong to an extension (unaccent, pg_trgm) are the extension's. */
const NOT_EXTENSION = sql`NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = o.oid AND d.deptype = 'e')`;

async function rows<T>(db: Db, query: RawBuilder<T>): Promise<T[]> {
  return (await query.execute(db)).rows;
}

export async function schemaSql(db: Db): Promise<string> {
  const migrations = await rows(db, sql<{ id: number; name: string }>`SELECT id, name FROM schema_migration ORDER BY id`);
  const extensions = await rows(db, sql<{ name: string }>`SELECT extname AS name FROM pg_extension WHERE extname <> 'plpgsql' ORDER BY 1`);
  const functions = await rows(
    db,
    sql<{ def: string }>`SELECT pg_get_functiondef(o.oid) AS def FROM pg_proc o
      WHERE o.pronamespace = 'public'::regnamespace AND ${NOT_EXTENSION}
      ORDER BY o.proname, pg_get_function_identity_arguments(o.oid)`,
  );
  const columns = await rows(
    db,
    sql<{ tbl: string; col: string; type: string; collation: string | null; notnull: boolean; generated: string; identity: string; expr: string | null }>`
      SELECT c.relname AS tbl, a.attname AS col, format_type(a.atttypid, a.atttypmod) AS type,
             CASE WHEN a.attcollation <> t.typcollation THEN co.collname END AS collation,
             a.attnotnull AS notnull, a.attgenerated AS generated, a.attidentity AS identity,
             pg_get_expr(ad.adbin, ad.adrelid) AS expr
        FROM pg_class c
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        JOIN pg_type t ON t.oid = a.atttypid
        LEFT JOIN pg_collation co ON co.oid = a.attcollation
        LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
       WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
       ORDER BY c.relname, a.attnum`,
  );
  // Not-null constraints (contype 'n', PostgreSQL 18) are shown on their column, as in 15.
  const constraints = await rows(
    db,
    sql<{ tbl: string; name: string; def: string }>`
      SELECT c.relname AS tbl, k.conname AS name, pg_get_constraintdef(k.oid, true) AS def
        FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
       WHERE c.relnamespace = 'public'::regnamespace AND k.contype IN ('p', 'u', 'f', 'c', 'x')
       ORDER BY c.relname, CASE k.contype WHEN 'p' THEN 0 ELSE 1 END, k.conname`,
  );
  const indexes = await rows(
    db,
    sql<{ def: string }>`
      SELECT pg_get_indexdef(i.indexrelid) AS def
        FROM pg_index i JOIN pg_class o ON o.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
       WHERE o.relnamespace = 'public'::regnamespace
         AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = i.indrelid)
       ORDER BY t.relname, o.relname`,
  );
  const views = await rows(
    db,
    sql<{ name: string; kind: string; def: string }>`
      SELECT o.relname AS name, o.relkind AS kind, pg_get_viewdef(o.oid, true) AS def FROM pg_class o
       WHERE o.relnamespace = 'public'::regnamespace AND o.relkind IN ('v', 'm') AND ${NOT_EXTENSION}
       ORDER BY o.relname`,
  );
  const triggers = await rows(
    db,
    sql<{ def: string }>`
      SELECT pg_get_triggerdef(t.oid, true) AS def FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal
       ORDER BY c.relname, t.tgname`,
  );

  const tables = new Map<string, string[]>();
  for (const c of columns) {
    const parts = [`${c.col} ${c.type}`];
    if (c.collation) parts.push(`COLLATE "${c.collation}"`);
    if (c.generated === 's') parts.push(`GENERATED ALWAYS AS (${c.expr}) STORED`);
    else if (c.identity) parts.push(`GENERATED ${c.identity === 'a' ? 'ALWAYS' : 'BY DEFAULT'} AS IDENTITY`);
    else if (c.expr !== null) parts.push(`DEFAULT ${c.expr}`);
    if (c.notnull) parts.push('NOT NULL');
    tables.set(c.tbl, [...(tables.get(c.tbl) ?? []), parts.join(' ')]);
  }
  for (const k of constraints) tables.get(k.tbl)?.push(`CONSTRAINT ${k.name} ${k.def}`);

  const last = migrations.at(-1);
  const section = (title: string, statements: string[]) => `-- ${title}\n\n${statements.join('\n\n')}\n`;
  return [
    `-- The schema of a database migrated up to ${last ? `migration ${String(last.id).padStart(3, '0')} (${last.name})` : 'no migration'}.\n` +
      '-- Generated from the catalog by `npm run db:schema` (src/server/db/schema-sql.ts); do not edit:\n' +
      '-- a change of schema is a new migration, then run `npm run db:schema`.\n',
    section('Extensions', extensions.map((e) => `CREATE EXTENSION IF NOT EXISTS ${e.name};`)),
    section('Functions', functions.map((f) => `${f.def.trimEnd()};`)),
    section('Tables', [...tables].map(([name, lines]) => `CREATE TABLE ${name} (\n  ${lines.join(',\n  ')}\n);`)),
    section('Indexes', indexes.map((i) => `${i.def};`)),
    ...(views.length ? [section('Views', views.map((v) => `CREATE ${v.kind === 'm' ? 'MATERIALIZED ' : ''}VIEW ${v.name} AS\n${v.def.trimEnd()}`))] : []),
    section('Triggers', triggers.map((t) => `${t.def};`)),
  ].join('\n');
}
