import { CompiledQuery, sql, type KyselyPlugin, type RootOperationNode, type QueryId } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, openTestDatabase } from '../../../tests/helpers/test-app.js';
import type { DatabaseHandle, Db } from './client.js';
import { ilikeUnaccent, pageFromNearestEnd, shortWordTerm, trigramIndexable, wordStartsNormalized, wordStartsUnaccent } from './list.js';
import { createUsersRepository } from '../modules/users/users.repository.js';
import { createCompostersRepository } from '../modules/composters/composters.repository.js';
import { createSiteTypesRepository } from '../modules/site-types/site-types.repository.js';
import { createSiteListRepository } from '../modules/sites/sites-list.repository.js';
import { userListQuerySchema } from '../../shared/schemas/users.js';
import { composterListQuerySchema } from '../../shared/schemas/composters.js';
import { siteTypeListQuerySchema } from '../../shared/schemas/site-types.js';
import { siteListQuerySchema } from '../../shared/schemas/sites.js';

describe('trigramIndexable', () => {
  it('is true only when the term holds three letters or digits in a row', () => {
    expect(trigramIndexable('abc')).toBe(true);
    expect(trigramIndexable('Hél')).toBe(true);
    expect(trigramIndexable('12/03/2024')).toBe(true);
    expect(trigramIndexable('ab')).toBe(false);
    expect(trigramIndexable('a b c')).toBe(false);
    expect(trigramIndexable('12/03')).toBe(false);
  });
});

describe('pageFromNearestEnd', () => {
  /** The page the window gives, read from a list of `count` numbers in order (reversed when it says so). */
  function read(page: { limit: number; offset: number }, count: number) {
    const list = Array.from({ length: count }, (_, i) => i);
    const w = pageFromNearestEnd(page, count);
    const ordered = w.reversed ? [...list].reverse() : list;
    const rows = ordered.slice(w.offset, w.offset + w.limit);
    return { w, rows: w.reversed ? rows.reverse() : rows };
  }

  it('gives every page of a list the rows of a plain OFFSET, reading less than half the list', () => {
    for (const count of [0, 1, 19, 20, 21, 99, 100, 1001]) {
      for (const limit of [5, 20]) {
        for (let offset = 0; offset <= count + limit; offset += limit) {
          const { w, rows } = read({ limit, offset }, count);
          expect(rows, `count ${count} limit ${limit} offset ${offset}`).toEqual(Array.from({ length: count }, (_, i) => i).slice(offset, offset + limit));
          expect(w.offset).toBeLessThanOrEqual(Math.ceil(count / 2));
        }
      }
    }
  });

  it('reads the last page backwards from the end and keeps the first pages as they are', () => {
    expect(pageFromNearestEnd({ limit: 20, offset: 93_100 }, 93_106)).toEqual({ limit: 6, offset: 0, reversed: true });
    expect(pageFromNearestEnd({ limit: 20, offset: 40 }, 93_106)).toEqual({ limit: 20, offset: 40, reversed: false });
    expect(pageFromNearestEnd({ limit: 20, offset: 200 }, 100)).toEqual({ limit: 0, offset: 0, reversed: false });
  });
});

describe('shortWordTerm', () => {
  it('is true for one or two letters or digits only', () => {
    expect(shortWordTerm('e')).toBe(true);
    expect(shortWordTerm('Zé')).toBe(true);
    expect(shortWordTerm('06')).toBe(true);
    expect(shortWordTerm('abc')).toBe(false);
    expect(shortWordTerm('a ')).toBe(false);
    expect(shortWordTerm('%')).toBe(false);
    expect(shortWordTerm('')).toBe(false);
  });
});

describe.each(TEST_DRIVERS)('word starts (%s)', (driver) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await openTestDatabase(driver);
  });
  afterAll(() => handle.close());

  const VALUES = sql`(VALUES ('Hélène LEBRETON'), ('ÉLORN'), ('Gaëlle Le Goff'), ('jean-luc@exemple.fr'), ('Œuvre'), ('12 rue de Siam')) t(v)`;
  const matches = async (term: string) => {
    const raw = await sql<{ v: string }>`SELECT v FROM ${VALUES} WHERE ${wordStartsUnaccent(sql`v`, term)}`.execute(handle.db);
    const normalized = await sql<{ v: string }>`SELECT v FROM ${VALUES} WHERE ${wordStartsNormalized(sql`f_unaccent(lower(v))`, term)}`.execute(handle.db);
    expect(normalized.rows).toEqual(raw.rows);
    return raw.rows.map((r) => r.v).sort();
  };

  it('finds the words starting with one or two letters, ignoring accents and case', async () => {
    expect(await matches('e')).toEqual(['jean-luc@exemple.fr', 'ÉLORN']);
    expect(await matches('LE')).toEqual(['Gaëlle Le Goff', 'Hélène LEBRETON']);
    expect(await matches('h')).toEqual(['Hélène LEBRETON']);
    expect(await matches('ga')).toEqual(['Gaëlle Le Goff']);
    expect(await matches('lu')).toEqual(['jean-luc@exemple.fr']);
    expect(await matches('oe')).toEqual(['Œuvre']);
    expect(await matches('1')).toEqual(['12 rue de Siam']);
    expect(await matches('si')).toEqual(['12 rue de Siam']);
    // Inside a word is not a start.
    expect(await matches('ne')).toEqual([]);
  });
});

describe.each(TEST_DRIVERS)('ilikeUnaccent (%s)', (driver) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await openTestDatabase(driver);
  });
  afterAll(() => handle.close());

  const matches = async (term: string) => {
    const rows = await sql<{ v: string }>`
      SELECT v FROM (VALUES ('Hélène'), ('ÉLORN'), ('Gaëlle Le Goff'), ('100%'), ('a_b'), ('Œuvre')) t(v)
      WHERE ${ilikeUnaccent(sql`v`, term)}`.execute(handle.db);
    return rows.rows.map((r) => r.v).sort();
  };

  it('ignores accents and case for short and long terms alike', async () => {
    expect(await matches('e')).toEqual(['Gaëlle Le Goff', 'Hélène', 'ÉLORN', 'Œuvre']);
    expect(await matches('EL')).toEqual(['Gaëlle Le Goff', 'Hélène', 'ÉLORN']);
    expect(await matches('élè')).toEqual(['Hélène']);
    expect(await matches('elorn')).toEqual(['ÉLORN']);
    expect(await matches('GAELLE LE')).toEqual(['Gaëlle Le Goff']);
    expect(await matches('oe')).toEqual(['Œuvre']);
  });

  it('takes LIKE wildcards literally', async () => {
    expect(await matches('%')).toEqual(['100%']);
    expect(await matches('_')).toEqual(['a_b']);
    expect(await matches('0%')).toEqual(['100%']);
  });
});

// Every list is backed by indexes that keep it fast at 100 000 rows: the admin
// lists of users, composter types and site types on PostgreSQL with 100 000 accounts, 100 000
// composter types and every possible site type code (18 278). Each page query must be served
// by an index, never a scan of the whole table. How fast they answer is the bench's to measure
// (npm run bench), not a timed test's: under a loaded machine a fixed bound turns red.
describe.skipIf(!process.env.TEST_DATABASE_URL)('admin lists at 100 000 rows (postgres)', () => {
  let handle: DatabaseHandle;
  let captured: { node: RootOperationNode; queryId: QueryId }[] = [];
  let spy: Db;
  const capture: KyselyPlugin = {
    transformQuery(args) {
      captured.push(args);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };

  beforeAll(async () => {
    handle = await openTestDatabase('postgres');
    const db = handle.db;
    // The accounts' 24 indexes (trigram ones among them) are dropped and built again from their
    // own definitions around the load: built at once, they take half the time they take to be
    // updated row by row (15 s on a two-core machine), and end up the same.
    const indexes = (
      await sql<{ name: string; def: string }>`SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
        WHERE i.schemaname = 'public' AND i.tablename = 'account' AND NOT EXISTS (SELECT FROM pg_constraint c WHERE c.conname = i.indexname)`.execute(db)
    ).rows;
    for (const i of indexes) await sql.raw(`DROP INDEX ${i.name}`).execute(db);
    await sql`INSERT INTO account (kind, email, type_user_id, organisme, nom, prenom, tel, email_valide, actif, created_at)
      SELECT 'user', 'u' || g || '.' || substr(md5(g::text), 1, 8) || '@exemple' || (g % 97) || '.fr', 1 + g % 3,
        CASE WHEN g % 3 = 1 THEN 'Mairie de ' || (ARRAY['Brest','Plougastel','Guipavas','Landerneau','Quimper'])[1 + g % 5] || ' ' || (g % 1000) END,
        (ARRAY['LE GOFF','KERGUELEN','ÉLORN','MARTIN','LEBRETON','ZÉPHYR','GUÉGUEN','TANGUY'])[1 + g % 8] || ' ' || upper(substr(md5(g::text || 'n'), 1, 5)),
        (ARRAY['Hélène','Yann','Gaëlle','Loïc','Anne','Paul','Zoé','Marc'])[1 + (g / 8) % 8] || substr(md5(g::text || 'p'), 1, 3),
        '06' || lpad((g * 7919 % 100000000)::text, 8, '0'), g % 10 <> 0, g % 7 <> 0, now() - (g || ' minutes')::interval
      FROM generate_series(1, 100000) g`.execute(db);
    for (const i of indexes) await sql.raw(i.def).execute(db);
    await sql`INSERT INTO site (code, nom, ville, cp, adresse, type_site_id, statut_id)
      SELECT 'QUA' || lpad(g::text, 5, '0'), 'Jardin ' || g, 'Brest', '29200', CASE WHEN g % 4 = 0 THEN 'Allée ' ELSE 'Rue ' END || g, (SELECT id FROM type_site WHERE code = 'QUA'), 1
      FROM generate_series(1, 2000) g`.execute(db);
    await sql`INSERT INTO site_referent (site_id, account_id) SELECT s.id, a.id FROM site s JOIN account a ON a.id % 2000 = s.id % 2000 AND a.id % 3 = 0`.execute(db);
    await sql`INSERT INTO type_composteur (volume, precisions)
      SELECT (g * 37) % 5000, (ARRAY['Bac bois','Bac métal','Bac plastique','Lombricomposteur','Silo'])[1 + g % 5] || ' ' || substr(md5(g::text), 1, 10)
      FROM generate_series(1, 100000) g`.execute(db);
    await sql`INSERT INTO type_site (libelle, code)
      SELECT (ARRAY['Pied d''immeuble','Quartier','Établissement scolaire','Jardin partagé','Résidence'])[1 + (length(c) + ascii(c)) % 5] || ' ' || c, c
      FROM (SELECT chr(65 + a) AS c FROM generate_series(0, 25) a
            UNION SELECT chr(65 + a) || chr(65 + b) FROM generate_series(0, 25) a, generate_series(0, 25) b
            UNION SELECT chr(65 + a) || chr(65 + b) || chr(65 + d) FROM generate_series(0, 25) a, generate_series(0, 25) b, generate_series(0, 25) d) x
      WHERE c NOT IN (SELECT code FROM type_site)`.execute(db);
    await sql`ANALYZE`.execute(db);
    spy = db.withPlugin(capture);
  }, 180_000);
  afterAll(() => handle?.close());

  /** Runs one list call and EXPLAINs each query it sent, with its parameters (the plan the planner picks). */
  async function plans(run: (db: Db) => Promise<unknown>) {
    captured = [];
    await run(spy);
    const out: { sql: string; plan: string }[] = [];
    for (const { node, queryId } of captured) {
      const q = handle.db.getExecutor().compileQuery(node, queryId);
      const res = await handle.db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN (FORMAT TEXT) ${q.sql}`, [...q.parameters]));
      const plan = res.rows.map((r) => r['QUERY PLAN']).join('\n');
      out.push({ sql: q.sql, plan });
    }
    return out;
  }

  /** The page query (the one with LIMIT) reads through an index, never the whole table. */
  async function expectIndexed(table: string, run: (db: Db) => Promise<unknown>) {
    const all = await plans(run);
    const page = all.find((p) => /\blimit\b/i.test(p.sql));
    expect(page, 'no page query').toBeDefined();
    expect(page!.plan, page!.plan).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`));
  }

  const users = (q: object) => (db: Db) => createUsersRepository(db).list(userListQuerySchema.parse(q));
  const composters = (q: object) => (db: Db) => createCompostersRepository(db).list(composterListQuerySchema.parse(q));
  const siteTypes = (q: object) => (db: Db) => createSiteTypesRepository(db).list(siteTypeListQuerySchema.parse(q));

  it('pages the users list by every sort key, both ways, from an index', async () => {
    await expectIndexed('account', users({}));
    await expectIndexed('account', users({ page: '200' }));
    for (const name of ['date', 'organisme', 'nom', 'prenom', 'email', 'tel', 'type', 'actif', 'emailValide']) {
      for (const direction of ['asc', 'desc']) await expectIndexed('account', users({ sort: { name, direction } }));
    }
  });

  it('filters and searches users through trigram and date indexes', async () => {
    const filters: Record<string, string>[] = [
      { nom: 'elorn 1a' },
      { prenom: 'loïc1' },
      { organisme: 'plougastel 12' },
      { email: 'u4242.' },
      { tel: '06123' },
      { date: '12/03/2024' },
      { date: '03/2024' },
    ];
    for (const filter of filters) await expectIndexed('account', users({ filter }));
    await expectIndexed('account', users({ search: 'gaelle le goff' }));
    await expectIndexed('account', users({ search: 'mairie de brest 1' }));
  });

  it('answers one- or two-letter searches and filters, which no trigram index can serve, from indexes', async () => {
    // Every number of this table starts with 06: '06' matches all, '09' none.
    for (const q of [{ search: 'zz' }, { search: 'l' }, { search: 'le' }, { filter: { nom: 'le' } }, { filter: { prenom: 'z' } }, { filter: { organisme: 'pl' } }, { filter: { tel: '06' } }, { filter: { tel: '09' } }]) {
      const all = await plans(users(q));
      for (const p of all) expect(p.plan, JSON.stringify(q)).not.toMatch(/Seq Scan on account\b/);
    }
    // A rare start comes from the word-start index (a common one may come from walking the
    // sort index until the page is full, which the planner prices with the statistics of 007).
    const [zz] = await plans(users({ search: 'zz' }));
    expect(zz.plan).toContain('account_user_search_starts');
  });

  it('pages, sorts, filters and searches composter types from indexes', async () => {
    await expectIndexed('type_composteur', composters({}));
    await expectIndexed('type_composteur', composters({ page: '300' }));
    for (const name of ['volume', 'precisions']) {
      for (const direction of ['asc', 'desc']) await expectIndexed('type_composteur', composters({ sort: { name, direction } }));
    }
    await expectIndexed('type_composteur', composters({ filter: { volume: '750' } }));
    await expectIndexed('type_composteur', composters({ search: 'metal a1' }));
    await expectIndexed('type_composteur', composters({ search: '750' }));
  });

  it('counts the sites whose address has a word starting with two letters from the word-start index alone', async () => {
    // Two letters give the trigram index no trigram to look up: it would hand back every site as
    // a lossy match, each then tested again with the word-start function (a call per row).
    const all = await plans((db) => createSiteListRepository(db).list(siteListQuerySchema.parse({ filter: { adresse: 'ru' } })));
    const count = all.find((p) => /count\(\*\)/.test(p.sql));
    expect(count, 'no count query').toBeDefined();
    expect(count!.plan, count!.plan).toContain('site_list_adresse_starts');
    expect(count!.plan, count!.plan).not.toContain('site_list_adresse_trgm');
  });

  it('pages, sorts, filters and searches site types from indexes', async () => {
    await expectIndexed('type_site', siteTypes({}));
    for (const name of ['libelle', 'code']) {
      for (const direction of ['asc', 'desc']) await expectIndexed('type_site', siteTypes({ sort: { name, direction } }));
    }
    await expectIndexed('type_site', siteTypes({ filter: { libelle: 'jardin partage ab' } }));
    await expectIndexed('type_site', siteTypes({ search: 'qua' }));
  });
});
