import { describe, expect, it } from 'vitest';
import { CSV_BOM, csvChunks, formatCsvCell, type CsvColumn } from './csv.js';
import { formatParisDateTime } from '../shared/dates.js';

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
