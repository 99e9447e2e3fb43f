import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_BOM, CopyBinaryLines, csvChunks, formatCsvCell, sqlCsvText, sqlParisDateTime, type CsvColumn } from './csv.js';
import { inlineParameters, sqlLiteral } from './db/sql-literal.js';
import { formatParisDateTime } from '../shared/dates.js';
import { TEST_DRIVERS, openTestDatabase } from '../../tests/helpers/test-app.js';

async function collect(gen: AsyncIterable<string>) {
  let out = '';
  for await (const chunk of gen) out += chunk;
  return out;
}

async function* batchesOf<T>(...batches: T[][]) {
  for (const b of batches) yield b;
}

describe('CSV cells', () => {
  it('prefixes text that a spreadsheet would run as a formula with an apostrophe', () => {
    expect(formatCsvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(formatCsvCell('+33 2 98')).toBe("'+33 2 98");
    expect(formatCsvCell('-1')).toBe("'-1");
    expect(formatCsvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(formatCsvCell('\tcmd')).toBe("'\tcmd");
    expect(formatCsvCell('\rcmd')).toBe(`"'\rcmd"`);
    expect(formatCsvCell('Rue de Siam')).toBe('Rue de Siam');
  });

  it('quotes cells holding the separator, quotes or line breaks and doubles inner quotes', () => {
    expect(formatCsvCell('a;b')).toBe('"a;b"');
    expect(formatCsvCell('dit "bonjour"')).toBe('"dit ""bonjour"""');
    expect(formatCsvCell('ligne 1\nligne 2')).toBe('"ligne 1\nligne 2"');
  });

  it('writes numbers as numbers with a French decimal comma, booleans as Oui/Non, and nothing for empty values', () => {
    expect(formatCsvCell(-5)).toBe('-5');
    expect(formatCsvCell(12.5)).toBe('12,5');
    expect(formatCsvCell(true)).toBe('Oui');
    expect(formatCsvCell(false)).toBe('Non');
    expect(formatCsvCell(null)).toBe('');
    expect(formatCsvCell(undefined)).toBe('');
  });

  it('writes dates as dd/MM/yyyy in Europe/Paris, across midnight UTC and daylight saving', () => {
    // 23:30 UTC on 31 December is already 1 January in Paris (UTC+1).
    expect(formatCsvCell(new Date('2023-12-31T23:30:00Z'))).toBe('01/01/2024');
    // 22:30 UTC on 30 June is 00:30 on 1 July in Paris (UTC+2).
    expect(formatParisDateTime(new Date('2024-06-30T22:30:00Z'))).toBe('01/07/2024 00:30');
    expect(formatCsvCell(new Date('2024-03-05T12:00:00Z'), 'datetime')).toBe('05/03/2024 13:00');
  });
});

describe('CSV file', () => {
  const columns: CsvColumn<{ nom: string; n: number; d: Date }>[] = [
    { header: 'Nom', value: (r) => r.nom },
    { header: 'Volume total', value: (r) => r.n },
    { header: 'Date Convention', value: (r) => r.d },
  ];

  it('starts with a byte-order mark and a header line, separates with ; and ends lines with CRLF', async () => {
    const text = await collect(csvChunks(columns, batchesOf([{ nom: 'Jardin; nord', n: 400, d: new Date('2024-02-01T12:00:00Z') }])));
    expect(text.startsWith(CSV_BOM)).toBe(true);
    expect(text.slice(1)).toBe('Nom;Volume total;Date Convention\r\n"Jardin; nord";400;01/02/2024\r\n');
  });

  it('pulls the next batch of rows only when the reader asks for more', async () => {
    const pulled: number[] = [];
    async function* source() {
      for (let i = 0; i < 3; i++) {
        pulled.push(i);
        yield [{ nom: `site ${i}`, n: i, d: new Date('2024-01-10T12:00:00Z') }];
      }
    }
    const gen = csvChunks(columns, source());
    expect((await gen.next()).value).toContain('Nom;');
    expect(pulled).toEqual([]);
    expect((await gen.next()).value).toBe('site 0;0;10/01/2024\r\n');
    expect(pulled).toEqual([0]);
    await gen.return(undefined);
    expect(pulled).toEqual([0]);
  });
});

describe('CSV rules in SQL', () => {
  const tricky = [
    'Rue de Siam',
    '',
    '=1+1',
    '+33 2 98',
    '-5 °C',
    '@SUM(A1)',
    '\tcmd',
    '\rcmd',
    'a;b',
    'dit "bonjour"',
    'ligne 1\nligne 2',
    'ligne 1\r\nligne 2',
    '"',
    ';',
    "l'apostrophe",
    'antislash \\ et \\n',
    'Épinette — Brest',
    ' =espace devant',
  ];

  describe.each(TEST_DRIVERS)('on %s', (driver) => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>;
    beforeAll(async () => {
      handle = await openTestDatabase(driver, { migrated: false });
    });
    afterAll(() => handle.close());

    it('writes every text cell as formatCsvCell does, and NULL as an empty cell', async () => {
      for (const text of [...tricky, null]) {
        const { rows } = await sql<{ cell: string }>`SELECT ${sqlCsvText(sql`x.v`)} AS cell FROM (SELECT CAST(${text} AS text) AS v) x`.execute(handle.db);
        expect(rows[0].cell, JSON.stringify(text)).toBe(formatCsvCell(text));
      }
    });

    it('writes dates and times in Paris as the JavaScript formatter does, across daylight saving', async () => {
      for (const iso of ['2023-12-31T23:30:00Z', '2024-03-31T00:59:59.999999Z', '2024-03-31T01:00:00Z', '2024-10-27T00:30:00Z', '2024-10-27T01:30:00.123456Z']) {
        const { rows } = await sql<{ cell: string }>`SELECT ${sqlParisDateTime(sql`CAST(${iso} AS timestamptz)`)} AS cell`.execute(handle.db);
        expect(rows[0].cell, iso).toBe(formatCsvCell(new Date(iso), 'datetime'));
      }
      const none = await sql<{ cell: string }>`SELECT ${sqlParisDateTime(sql`NULL::timestamptz`)} AS cell`.execute(handle.db);
      expect(none.rows[0].cell).toBe('');
    });

    it('reads back every literal it writes into a statement', async () => {
      for (const value of [...tricky, 0, -12.5, 2147483647, true, false, null, new Date('2024-02-29T12:34:56.789Z'), [1, 2, 3]]) {
        const text = inlineParameters({ sql: 'SELECT $1 AS v', parameters: [value] });
        const got = (await sql.raw<{ v: unknown }>(text).execute(handle.db)).rows[0].v;
        if (value instanceof Date) expect(new Date(got as string).toISOString()).toBe(value.toISOString());
        else expect(got, text).toEqual(value);
      }
    });
  });

  it('writes $n only where the statement has a parameter, and refuses values it cannot write', () => {
    expect(inlineParameters({ sql: 'SELECT $1, $2, $10', parameters: [1, 'a', 3, 4, 5, 6, 7, 8, 9, "l'x"] })).toBe("SELECT 1, E'a', E'l''x'");
    expect(() => inlineParameters({ sql: 'SELECT $2', parameters: [1] })).toThrow();
    expect(() => sqlLiteral(Number.NaN)).toThrow();
    expect(() => sqlLiteral({ a: 1 })).toThrow();
    expect(sqlLiteral('a\\b')).toBe("E'a\\\\b'");
  });
});

describe('binary COPY reader', () => {
  /** A binary COPY stream of one text column, as PostgreSQL sends it. */
  function copyStream(lines: (string | null)[]): Buffer {
    const parts = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.from([0, 0, 0, 0, 0, 0, 0, 0])];
    for (const line of lines) {
      const head = Buffer.alloc(6);
      head.writeInt16BE(1, 0);
      if (line === null) {
        head.writeInt32BE(-1, 2);
        parts.push(head);
      } else {
        const body = Buffer.from(line, 'utf8');
        head.writeInt32BE(body.length, 2);
        parts.push(head, body);
      }
    }
    const trailer = Buffer.alloc(2);
    trailer.writeInt16BE(-1, 0);
    parts.push(trailer);
    return Buffer.concat(parts);
  }

  async function decode(input: Buffer, cut: number, first = '') {
    const reader = new CopyBinaryLines(first);
    const out: Buffer[] = [];
    reader.on('data', (c: Buffer) => out.push(c));
    for (let i = 0; i < input.length; i += cut) reader.write(input.subarray(i, i + cut));
    reader.end();
    await new Promise((resolve, reject) => {
      reader.on('end', resolve);
      reader.on('error', reject);
    });
    return Buffer.concat(out).toString('utf8');
  }

  it('passes on the bytes of each line, however the stream is cut', async () => {
    const lines = ['a;b\r\n', 'Épinette;"x\ny"\r\n', null, '\r\n', 'é'.repeat(3000) + '\r\n'];
    const input = copyStream(lines);
    const expected = `\uFEFFtête\r\n${lines.filter((l) => l !== null).join('')}`;
    for (const cut of [1, 2, 3, 5, 7, 19, 64, 1000, input.length]) expect(await decode(input, cut, '\uFEFFtête\r\n'), `cut ${cut}`).toBe(expected);
  });

  it('fails on a stream cut before its trailer or that is not a binary COPY', async () => {
    const input = copyStream(['a\r\n', 'b\r\n']);
    await expect(decode(input.subarray(0, input.length - 2), 4)).rejects.toThrow(/trailer/);
    await expect(decode(Buffer.from('x'.repeat(40)), 40)).rejects.toThrow(/binary COPY/);
  });
});
