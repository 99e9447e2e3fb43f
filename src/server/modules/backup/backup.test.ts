// Backups made through the app's client restore into either engine with every row equal, and
// a file that is corrupt, truncated, foreign, newer than the code or aimed at a non-empty
// database is refused before anything is written.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../../tests/helpers/test-app.js';
import type { Db } from '../../db/client.js';
import { loadMigrations, migrate } from '../../db/migrate.js';
import { seedCities } from '../../db/seed.js';
import { seedDemoData } from '../../db/demo-data.js';
import { createIntervention } from '../field-entry/test-factories.js';
import { writeBackup } from './backup.dump.js';
import { fileSha256, parseCopyLine } from './backup.format.js';
import { NOT_EMPTY_MESSAGE, assertSchemaKnown, databaseIsEmpty, restoreBackup } from './backup.restore.js';

const onPostgres = !!process.env.TEST_DATABASE_URL;
if (!pg) console.warn('TEST_DATABASE_URL absent : les restaurations PGlite → PostgreSQL et PostgreSQL → PGlite ne sont pas testées.');

type Handle = Awaited<ReturnType<typeof openTestDatabase>>;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-backup-'));
const TEXT = 'Quote \' "double" \\ backslash\nnewline\ttab — émoji 🌱 {a,b} NULL';

/** Row count and a digest of every row of every table (schema_migration aside), and each sequence's state, read the same way on both engines. */
async function fingerprint(db: Db): Promise<Record<string, string>> {
  return db.transaction().execute(async (trx) => {
    await sql`SET LOCAL TimeZone = 'UTC'`.execute(trx);
    const tables = await sql<{ name: string }>`SELECT relname AS name FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace AND relname <> 'schema_migration' ORDER BY 1`.execute(trx);
    const out: Record<string, string> = {};
    for (const { name } of tables.rows) {
      const { rows } = await sql.raw<{ n: number; h: string }>(`SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h FROM "${name}" x`).execute(trx);
      out[name] = `${rows[0].n} ${rows[0].h}`;
    }
    const seqs = await sql<{ name: string }>`SELECT relname AS name FROM pg_class WHERE relkind = 'S' AND relnamespace = 'public'::regnamespace`.execute(trx);
    for (const { name } of seqs.rows) {
      const { rows } = await sql.raw<{ v: string; c: boolean }>(`SELECT last_value::text AS v, is_called AS c FROM "${name}"`).execute(trx);
      out[name] = `${rows[0].v} ${rows[0].c}`;
    }
    return out;
  });
}

/** Rewrites a backup's lines (then its checksum), as a foreign tool or a bad hand would. */
function rewrite(src: string, dest: string, edit: (lines: string[]) => string[]) {
  const lines = zlib.gunzipSync(fs.readFileSync(src)).toString('utf8').trimEnd().split('\n').slice(0, -1);
  const body = edit(lines).map((l) => `${l}\n`).join('');
  const sha256 = crypto.createHash('sha256').update(body).digest('hex');
  fs.writeFileSync(dest, zlib.gzipSync(`${body}-- fin ${JSON.stringify({ sha256 })}\n`));
}

/**
 * The same backup in the first format, JSON lines, as the releases before the SQL one wrote
 * it: the header (version 1), {"table"} before each table's rows, one JSON array per row, and
 * the end line with the checksum of every line before it.
 */
function toJsonLines(src: string, dest: string) {
  const lines = zlib.gunzipSync(fs.readFileSync(src)).toString('utf8').trimEnd().split('\n');
  const header = JSON.parse(lines[0].slice('-- compost-sauvegarde '.length)) as { version: number };
  const out = [JSON.stringify({ ...header, version: 1 })];
  let table: string | null = null;
  for (const line of lines) {
    const copy = /^COPY "([a-z_0-9]+)" /.exec(line);
    if (copy) {
      table = copy[1];
      out.push(JSON.stringify({ table }));
    } else if (line === '\\.') {
      table = null;
    } else if (table) {
      out.push(JSON.stringify(parseCopyLine(line)));
    }
  }
  const body = out.map((l) => `${l}\n`).join('');
  const sha256 = crypto.createHash('sha256').update(body).digest('hex');
  fs.writeFileSync(dest, zlib.gzipSync(`${body}${JSON.stringify({ end: true, sha256 })}\n`));
}

describe('backup and restore', () => {
  let source: Handle;
  let file: string;
  let expected: Record<string, string>;

  beforeAll(async () => {
    source = await openTestDatabase('pglite');
    await seedCities(source.db, '242900314');
    await seedDemoData(source.db);
    // What the demo lacks: a photo (bytea), a session, odd text, a timestamp with microseconds.
    const account = await source.db.selectFrom('account').select('id').orderBy('id').executeTakeFirstOrThrow();
    await source.db.insertInto('session').values({ id_hash: 'h'.repeat(64), account_id: account.id, expires_at: '2031-01-02T03:04:05.123456Z' }).execute();
    const site = await source.db.selectFrom('site_composteur').select(['id', 'site_id']).orderBy('id').executeTakeFirstOrThrow();
    const interventionId = await createIntervention(source.db, { site: site.site_id, cell: site.id, action: 1, date: new Date('2025-03-04T05:06:07.891Z'), by: account.id, observations: TEXT });
    const bytes = crypto.randomBytes(50_000);
    await source.db
      .insertInto('intervention_photo')
      .values({ client_id: crypto.randomUUID(), intervention_id: interventionId, envoye_par_id: account.id, largeur: 4, hauteur: 3, taille: bytes.length, taille_miniature: 3, empreinte: 'x', image: bytes, miniature: new Uint8Array([0, 92, 255]) })
      .execute();
    expected = await fingerprint(source.db);
    file = path.join(dir, 'pglite.sql.gz');
    const result = await writeBackup(source.db, file);
    expect(result!.sha256).toBe(await fileSha256(file));
    expect(result!.size).toBe(fs.statSync(file).size);
    expect(result!.header.tables.find((t) => t.name === 'intervention_photo')!.rows).toBe(1);
  }, 600_000);
  afterAll(async () => {
    await source?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('restores a PGlite backup into an empty PGlite database with every row equal', async () => {
    const target = await openTestDatabase('pglite', { migrated: false });
    try {
      const { migrated } = await restoreBackup(target.db, file);
      expect(migrated).toEqual([]);
      expect(await fingerprint(target.db)).toEqual(expected);
      // The indexes dropped for the load are all back, as they were.
      const indexes = (db: Db) => sql<{ d: string }>`SELECT indexdef AS d FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`.execute(db).then((r) => r.rows.map((x) => x.d));
      expect(await indexes(target.db)).toEqual(await indexes(source.db));
      const photo = await target.db.selectFrom('intervention_photo').select(['image', 'miniature']).executeTakeFirstOrThrow();
      expect(Buffer.from(photo.miniature)).toEqual(Buffer.from([0, 92, 255]));
      expect(await target.db.selectFrom('intervention').where('observations', '=', TEXT).select('id').execute()).toHaveLength(1);
      // Triggers are back on: a new intervention updates the derived counts.
      const count = () => sql<{ n: number }>`SELECT coalesce(sum(n), 0)::int AS n FROM intervention_count`.execute(target.db).then((r) => r.rows[0].n);
      const before = await count();
      const cell = await target.db.selectFrom('site_composteur').select(['id', 'site_id']).orderBy('id').executeTakeFirstOrThrow();
      const acc = await target.db.selectFrom('account').select('id').orderBy('id').executeTakeFirstOrThrow();
      await createIntervention(target.db, { site: cell.site_id, cell: cell.id, action: 1, date: new Date(), by: acc.id });
      expect(await count()).toBeGreaterThan(before);
    } finally {
      await target.close();
    }
  }, 300_000);

  it.skipIf(!onPostgres)('restores PGlite → PostgreSQL, then PostgreSQL → PGlite, with every row equal', async () => {
    const onPg = await openTestDatabase('postgres', { migrated: false });
    const back = await openTestDatabase('pglite', { migrated: false });
    try {
      await restoreBackup(onPg.db, file);
      expect(await fingerprint(onPg.db)).toEqual(expected);
      const pgFile = path.join(dir, 'postgres.sql.gz');
      const made = await writeBackup(onPg.db, pgFile);
      expect(made!.header.engine).toBe('postgres');
      await restoreBackup(back.db, pgFile);
      expect(await fingerprint(back.db)).toEqual(expected);
    } finally {
      await onPg.close();
      await back.close();
    }
  }, 300_000);

  it('still restores a backup of the first format (JSON lines)', async () => {
    const old = path.join(dir, 'first-format.jsonl.gz');
    toJsonLines(file, old);
    const target = await openTestDatabase('pglite', { migrated: false });
    try {
      await restoreBackup(target.db, old);
      expect(await fingerprint(target.db)).toEqual(expected);
    } finally {
      await target.close();
    }
  }, 300_000);

  it.skipIf(!onPostgres)('is a plain SQL script: run statement by statement, its COPY blocks through the COPY protocol, it gives the same rows', async () => {
    // As psql would run it, into a database the migrations built (their reference rows included).
    const target = await openTestDatabase('postgres');
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    try {
      const lines = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n');
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i];
        if (line === '' || line.startsWith('--')) continue;
        if (!line.startsWith('COPY ')) {
          await client.query(line);
          continue;
        }
        const end = lines.indexOf('\\.', i);
        const stream = client.query(copyFrom(line));
        await pipeline(Readable.from(lines.slice(i + 1, end + 1).map((l) => `${l}\n`)), stream);
        i = end;
      }
    } finally {
      await client.end();
    }
    try {
      expect(await fingerprint(target.db)).toEqual(expected);
    } finally {
      await target.close();
    }
  }, 300_000);

  it('refuses a non-empty database without --force, and replaces it with --force', async () => {
    const target = await openTestDatabase('pglite');
    try {
      await expect(restoreBackup(target.db, file)).rejects.toThrow(NOT_EMPTY_MESSAGE);
      expect(await target.db.selectFrom('site').select('id').execute()).toEqual([]);
      await restoreBackup(target.db, file, { force: true });
      expect(await fingerprint(target.db)).toEqual(expected);
    } finally {
      await target.close();
    }
  }, 300_000);

  it('refuses a corrupt, truncated or foreign file before writing anything', async () => {
    const target = await openTestDatabase('pglite', { migrated: false });
    try {
      const bytes = fs.readFileSync(file);
      const cases: [string, Buffer, RegExp][] = [
        ['truncated', bytes.subarray(0, Math.floor(bytes.length / 2)), /tronquée/],
        ['truncated in its header', bytes.subarray(0, 200), /tronquée/],
        ['flipped', Buffer.from(bytes.map((b, i) => (i === Math.floor(bytes.length / 2) ? b ^ 0xff : b))), /corrompue|tronquée/],
        ['foreign text', Buffer.from('id;nom\n1;Brest\n'), /n’est pas une sauvegarde Compost/],
        ['foreign gzip', zlib.gzipSync('{"hello":"world"}\n'), /n’est pas une sauvegarde Compost/],
        ['empty', Buffer.alloc(0), /n’est pas une sauvegarde Compost/],
      ];
      for (const [name, content, reason] of cases) {
        const bad = path.join(dir, `${name}.gz`);
        fs.writeFileSync(bad, content);
        await expect(restoreBackup(target.db, bad), name).rejects.toThrow(reason);
      }
      // A line changed without its checksum.
      const lines = zlib.gunzipSync(bytes).toString('utf8').split('\n');
      const i = lines.findIndex((l) => l.includes('\tBrest\t'));
      lines[i] = lines[i].replace('\tBrest\t', '\tBrist\t');
      const edited = path.join(dir, 'edited.gz');
      fs.writeFileSync(edited, zlib.gzipSync(lines.join('\n')));
      await expect(restoreBackup(target.db, edited)).rejects.toThrow(/somme de contrôle/);
      expect(await databaseIsEmpty(target.db)).toBe(true);
    } finally {
      await target.close();
    }
  }, 300_000);

  it('refuses a backup whose schema is newer than the code, and a start on such a database', async () => {
    const newer = path.join(dir, 'newer.gz');
    rewrite(file, newer, (lines) => [lines[0].replace(/"schema":\d+/, '"schema":999'), ...lines.slice(1)]);
    const target = await openTestDatabase('pglite', { migrated: false });
    try {
      await expect(restoreBackup(target.db, newer)).rejects.toThrow(/schéma n°999, plus récent que celui que connaît cette version de Compost/);
      expect(await databaseIsEmpty(target.db)).toBe(true);
      await migrate(target.db);
      await assertSchemaKnown(target.db);
      await target.db.insertInto('schema_migration').values({ id: 999, name: 'future' }).execute();
      await expect(assertSchemaKnown(target.db)).rejects.toThrow(/La base de données est au schéma n°999, plus récent/);
    } finally {
      await target.close();
    }
  }, 300_000);

  it('leaves the target empty when the load fails half-way (a row breaks a foreign key)', async () => {
    const broken = path.join(dir, 'broken.gz');
    rewrite(file, broken, (lines) => {
      const start = lines.findIndex((l) => l.startsWith('COPY "account_role" '));
      const row = lines[start + 1].split('\t');
      lines[start + 1] = ['999999', row[1]].join('\t');
      return lines;
    });
    const target = await openTestDatabase('pglite', { migrated: false });
    try {
      await expect(restoreBackup(target.db, broken)).rejects.toThrow();
      expect(await databaseIsEmpty(target.db)).toBe(true);
    } finally {
      await target.close();
    }
  }, 300_000);

  it('leaves the target empty when a value cannot be read back half-way through a table, on either engine', async () => {
    // A checksum recomputed over an id that is not a number: the file reads, the load refuses it.
    const badValue = path.join(dir, 'bad-value.gz');
    rewrite(file, badValue, (lines) => {
      const start = lines.findIndex((l) => l.startsWith('COPY "ville" '));
      const row = lines[start + 2].split('\t');
      lines[start + 2] = ['pas-un-nombre', ...row.slice(1)].join('\t');
      return lines;
    });
    for (const driver of onPostgres ? (['pglite', 'postgres'] as const) : (['pglite'] as const)) {
      const target = await openTestDatabase(driver, { migrated: false });
      try {
        await expect(restoreBackup(target.db, badValue), driver).rejects.toThrow();
        expect(await databaseIsEmpty(target.db), driver).toBe(true);
        // The connection is usable afterwards: a good file restores into the same database.
        await restoreBackup(target.db, file);
        expect(await fingerprint(target.db), driver).toEqual(expected);
      } finally {
        await target.close();
      }
    }
  }, 300_000);

  it('restores a backup of an older schema, then migrates it to this version', async () => {
    const all = await loadMigrations();
    const old = await openTestDatabase('pglite', { migrated: false });
    const target = await openTestDatabase('pglite', { migrated: false });
    try {
      await migrate(
        old.db,
        all.filter((m) => m.id < all.at(-1)!.id),
      );
      await seedCities(old.db, '242900314');
      const oldFile = path.join(dir, 'old.sql.gz');
      const made = await writeBackup(old.db, oldFile);
      expect(made!.header.schema).toBe(all.at(-2)!.id);
      const { migrated } = await restoreBackup(target.db, oldFile);
      expect(migrated).toEqual([all.at(-1)!.id]);
      expect(await target.db.selectFrom('ville').select('id').execute()).toHaveLength(made!.header.tables.find((t) => t.name === 'ville')!.rows);
    } finally {
      await old.close();
      await target.close();
    }
  }, 300_000);
});
