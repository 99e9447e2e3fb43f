import { describe, expect, it } from 'vitest';
import { issuesToFieldErrors } from '../errors.js';
import { checkSubmission, checkSubmissionShape, VALUE_LITRES_MAX, VALUE_TEMPERATURE_MAX, VALUE_TEMPERATURE_MIN } from './intervention-rules.js';
import { interventionSubmissionSchema, validateBlocksAgainstCatalogue, type CatalogueContext } from './interventions.js';
import { LITRES_MAX, TEMPERATURE_MAX, TEMPERATURE_MIN } from './reference.js';

const valid = {
  clientId: '6f1c2a9e-3b7d-4c4e-9a51-0f2b8d7e6c11',
  site: 4,
  date: '2024-05-02T08:30:00.000Z',
  values: [
    { composteur: 10, action: 1, valeur: null, bacDestination: null, observations: null, demandeIntervention: null },
    { composteur: 10, action: 3, valeur: 200, bacDestination: 12, observations: '  ok  ', demandeIntervention: 5 },
  ],
};
type Payload = Record<string, unknown>;
const withField = (field: string, value: unknown): Payload => ({ ...valid, [field]: value });
const withBlock = (field: string, value: unknown): Payload => ({ ...valid, values: [{ ...valid.values[0], [field]: value }, valid.values[1]] });
const withoutBlockField = (field: string): Payload => {
  const block: Payload = { ...valid.values[0] };
  delete block[field];
  return { ...valid, values: [block] };
};

const future = new Date(Date.now() + 60 * 60_000).toISOString();
const block = valid.values[0];

/** Payloads a phone or a hand-made request could send, valid or not in every way the schema knows. */
const corpus: [string, unknown][] = [
  ['a valid entry', valid],
  ['an entry without optional block fields', { ...valid, values: [{ composteur: 10, action: 1 }] }],
  ['not an object', 'texte'],
  ['an array', []],
  ['null', null],
  ['an empty object', {}],
  ['no clientId', withField('clientId', undefined)],
  ['a clientId that is not a UUID', withField('clientId', 'abc')],
  ['a clientId of the wrong version digit', withField('clientId', '6f1c2a9e-3b7d-9c4e-9a51-0f2b8d7e6c11')],
  ['a numeric clientId', withField('clientId', 12)],
  ['the nil UUID', withField('clientId', '00000000-0000-0000-0000-000000000000')],
  ['no site', withField('site', null)],
  ['a site as text', withField('site', '4')],
  ['a negative site', withField('site', -1)],
  ['a decimal site', withField('site', 1.5)],
  ['site zero', withField('site', 0)],
  ['an empty date', withField('date', '')],
  ['no date', withField('date', undefined)],
  ['a numeric date', withField('date', 1714638600000)],
  ['a date without offset', withField('date', '2024-05-02T08:30:00')],
  ['a date with an offset', withField('date', '2024-05-02T10:30:00+02:00')],
  ['a date without seconds', withField('date', '2024-05-02T08:30Z')],
  ['an offset without colon', withField('date', '2024-05-02T08:30:00+0200')],
  ['nanoseconds', withField('date', '2024-05-02T08:30:00.123456789Z')],
  ['a French date', withField('date', '02/05/2024 08:30')],
  ['an impossible day', withField('date', '2024-02-30T08:30:00Z')],
  ['a leap day', withField('date', '2024-02-29T08:30:00Z')],
  ['a date in the future', withField('date', future)],
  ['the year 0', withField('date', '0000-01-01T00:00:00Z')],
  ['a date before 2000', withField('date', '1999-12-31T23:59:59Z')],
  ['the first instant of 2000', withField('date', '2000-01-01T00:00:00Z')],
  ['2000 in Paris, still 1999 in UTC', withField('date', '2000-01-01T00:30:00+01:00')],
  ['values not an array', withField('values', 'x')],
  ['no values', withField('values', undefined)],
  ['no block', withField('values', [])],
  ['21 blocks', withField('values', Array.from({ length: 21 }, () => block))],
  ['20 blocks', withField('values', Array.from({ length: 20 }, () => block))],
  ['a block that is not an object', withField('values', ['x', block])],
  ['no cell', withBlock('composteur', null)],
  ['a cell as text', withBlock('composteur', '10')],
  ['a missing cell', withoutBlockField('composteur')],
  ['no action', withBlock('action', null)],
  ['a decimal action', withBlock('action', 1.5)],
  ['a missing action', withoutBlockField('action')],
  ['a text value', withBlock('valeur', '54,5')],
  ['a value that is too long', withBlock('valeur', 'x'.repeat(5001))],
  ['a value of 5000 characters', withBlock('valeur', 'x'.repeat(5000))],
  ['a boolean value', withBlock('valeur', true)],
  ['an object value', withBlock('valeur', { a: 1 })],
  ['a destination as text', withBlock('bacDestination', '12')],
  ['a negative destination', withBlock('bacDestination', -3)],
  ['numeric observations', withBlock('observations', 12)],
  ['observations too long', withBlock('observations', 'o'.repeat(1001))],
  ['observations too long before trimming only', withBlock('observations', ` ${'o'.repeat(1000)} `)],
  ['a request id as text', withBlock('demandeIntervention', 'x')],
  ['a request id of zero', withBlock('demandeIntervention', 0)],
  ['a site of 2^31', withField('site', 2_147_483_648)],
  ['a site of 2^31 - 1', withField('site', 2_147_483_647)],
  ['a request id of 2^31', withBlock('demandeIntervention', 2_147_483_648)],
  ['a cell of 2^53', withBlock('composteur', 2 ** 53)],
  ['a destination of 2^31', withBlock('bacDestination', 2_147_483_648)],
  ['NUL in the observations', withBlock('observations', 'a\u0000b')],
  ['a control character in the observations', withBlock('observations', 'a\u0007b')],
  ['tabs and newlines in the observations', withBlock('observations', 'a\tb\r\nc')],
  ['NUL in observations too long', withBlock('observations', `\u0000${'o'.repeat(1001)}`)],
  ['NUL in a text value', withBlock('valeur', 'x\u0000')],
  ['several faults at once', { clientId: 'x', site: 'y', date: '', values: [{ composteur: null, action: null, valeur: false, observations: 3 }] }],
];

/** What the server's route answers for the shape, one error per key. */
function serverShapeErrors(input: unknown) {
  const parsed = interventionSubmissionSchema.safeParse(input);
  return parsed.success ? [] : issuesToFieldErrors(parsed.error.issues);
}

function firstPerKey(errors: { key: string; error: string }[]) {
  const seen = new Set<string>();
  return errors.filter((e) => (seen.has(e.key) ? false : (seen.add(e.key), true)));
}

const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);

describe('checkSubmissionShape (the phone, without zod) and interventionSubmissionSchema (the server)', () => {
  it.each(corpus)('give the same errors for %s', (_name, input) => {
    const server = serverShapeErrors(input);
    const phone = firstPerKey(checkSubmissionShape(input));
    // A value that is not an object at all: zod's own English message, the phone's French one; the key is what matters.
    const comparable = (errors: { key: string; error: string }[]) =>
      errors.map((e) => (/^values\d+$/.test(e.key) || e.key === '' ? { key: e.key, error: '*' } : e)).sort(byKey);
    expect(comparable(phone)).toEqual(comparable(server));
  });

  it('accepts the valid entries of the corpus and refuses the others', () => {
    const accepted = corpus.filter(([, input]) => checkSubmissionShape(input).length === 0).map(([name]) => name);
    expect(accepted).toEqual([
      'a valid entry',
      'an entry without optional block fields',
      'the nil UUID',
      'a date with an offset',
      'nanoseconds',
      'a leap day',
      'a date in the future',
      'the first instant of 2000',
      '20 blocks',
      'a text value',
      'a value of 5000 characters',
      'observations too long before trimming only',
      'a site of 2^31 - 1',
      'tabs and newlines in the observations',
    ]);
  });
});

describe('checkSubmission', () => {
  const ctx: CatalogueContext = {
    typeActions: [
      { id: 1, valueKind: 'none', typeBac: [1, 3] },
      { id: 3, valueKind: 'transfer', typeBac: [1] },
      { id: 13, valueKind: 'none', typeBac: [1, 2, 3] },
    ],
    constantes: [],
    cells: [
      { id: 10, typeBac: 1, actif: true },
      { id: 12, typeBac: 3, actif: true },
    ],
  };

  it('adds the catalogue checks after the shape, one error per key', () => {
    const input = {
      ...valid,
      date: '',
      values: [
        { composteur: null, action: 13, observations: '' },
        { composteur: 10, action: 3, valeur: 200, bacDestination: 10 },
      ],
    };
    expect(checkSubmission(input, ctx)).toEqual([
      { key: 'date', error: "Veuillez renseigner la date de l'intervention" },
      { key: 'values0.composteur', error: 'Veuillez choisir une cellule' },
      { key: 'values0.observations', error: 'Les observations sont obligatoires pour cette action' },
      { key: 'values1.bacDestination', error: "La destination doit être différente de la cellule d'origine" },
    ]);
    expect(checkSubmission(valid, ctx)).toEqual(validateBlocksAgainstCatalogue(valid.values, ctx));
  });

  it('reports a date in the future together with every block error', () => {
    const input = { ...valid, date: future, values: [{ composteur: 99, action: 1 }, { composteur: 10, action: 13, observations: 'o'.repeat(1001) }] };
    expect(checkSubmission(input, ctx)).toEqual([
      { key: 'values1.observations', error: 'Les observations ne doivent pas dépasser 1000 caractères' },
      { key: 'date', error: 'La date ne peut pas être dans le futur' },
      { key: 'values0.composteur', error: "Cette cellule n'appartient pas à ce site" },
    ]);
  });

  it('survives blocks that are not objects', () => {
    expect(checkSubmission({ ...valid, values: [null] }, ctx).map((e) => e.key)).toEqual(['values0', 'values0.composteur', 'values0.action']);
  });
});

describe('bounds', () => {
  it('are those of reference.ts', () => {
    expect([VALUE_LITRES_MAX, VALUE_TEMPERATURE_MIN, VALUE_TEMPERATURE_MAX]).toEqual([LITRES_MAX, TEMPERATURE_MIN, TEMPERATURE_MAX]);
  });
});
