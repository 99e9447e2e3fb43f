import { sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CONFIG, TEST_DRIVERS, createAccount, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createApp } from '../../app.js';
import { createMemoryMailer } from '../../mailer.js';
import { siteListQuerySchema } from '../../../shared/schemas/sites.js';
import { createSiteListRepository } from './sites-list.repository.js';

/** Reads CSV text the way a spreadsheet does: `;` separator, quoted cells with doubled quotes, CRLF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ';') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

const HEADERS = [
  'Nom / Code',
  'Ville',
  'Adresse',
  'Précisions',
  'Type',
  'Référent(s)',
  'Volume total',
  'nb Composteurs',
  'Cadena',
  'Observations',
  'Statut',
  'Date Convention',
  'Date Implantation',
  'Date inauguration',
];

describe.each(TEST_DRIVERS)('sites CSV export (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  let admin: string;
  let typeId: number;
  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
    typeId = (await ctx.db.insertInto('type_site').values({ libelle: 'Export', code: 'EXP' }).returning('id').executeTakeFirstOrThrow()).id;
    const add = async (body: Record<string, unknown>) => {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/admin/site/add', headers: { cookie: admin }, payload: { type: typeId, statut: 1, ...body } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().id as number;
    };
    const injected = await add({
      nom: '=HYPERLINK("http://pirate.example","clic")',
      ville: 'Brest',
      adresse: 'Rue de Siam',
      numero: '4',
      complement: '-1+1',
      cadena: '@123',
      observations: 'Clé chez "Mme Le Bris"; bâtiment B\nportail vert',
      dateConvention: '2024-03-05',
      dateImplantation: '2024-04-10',
      composteurs: [
        { composteur: 1, typeBac: 1, numero: 1 },
        { composteur: 3, typeBac: 3, numero: 2 },
      ],
    });
    await add({ nom: 'Jardin Guipavas', ville: 'Guipavas', adresse: 'Rue de Brest' });
    const ref = await createAccount(ctx.db, { kind: 'user', roles: ['ROLE_USER'], nom: 'KERBRAT', prenom: 'Yann' });
    await ctx.app.inject({ method: 'PUT', url: `/api/admin/site/update/user/${injected}`, headers: { cookie: admin }, payload: { user: [ref.id] } });
  });
  afterAll(() => ctx.close());

  const exportCsv = (qs: string) => ctx.app.inject({ method: 'GET', url: `/api/admin/site/export?${qs}`, headers: { cookie: admin } });

  it('downloads exportSites.csv in UTF-8 with a byte-order mark, ; separators and the table columns', async () => {
    const res = await exportCsv('filter[type]=export');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="exportSites.csv"');
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const rows = parseCsv(res.rawPayload.toString('utf8').slice(1));
    expect(rows[0]).toEqual(HEADERS);
    expect(rows).toHaveLength(3);
  });

  it('guards formulas and keeps quoted separators, quotes and line breaks inside one cell', async () => {
    const rows = parseCsv((await exportCsv('filter[type]=export&filter[ville][]=Brest')).body.slice(1));
    expect(rows).toHaveLength(2);
    const cell = Object.fromEntries(HEADERS.map((h, i) => [h, rows[1][i]]));
    expect(cell['Nom / Code'].startsWith(`'=HYPERLINK("http://pirate.example","clic") / EXP`)).toBe(true);
    expect(cell['Précisions']).toBe("'-1+1");
    expect(cell['Cadena']).toBe("'@123");
    expect(cell['Observations']).toBe('Clé chez "Mme Le Bris"; bâtiment B\nportail vert');
    expect(cell).toMatchObject({
      Ville: 'Brest',
      Adresse: '4 Rue de Siam',
      Type: 'Export',
      'Référent(s)': 'KERBRAT Yann',
      'Volume total': String(400 + 800),
      'nb Composteurs': '2',
      Statut: 'Actif',
      'Date Convention': '05/03/2024',
      'Date Implantation': '10/04/2024',
      'Date inauguration': '',
    });
  });

  it('honours the search, the filters and the sort of the table', async () => {
    const names = async (qs: string) => parseCsv((await exportCsv(qs)).body.slice(1)).slice(1).map((r) => r[0].replace(/ \/ EXP\d+$/, ''));
    expect(await names('filter[type]=export&filter[ville][]=Guipavas')).toEqual(['Jardin Guipavas']);
    expect(await names('filter[type]=export&search=guipavas')).toEqual(['Jardin Guipavas']);
    expect(await names('filter[type]=export&sort[name]=volume&sort[direction]=asc')).toEqual(['Jardin Guipavas', `'=HYPERLINK("http://pirate.example","clic")`]);
    expect(await names('filter[type]=export&sort[name]=volume&sort[direction]=desc')).toEqual([`'=HYPERLINK("http://pirate.example","clic")`, 'Jardin Guipavas']);
    expect((await exportCsv('filter[unknown]=1')).statusCode).toBe(400);
  });

  it('answers 503 with the error body, not a 200 cut after its header, when the first rows cannot be read', async () => {
    // The export's first statement fails as PostgreSQL's statement limit makes it fail (57014).
    let failures = 0;
    const timeout: KyselyPlugin = {
      transformQuery(args) {
        const text = JSON.stringify(args.node);
        if (text.includes('sortKey')) {
          failures++;
          throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
        }
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const app = await createApp({ db: ctx.db.withPlugin(timeout), mailer: createMemoryMailer(), config: TEST_CONFIG });
    try {
      await app.ready();
      const res = await app.inject({ method: 'GET', url: '/api/admin/site/export?filter[type]=export', headers: { cookie: admin } });
      expect(failures).toBe(1);
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toMatchObject({ status: 'error', message: expect.any(String) });
    } finally {
      await app.close();
    }
  });

  describe('with more sites than one batch', () => {
    beforeAll(async () => {
      // Many ties and missing values, so that the batches must carry on exactly where they stopped.
      await sql`
        INSERT INTO site (code, nom, ville, cp, adresse, type_site_id, statut_id, cadena, observations, date_implantation)
        SELECT 'BAT' || lpad(n::text, 4, '0'), 'Lot ' || lpad(n::text, 4, '0'), 'Brest', '29200', 'Rue du lot', ${typeId}, 2,
          CASE WHEN n % 3 = 0 THEN NULL ELSE (n % 7)::text END,
          CASE WHEN n % 2 = 0 THEN 'Clé ' || (n % 5) END,
          CASE WHEN n % 4 = 0 THEN NULL ELSE timestamptz '2024-01-01 12:00Z' + (n % 9) * interval '1 day' END
        FROM generate_series(1, 1203) AS n`.execute(ctx.db);
    });
    const codeOf = (nomCode: string) => nomCode.split(' / ').at(-1)!;

    it('exports every matching site, in order, whatever the number of batches', async () => {
      const rows = parseCsv((await exportCsv('filter[type]=export&filter[statut][]=2&sort[name]=nom&sort[direction]=desc')).body.slice(1)).slice(1);
      expect(rows).toHaveLength(1203);
      expect(rows[0][0]).toBe('Lot 1203 / BAT1203');
      expect(rows[1202][0]).toBe('Lot 0001 / BAT0001');
      expect(new Set(rows.map((r) => r[0])).size).toBe(1203);
    });

    it('gives the rows in the order of the table pages for every sort, missing values included', async () => {
      for (const [name, direction] of [
        ['cadena', 'asc'],
        ['cadena', 'desc'],
        ['observations', 'desc'],
        ['dateImplantation', 'asc'],
        ['dateImplantation', 'desc'],
        ['volume', 'desc'],
        ['statut', 'asc'],
      ]) {
        const qs = `filter[type]=export&sort[name]=${name}&sort[direction]=${direction}`;
        const exported = parseCsv((await exportCsv(qs)).body.slice(1)).slice(1).map((r) => codeOf(r[0]));
        const listed: string[] = [];
        for (let page = 0; listed.length < 1205; page++) {
          const res = await ctx.app.inject({ method: 'GET', url: `/api/admin/site/get/list/by/filters?${qs}&rowsPerPage=100&page=${page}`, headers: { cookie: admin } });
          listed.push(...(res.json().sites as { code: string }[]).map((s) => s.code));
        }
        expect(exported, `${name} ${direction}`).toEqual(listed);
      }
    });

    it('reads the sites a batch at a time', async () => {
      const repo = createSiteListRepository(ctx.db);
      const sizes: number[] = [];
      for await (const batch of await repo.batches(siteListQuerySchema.parse({ filter: { type: 'export' }, sort: { name: 'cadena', direction: 'desc' } }), 500)) sizes.push(batch.length);
      expect(sizes).toEqual([500, 500, 205]);
    });
  });
});
