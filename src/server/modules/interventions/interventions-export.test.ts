// The interventions CSV export holds every matching row exactly once, in the table's order,
// with dates that have microseconds (imported or SQL-made data), several blocks of one visit
// sharing a date, and batch boundaries falling between rows of one millisecond. The expected
// rows come from plain SQL over the same data. Measured values are numbers a French spreadsheet
// adds up (decimal comma), their unit in the next column.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createAccount, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import { createInterventionTablesService } from './interventions-tables.service.js';
import { sqlCsvDecimal } from './intervention-export.js';
import { formatCsvCell } from '../../csv.js';
import { interventionAdminListQuerySchema } from '../../../shared/schemas/interventions-admin.js';
import type { Readable } from 'node:stream';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

const HEADER = 'Date;Site;Intervenant;Type Cellule;N° Cellule;Action;Valeur;Unité;Observations;Modifiée par';

async function read(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** The data lines of a CSV file (without BOM, header and the empty string after the last CRLF). */
function dataLines(csv: string): string[] {
  expect(csv.startsWith('\uFEFF')).toBe(true);
  const lines = csv.slice(1).split('\r\n');
  expect(lines[0]).toBe(HEADER);
  expect(lines.at(-1)).toBe('');
  return lines.slice(1, -1);
}

/** Every data row carries a unique observation ('u123'): the id it stands for. */
function idsOf(csv: string, byObservation: Map<string, number>): number[] {
  return dataLines(csv).map((line) => {
    const obs = line.split(';')[8];
    const id = byObservation.get(obs);
    if (id === undefined) throw new Error(`unknown line ${line}`);
    return id;
  });
}

const SORTS = [
  ['date', 'desc'],
  ['date', 'asc'],
  ['numeroBac', 'asc'],
  ['site', 'asc'],
  ['intervenant', 'desc'],
  ['action', 'asc'],
  ['typeBac', 'desc'],
] as const;

/** The same order in plain SQL, for every sort of the table. */
function orderBy(name: (typeof SORTS)[number][0], direction: 'asc' | 'desc') {
  const d = direction === 'desc' ? 'DESC' : 'ASC';
  const keys: Record<string, string> = {
    date: `i.date ${d}, i.id ${d}`,
    numeroBac: `i.numero_bac ${d}, i.date ${d}, i.id ${d}`,
    site: `s.intervention_sort_key ${d}, s.code ${d}, i.date ${d}, i.id ${d}`,
    intervenant: `a.intervention_sort_key ${d}, a.id ${d}, i.date ${d}, i.id ${d}`,
    action: `f_unaccent(lower(ta.libelle)) ${d}, ta.id ${d}, i.date ${d}, i.id ${d}`,
    typeBac: `f_unaccent(lower(tb.libelle)) ${d}, tb.id ${d}, i.date ${d}, i.id ${d}`,
  };
  return sql.raw(keys[name]);
}

describe.each(TEST_DRIVERS)('interventions CSV export (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Awaited<ReturnType<typeof loggedAs>>;
  let alphaId: number;
  let betaId: number;
  const byObservation = new Map<string, number>();

  const expectedIds = async (where: ReturnType<typeof sql.raw>, name: (typeof SORTS)[number][0], direction: 'asc' | 'desc') =>
    (
      await sql<{ id: number }>`SELECT i.id FROM intervention i JOIN site s ON s.id = i.site_id JOIN account a ON a.id = i.intervenant_id
        JOIN type_action ta ON ta.id = i.type_action_id JOIN type_bac tb ON tb.id = i.type_bac_id
        WHERE ${where} ORDER BY ${orderBy(name, direction)}`.execute(ctx.db)
    ).rows.map((r) => r.id);

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN']);
    const alice = (await createAccount(ctx.db, { nom: 'DURAND', prenom: 'Alice' })).id;
    const bob = (await createAccount(ctx.db, { nom: 'ARNAUD', prenom: 'Bob' })).id;
    const alpha = await createEquippedSite(ctx.db, { nom: 'Alpha' });
    const beta = await createEquippedSite(ctx.db, { nom: 'Bêta' });
    alphaId = alpha.id;
    betaId = beta.id;
    // 1,000 readings 3 µs apart: 333 share each millisecond.
    await sql`INSERT INTO intervention (date, site_id, site_composteur_id, type_action_id, valeur_nombre, observations, intervenant_id)
      SELECT timestamptz '2025-03-01 10:00:00+00' + g * interval '3 microseconds', ${alpha.id}::int,
             CASE WHEN g % 2 = 0 THEN ${alpha.apport}::int ELSE ${alpha.maturation}::int END,
             CASE WHEN g % 3 = 0 THEN 6 ELSE 1 END, CASE WHEN g % 3 = 0 THEN 40 + g % 7 END,
             'u' || g, CASE WHEN g % 5 = 0 THEN ${bob}::int ELSE ${alice}::int END
      FROM generate_series(1, 1000) g`.execute(ctx.db);
    // 100 visits of three blocks each, every block of a visit at the same instant (with microseconds).
    await sql`INSERT INTO intervention (date, site_id, site_composteur_id, type_action_id, valeur_nombre, observations, intervenant_id)
      SELECT timestamptz '2025-04-01 08:00:00.000123+00' + v * interval '1 millisecond', ${beta.id}::int,
             CASE b WHEN 1 THEN ${beta.apport}::int WHEN 2 THEN ${beta.broyat}::int ELSE ${beta.maturation}::int END,
             CASE b WHEN 1 THEN 4 WHEN 2 THEN 12 ELSE 11 END, 10 * b, 'v' || v || '-' || b, ${alice}::int
      FROM generate_series(1, 100) v, generate_series(1, 3) b`.execute(ctx.db);
    for (const r of (await sql<{ id: number; observations: string }>`SELECT id, observations FROM intervention`.execute(ctx.db)).rows) byObservation.set(r.observations, r.id);
  });
  afterAll(() => ctx.close());

  const exportOf = (qs: Record<string, unknown>, opts: { batches?: boolean; batchSize?: number } = {}) =>
    createInterventionTablesService(ctx.db)
      .exportCsv(interventionAdminListQuerySchema.parse(qs), opts)
      .then(read);

  it('holds every row of the whole log exactly once, in the table order, for every sort', async () => {
    for (const [name, direction] of SORTS) {
      const expected = await expectedIds(sql.raw('true'), name, direction);
      expect(expected).toHaveLength(1300);
      const csv = await exportOf({ sort: { name, direction } });
      expect(idsOf(csv, byObservation), `${name} ${direction}`).toEqual(expected);
    }
  });

  it('resumes each batch after the previous one at full precision, whatever the batch size', async () => {
    // 97 rows a batch: boundaries fall inside milliseconds and inside visits.
    for (const [name, direction] of SORTS) {
      const expected = await expectedIds(sql.raw('true'), name, direction);
      const csv = await exportOf({ sort: { name, direction } }, { batches: true, batchSize: 97 });
      expect(idsOf(csv, byObservation), `${name} ${direction}`).toEqual(expected);
    }
  });

  it('counts the 1,000 readings a few microseconds apart in the export of their site, and the visits in theirs', async () => {
    const alpha = dataLines(await exportOf({ filter: { site: String(alphaId) } }));
    expect(alpha).toHaveLength(1000);
    expect(new Set(alpha).size).toBe(1000);
    const beta = dataLines(await exportOf({ filter: { site: String(betaId) } }, { batches: true, batchSize: 100 }));
    expect(beta).toHaveLength(300);
  });

  it('writes the same bytes from one COPY and from batches', async () => {
    for (const [name, direction] of SORTS) {
      const whole = await exportOf({ sort: { name, direction } });
      const batched = await exportOf({ sort: { name, direction } }, { batches: true, batchSize: 250 });
      expect(batched === whole, `${name} ${direction}`).toBe(true);
    }
  });

  it('serves it as export.csv over HTTP with the filters, search and sort of the table', async () => {
    const res = await ctx.app.inject({ url: `/api/admin/intervention/export?filter[site]=${betaId}&search=distribution&sort[name]=date&sort[direction]=asc`, headers: { cookie: admin.cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="export.csv"');
    const lines = dataLines(res.body);
    expect(lines).toHaveLength(100);
    // 1 April 2025 08:00:00.001123 UTC is 10:00 in Paris (summer time from 30 March).
    expect(lines[0]).toBe('01/04/2025 10:00;Bêta;DURAND Alice;Maturation;3;Distribution de compost;30;L;v1-3;');
    const empty = await ctx.app.inject({ url: '/api/admin/intervention/export?filter[date]=31/02/2019', headers: { cookie: admin.cookie } });
    expect(dataLines(empty.body)).toEqual([]);
  });

  it('lets other work run between the batches of the embedded database', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    let ticksBeforeLastChunk = 0;
    try {
      const stream = await createInterventionTablesService(ctx.db).exportCsv(interventionAdminListQuerySchema.parse({}), { batches: true, batchSize: 100 });
      for await (const chunk of stream) {
        void chunk;
        ticksBeforeLastChunk = ticks;
      }
    } finally {
      clearInterval(timer);
    }
    // 39 batches: a timer due at once fires between them, not after the whole file.
    expect(ticksBeforeLastChunk).toBeGreaterThan(5);
  });
});

describe.runIf(TEST_DRIVERS.includes('postgres'))('interventions CSV export on PostgreSQL (COPY)', () => {
  let ctx: Ctx;
  let lite: Ctx;

  async function fill(c: Ctx) {
    const alice = (await createAccount(c.db, { nom: 'LE GALL', prenom: 'Élodie' })).id;
    const site = await createEquippedSite(c.db, { nom: 'Jardin "des; Capucins"' });
    await sql`INSERT INTO intervention (date, site_id, site_composteur_id, type_action_id, valeur_nombre, valeur_texte, observations, intervenant_id)
      SELECT timestamptz '2024-12-31 22:59:59.999999+00' + g * interval '7 microseconds', ${site.id}::int, ${site.apport}::int,
             (ARRAY[6, 1, 14, 3, 13])[1 + g % 5], CASE WHEN g % 5 IN (0, 3) THEN (g % 30) - 5.5 END,
             CASE WHEN g % 5 = 2 THEN '=SOMME(A1)' END,
             (ARRAY['ligne 1' || chr(10) || 'ligne 2', '+33 6', '@x', 'a;b', '"cité"', NULL, chr(9) || 'tab', '-'])[1 + g % 8], ${alice}::int
      FROM generate_series(1, 400) g`.execute(c.db);
  }

  beforeAll(async () => {
    ctx = await createTestApp('postgres');
    lite = await createTestApp('pglite');
    await fill(ctx);
    await fill(lite);
  });
  afterAll(async () => {
    await ctx.close();
    await lite.close();
  });

  it('gives the embedded database and PostgreSQL the same bytes, tricky cells included', async () => {
    const query = interventionAdminListQuerySchema.parse({});
    const pg = await read(await createInterventionTablesService(ctx.db).exportCsv(query));
    const embedded = await read(await createInterventionTablesService(lite.db).exportCsv(query));
    expect(dataLines(pg)).toHaveLength(400);
    expect(embedded === pg).toBe(true);
    // A negative temperature is a number (never guarded), with a decimal comma; quotes are doubled.
    expect(pg).toContain(`;"Jardin ""des; Capucins""";LE GALL Élodie;Apport;1;Température;-5,5;°C;`);
    // A transfer without destination (rows 13, 23...): litres alone.
    expect(pg).toContain(`;Transfert;7,5;L;`);
    // A free text that would be a formula is guarded, and has no unit.
    expect(pg).toContain(`;Réparation effectuée;'=SOMME(A1);;`);
    expect(pg).toContain(`;"ligne 1\nligne 2";`);
    expect(pg).toContain(`;"""cité""";`);
  });

  it('gives its connection back usable when the reader leaves half-way', async () => {
    const stream = await createInterventionTablesService(ctx.db).exportCsv(interventionAdminListQuerySchema.parse({}));
    const it = stream[Symbol.asyncIterator]();
    await it.next();
    stream.destroy();
    // More queries than the pool has connections: none of them meets a connection left in COPY.
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => sql<{ n: number }>`SELECT ${i}::int AS n`.execute(ctx.db)));
    expect(answers.map((a) => a.rows[0].n)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    const copying = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE 'COPY%'`.execute(ctx.db)).rows[0].n;
    for (let i = 0; i < 50 && (await copying()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await copying()).toBe(0);
  });
});

describe.each(TEST_DRIVERS)('interventions CSV values (%s)', (driver) => {
  let ctx: Ctx;
  let siteId: number;

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    const alice = (await createAccount(ctx.db, { nom: 'DURAND', prenom: 'Alice' })).id;
    const site = await createEquippedSite(ctx.db, { nom: 'Gamma' });
    siteId = site.id;
    // [action, cell, number, constant, text, destination], one a day from 1 June 2025 08:00 UTC (10:00 in Paris).
    const rows: [number, number, number | null, number | null, string | null, number | null][] = [
      [6, site.apport, 36.5, null, null, null],
      [6, site.maturation, -2.25, null, null, null],
      [3, site.apport, 12.5, null, null, site.maturation],
      [15, site.apport, 200, null, null, null],
      [7, site.broyat, null, 1, null, null],
      [18, site.apport, null, null, 'Trappe; charnière', null],
      [1, site.apport, null, null, null, null],
      [12, site.broyat, 0.125, null, null, null],
      [3, site.apport, 40, null, null, null],
    ];
    for (const [i, [action, cell, nombre, constante, texte, dest]] of rows.entries()) {
      await ctx.db
        .insertInto('intervention')
        .values({
          date: new Date(Date.UTC(2025, 5, 1 + i, 8)),
          site_id: site.id,
          site_composteur_id: cell,
          type_action_id: action,
          valeur_nombre: nombre,
          valeur_constante: constante,
          valeur_texte: texte,
          bac_destination_id: dest,
          intervenant_id: alice,
        })
        .execute();
    }
  });
  afterAll(() => ctx.close());

  const exportOf = (opts: { batches?: boolean; batchSize?: number } = {}) =>
    createInterventionTablesService(ctx.db)
      .exportCsv(interventionAdminListQuerySchema.parse({ filter: { site: String(siteId) }, sort: { name: 'date', direction: 'asc' } }), opts)
      .then(read);

  it('writes measured values as numbers with a decimal comma and their unit in the next column, other values as text without unit', async () => {
    const whole = await exportOf();
    const lines = dataLines(whole);
    const start = (day: number) => `0${day}/06/2025 10:00;Gamma;DURAND Alice;`;
    expect(lines).toEqual([
      `${start(1)}Apport;1;Température;36,5;°C;;`,
      `${start(2)}Maturation;3;Température;-2,25;°C;;`,
      `${start(3)}Apport;1;Transfert;12,5;L vers le composteur n°3;;`,
      `${start(4)}Apport;1;Arrosage;200;L;;`,
      `${start(5)}Broyat;2;Niveau de broyat;Vide;;;`,
      `${start(6)}Apport;1;Réparation à effectuer;"Trappe; charnière";;;`,
      `${start(7)}Apport;1;Retournement;;;;`,
      `${start(8)}Broyat;2;Apport de broyat;0,125;L;;`,
      `${start(9)}Apport;1;Transfert;40;L;;`,
    ]);
    // The same bytes in batches (and, on PostgreSQL, from the COPY above).
    expect((await exportOf({ batches: true, batchSize: 2 })) === whole).toBe(true);
  });

  it('writes a decimal cell in SQL as the JavaScript CSV rules write a number', async () => {
    const numbers = ['36.5', '-5.50', '0.125', '200', '200.000', '1234567.89', '0.1', '-0.05', '0'];
    for (const n of numbers) {
      const { rows } = await sql<{ cell: string }>`SELECT ${sqlCsvDecimal(sql`CAST(${n} AS numeric)`)} AS cell`.execute(ctx.db);
      expect(rows[0].cell, n).toBe(formatCsvCell(Number(n)));
    }
    const { rows } = await sql<{ cell: string }>`SELECT ${sqlCsvDecimal(sql`CAST(NULL AS numeric)`)} AS cell`.execute(ctx.db);
    expect(rows[0].cell).toBe(formatCsvCell(null));
  });
});
