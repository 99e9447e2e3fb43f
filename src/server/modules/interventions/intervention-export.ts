// The interventions CSV export: the list's rows in its order (intervention-list.ts), each line
// written in SQL (csv.ts). One COPY on PostgreSQL; keyset batches on the embedded database,
// each resuming after the previous batch's last sort key compared in SQL at full precision (a
// date travels as text, never as a JavaScript Date, which would drop its microseconds and skip
// the rows sharing the boundary's millisecond).
import { Readable } from 'node:stream';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import { ACTION_VALUE_KINDS } from '../../../shared/domain.js';
import { copyLines, sqlCsvInteger, sqlCsvLine, sqlCsvText, sqlParisDateTime, streamsCopy } from '../../csv.js';
import { DATE_KEY, walkOrder, walkQuery, type ListKey, type ListPlan, type ListSort } from './intervention-list.js';

/**
 * The export's columns: the table's, with the unit of the value in a column of its own so that a
 * spreadsheet can add the values up.
 */
export const EXPORT_HEADERS = ['Date', 'Site', 'Intervenant', 'Type Cellule', 'N° Cellule', 'Action', 'Valeur', 'Unité', 'Observations', 'Modifiée par'] as const;

const idsOfKind = (...kinds: string[]) =>
  Object.entries(ACTION_VALUE_KINDS)
    .filter(([, k]) => kinds.includes(k))
    .map(([id]) => Number(id));

/**
 * The value of an export line in SQL, in three parts: the number of a measured action (litres,
 * degrees), the text of the others (a constant's label, a free text), and the unit of the number
 * ('L', '°C'; a transfer's says where the matter went, as the table does: 'L vers le composteur
 * n°3'). The table's displayed value (displayValue of shared/schemas/interventions.ts) is the
 * number and its unit run together.
 */
function sqlExportValue(r: { action: RawBuilder<unknown>; nombre: RawBuilder<unknown>; constante: RawBuilder<unknown>; texte: RawBuilder<unknown>; dest: RawBuilder<unknown> }) {
  const among = (...kinds: string[]) => {
    const ids = idsOfKind(...kinds);
    return ids.length ? sql<SqlBool>`${r.action} IN (${sql.raw(ids.join(', '))})` : sql<SqlBool>`false`;
  };
  return {
    nombre: sql`CASE WHEN ${among('transfer', 'litres', 'temperature')} THEN ${r.nombre} END`,
    texte: sql<string>`CASE WHEN ${among('constant')} THEN ${r.constante} WHEN ${among('text')} THEN ${r.texte} END`,
    unite: sql<string>`CASE WHEN ${r.nombre} IS NULL THEN NULL
      WHEN ${among('transfer')} THEN 'L' || coalesce(' vers le composteur n°' || (${r.dest})::text, '')
      WHEN ${among('litres')} THEN 'L'
      WHEN ${among('temperature')} THEN '°C' END`,
  };
}

/**
 * A decimal cell as formatCsvCell writes a number (csv.ts): no trailing zeros, the French decimal
 * comma (36,5), never guarded nor quoted (a negative temperature is a number, not a formula);
 * '' for NULL.
 */
export function sqlCsvDecimal(v: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`coalesce(replace(trim_scale(${v})::text, '.', ','), '')`;
}

/** The label maps of an export, as JSON text read once (see labelMaps). */
export interface ExportMaps {
  sites: string;
  accounts: string;
  cellsAndActions: string;
  agents: string;
  constantes: string;
}

/**
 * The labels an export line shows, as maps from id to label: site, intervenant, cell type and
 * action as finished CSV cells (formatted once per label, not once per row), the correcting
 * agent and the constants as plain text (they go into a longer cell). Cell types and actions
 * share a map, their keys prefixed 'b' and 'a'.
 */
function mapExpressions() {
  const cell = (label: RawBuilder<unknown>) => sqlCsvText(label);
  const person = sql`trim(a.nom || ' ' || coalesce(a.prenom, ''))`;
  return {
    sites: sql`(SELECT coalesce(jsonb_object_agg(s.id, ${cell(sql`coalesce(nullif(s.nom, ''), s.code)`)}), '{}') FROM site s)`,
    accounts: sql`(SELECT coalesce(jsonb_object_agg(a.id, ${cell(person)}), '{}') FROM account a)`,
    cellsAndActions: sql`(SELECT coalesce(jsonb_object_agg(k, ${cell(sql`x.libelle`)}), '{}')
      FROM (SELECT 'b' || tb.id AS k, tb.libelle FROM type_bac tb UNION ALL SELECT 'a' || ta.id, ta.libelle FROM type_action ta) x)`,
    agents: sql`(SELECT coalesce(jsonb_object_agg(a.id, ${person}), '{}') FROM account a WHERE a.kind = 'agent' OR EXISTS (SELECT 1 FROM intervention i WHERE i.modification_agent_id = a.id))`,
    constantes: sql`(SELECT coalesce(jsonb_object_agg(c.id_action * 100 + c.id_constante, c.constante), '{}') FROM type_action_constante c)`,
  };
}

/**
 * Labels of a row `r` (columns of LINE_COLUMNS), read from the maps: built by the statement
 * itself (a whole-log COPY: once), or given as parameters (batches: built once per export, where
 * building them in each batch cost more than the batch).
 */
function labelsOf(maps: ExportMaps | null) {
  const m = mapExpressions();
  const map = (name: keyof ExportMaps) => (maps === null ? m[name] : sql`(SELECT CAST(${maps[name]} AS jsonb))`);
  return {
    siteCell: sql`(${map('sites')} ->> r.site_id::text)`,
    intervenantCell: sql`(${map('accounts')} ->> r.intervenant_id::text)`,
    typeBacCell: sql`(${map('cellsAndActions')} ->> ('b' || r.type_bac_id))`,
    actionCell: sql`(${map('cellsAndActions')} ->> ('a' || r.type_action_id))`,
    agent: sql`(${map('agents')} ->> r.modification_agent_id::text)`,
    constante: sql`(${map('constantes')} ->> (r.type_action_id * 100 + r.valeur_constante)::text)`,
    // Transfers only: the lookup runs on a fifth of the rows.
    dest: sql`(SELECT d.numero FROM site_composteur d WHERE d.id = r.bac_destination_id)`,
  };
}

/**
 * One CSV line per row of `walk` (in its order), with the sort keys for the next batch (a COPY,
 * which reads every row in one statement, takes the line alone). The value and the last
 * change are computed once per row in a subquery kept apart (OFFSET 0), since the cell rules
 * read each of them several times; its ORDER BY (already the walk's) tells the planner the
 * rows stay in order.
 */
function linesQuery(walk: RawBuilder<unknown>, sort: ListSort, maps: ExportMaps | null) {
  const l = labelsOf(maps);
  const withKeys = maps !== null;
  const value = sqlExportValue({ action: sql`r.type_action_id`, nombre: sql`r.valeur_nombre`, constante: l.constante, texte: sql`r.valeur_texte`, dest: l.dest });
  const v = (c: string) => sql.ref(`v.${c}`) as unknown as RawBuilder<unknown>;
  const line = sqlCsvLine([
    // The Paris date as the line shows it, kept on the row (migration 022).
    sql<string>`v.date_paris`,
    sql<string>`coalesce(v.site_cell, '')`,
    sql<string>`coalesce(v.intervenant_cell, '')`,
    sql<string>`coalesce(v.type_bac_cell, '')`,
    sqlCsvInteger(v('numero_bac')),
    sql<string>`coalesce(v.action_cell, '')`,
    // A number, or else a text (one of the two is NULL).
    sql<string>`(${sqlCsvDecimal(v('valeur_nombre'))} || ${sqlCsvText(v('valeur_texte'))})`,
    sqlCsvText(v('unite')),
    sqlCsvText(v('observations')),
    sqlCsvText(v('modifiee')),
  ]);
  return sql<ExportLine>`
    SELECT ${line} AS line${withKeys ? sql`, v.gkey, v.gtie::text AS gtie, v.numero, ${DATE_KEY(sql`v.date`)} AS dkey, v.id` : sql``}
    FROM (SELECT r.id, r.date, r.date_paris, r.gkey, r.gtie, r.numero, r.numero_bac, r.observations,
            ${l.siteCell} AS site_cell, ${l.intervenantCell} AS intervenant_cell, ${l.typeBacCell} AS type_bac_cell, ${l.actionCell} AS action_cell,
            ${value.nombre} AS valeur_nombre, ${value.texte} AS valeur_texte, ${value.unite} AS unite,
            CASE WHEN r.modification_agent_id IS NULL THEN NULL ELSE ${l.agent} || ' le ' || ${sqlParisDateTime(sql`r.modified_at`)} END AS modifiee
          FROM (${walk}) r ORDER BY ${walkOrder('r', sort)} OFFSET 0) v
    ORDER BY ${walkOrder('v', sort)}`;
}

/** A line of the export, with its row's sort position. */
export interface ExportLine extends ListKey {
  line: string;
}

/** Rows of an export batch on the embedded database: aim at this much time per query, then let other requests in. */
export const EXPORT_BATCH_TARGET_MS = 15;
const EXPORT_BATCH_MIN = 50;
const EXPORT_BATCH_MAX = 5000;


/** Columns of intervention i an export line is made of. */
const LINE_COLUMNS = ['id', 'date', 'date_paris', 'site_id', 'intervenant_id', 'type_bac_id', 'numero_bac', 'type_action_id', 'valeur_nombre', 'valeur_constante', 'valeur_texte', 'bac_destination_id', 'observations', 'modification_agent_id', 'modified_at'];

/** The export's statements, apart from the database so that tests and the bench can EXPLAIN them. */
export const exportQueries = {
  /** The label maps of an export's batches, read once. */
  labelMaps: () => {
    const m = mapExpressions();
    return sql<ExportMaps>`SELECT ${m.sites}::text AS sites, ${m.accounts}::text AS accounts, ${m.cellsAndActions}::text AS "cellsAndActions",
      ${m.agents}::text AS agents, ${m.constantes}::text AS constantes`;
  },

  /** Export lines: a batch of `size` after `after` with their sort keys (maps given), or all of them, the line alone (one COPY). */
  lines: (p: ListPlan, page: { after: ListKey | null; size: number; maps: ExportMaps } | null) =>
    linesQuery(walkQuery(p, { limit: page?.size ?? null, offset: 0, after: page?.after ?? null, columns: LINE_COLUMNS }), p.sort, page?.maps ?? null),
};

/** Export lines of the embedded database, keyset batches sized to EXPORT_BATCH_TARGET_MS, yielding between them. */
async function* lineBatches(db: Db, p: ListPlan, fixedSize?: number): AsyncGenerator<string> {
  let after: ListKey | null = null;
  let size = fixedSize ?? EXPORT_BATCH_MIN;
  const maps = (await exportQueries.labelMaps().execute(db)).rows[0];
  for (;;) {
    const started = performance.now();
    const rows: ExportLine[] = (await exportQueries.lines(p, { after, size, maps }).execute(db)).rows;
    const ms = performance.now() - started;
    if (rows.length > 0) yield rows.map((r) => r.line).join('');
    if (rows.length < size) return;
    const last = rows[rows.length - 1];
    after = { gkey: last.gkey, gtie: last.gtie, numero: last.numero, dkey: last.dkey, id: last.id };
    // Towards the target time, at most doubling at a time (a fast batch may have been lucky).
    if (fixedSize === undefined) size = Math.min(EXPORT_BATCH_MAX, 2 * size, Math.max(EXPORT_BATCH_MIN, Math.round((size * EXPORT_BATCH_TARGET_MS) / Math.max(ms, 1))));
    // On the embedded database a query holds the main thread: other requests run here.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * The CSV file of the list (after `header`): one COPY on PostgreSQL, batches of lines on the
 * embedded database (`batches: true` forces them, and `batchSize` fixes their size, for tests).
 */
export async function exportCsv(db: Db, p: ListPlan, header: string, opts: { batches?: boolean; batchSize?: number } = {}): Promise<Readable> {
  if (p.date?.kind === 'none') return Readable.from([header]);
  if (!opts.batches && (await streamsCopy(db))) return copyLines(db, exportQueries.lines(p, null), header);
  async function* file() {
    yield header;
    yield* lineBatches(db, p, opts.batchSize);
  }
  return Readable.from(file(), { objectMode: false });
}
