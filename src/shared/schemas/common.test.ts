import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { issuesToFieldErrors } from '../errors.js';
import {
  COMMON_MESSAGES,
  INT32_MAX,
  decimalFilterSchema,
  decimalIntSchema,
  hasControlChars,
  idParamsOf,
  idParamsSchema,
  idSchema,
  intSchema,
  isInt32Id,
  parseDecimal,
  plainString,
  textSchema,
} from './common.js';
import { PAGE_MAX, listQuerySchema } from './list.js';
import { loginSchema, passwordRequestSchema, signupSchema } from './account.js';
import { composterAddSchema, composterListQuerySchema } from './composters.js';
import { siteTypeAddSchema } from './site-types.js';
import { requesterUpdateSchema, siteListQuerySchema, siteReferentsSchema, siteUpdateSchema } from './sites.js';
import { userSitesUpdateSchema, userTypeUpdateSchema } from './users.js';
import { roleUpdateSchema } from './roles.js';
import { siteInterventionListQuerySchema } from './interventions.js';
import { interventionAdminListQuerySchema } from './interventions-admin.js';

const errorsOf = (schema: z.ZodType, input: unknown) => {
  const r = schema.safeParse(input);
  return r.success ? [] : issuesToFieldErrors(r.error.issues);
};
const accepts = (schema: z.ZodType, input: unknown) => schema.safeParse(input).success;

describe('int32 bounds', () => {
  it('is the largest PostgreSQL integer', () => {
    expect(INT32_MAX).toBe(2 ** 31 - 1);
  });

  it('takes JSON ids from 1 to 2^31 - 1', () => {
    const id = idSchema();
    for (const ok of [1, 7, 2_147_483_647]) expect(accepts(id, ok)).toBe(true);
    for (const bad of [0, -1, 1.5, 2_147_483_648, 2 ** 53, Number.NaN, Infinity, '7', null, true, [7], { id: 7 }]) {
      expect(errorsOf(id, bad), String(bad)).toEqual([{ key: '', error: 'Identifiant invalide' }]);
    }
    expect(errorsOf(idSchema('Veuillez choisir un site'), 2_147_483_648)).toEqual([{ key: '', error: 'Veuillez choisir un site' }]);
    expect([1, 2_147_483_647, 0, 2_147_483_648, 1.5, '1'].map(isInt32Id)).toEqual([true, true, false, false, false, false]);
  });

  it('takes JSON integers within the given bounds, never beyond int32', () => {
    const any = intSchema();
    expect([-2_147_483_647, 0, 2_147_483_647].map((n) => accepts(any, n))).toEqual([true, true, true]);
    expect(errorsOf(any, 2_147_483_648)).toEqual([{ key: '', error: 'Nombre entier invalide' }]);
    const litres = intSchema({ min: 0, max: 10_000, message: 'Quantité invalide' });
    expect([0, 10_000].map((n) => accepts(litres, n))).toEqual([true, true]);
    expect(errorsOf(litres, 10_001)).toEqual([{ key: '', error: 'Quantité invalide' }]);
    expect(errorsOf(litres, -1)).toEqual([{ key: '', error: 'Quantité invalide' }]);
    // A maximum above int32 is clamped to it.
    expect(accepts(intSchema({ max: 2 ** 40 }), 2_147_483_648)).toBe(false);
  });
});

describe('strict decimal integers (path and query)', () => {
  it('reads decimal digits only', () => {
    expect(['0', '7', '10', '2147483647'].map(parseDecimal)).toEqual([0, 7, 10, 2_147_483_647]);
    for (const bad of ['', ' 7', '7 ', '+7', '-1', '00', '07', '0x10', '1e3', '1.0', '1_000', '٣', '12345678901', 'abc']) {
      expect(parseDecimal(bad), bad).toBeNaN();
    }
  });

  it('refuses hexadecimal, exponents, signs, leading zeros and values beyond int32 with a French message', () => {
    const id = decimalIntSchema();
    expect(id.parse('16')).toBe(16);
    expect(id.parse('2147483647')).toBe(2_147_483_647);
    for (const bad of ['0x10', '1e3', '2147483648', '-1', '0', '00', '012', ' 1', '1 ', '1.5', '9'.repeat(30), '', 'abc', '\u0000', ['1'], { a: '1' }, null, undefined]) {
      expect(errorsOf(id, bad), JSON.stringify(bad)).toEqual([{ key: '', error: 'Identifiant invalide' }]);
    }
  });

  it('accepts an already parsed number when whole and within bounds', () => {
    const id = decimalIntSchema();
    expect(id.parse(12)).toBe(12);
    expect(accepts(id, 1.5)).toBe(false);
    expect(accepts(id, 2_147_483_648)).toBe(false);
  });

  it('applies other bounds and messages', () => {
    const numero = decimalIntSchema({ min: 0, max: 20, message: 'Numéro invalide' });
    expect(['0', '20'].map((v) => numero.parse(v))).toEqual([0, 20]);
    expect(errorsOf(numero, '21')).toEqual([{ key: '', error: 'Numéro invalide' }]);
    expect(errorsOf(decimalFilterSchema(), '2147483648')).toEqual([{ key: '', error: 'Filtre invalide' }]);
    expect(decimalFilterSchema({ min: 0 }).parse('0')).toBe(0);
  });

  it('gives {id} and named path parameters', () => {
    expect(idParamsSchema.parse({ id: '42' })).toEqual({ id: 42 });
    expect(errorsOf(idParamsSchema, { id: '0x10' })).toEqual([{ key: 'id', error: 'Identifiant invalide' }]);
    const userParams = idParamsOf('userId');
    expect(userParams.parse({ userId: '3' })).toEqual({ userId: 3 });
    expect(errorsOf(userParams, { userId: '1e3' })).toEqual([{ key: 'userId', error: 'Identifiant invalide' }]);
  });
});

describe('texts', () => {
  it('tells control characters from tabs and line breaks', () => {
    for (const bad of ['a\u0000b', '\u0001', '\u0007', '\u0008', '\u000b', '\u000c', '\u000e', '\u001b[31m', '\u001f', '\u007f']) expect(hasControlChars(bad), JSON.stringify(bad)).toBe(true);
    for (const ok of ['', 'Sac retiré', 'a\tb', 'ligne 1\nligne 2', 'ligne 1\r\nligne 2', 'émoji 🌱', '\u00a0insécable']) expect(hasControlChars(ok), JSON.stringify(ok)).toBe(false);
  });

  it('refuses NUL and control characters in any string, with a French field error', () => {
    const schema = z.object({ nom: plainString().trim().max(10) });
    expect(errorsOf(schema, { nom: 'a\u0000b' })).toEqual([{ key: 'nom', error: COMMON_MESSAGES.controlChars }]);
    expect(COMMON_MESSAGES.controlChars).toBe('Caractères non autorisés');
    expect(schema.parse({ nom: '  Jean\tPaul ' })).toEqual({ nom: 'Jean\tPaul' });
    expect(errorsOf(schema, { nom: 12 })).toHaveLength(1);
  });

  it('bounds text fields', () => {
    const obs = textSchema(5);
    expect(obs.parse('a\nb')).toBe('a\nb');
    expect(errorsOf(obs, '123456')).toEqual([{ key: '', error: '5 caractères maximum' }]);
    expect(errorsOf(obs, 'a\u0000')).toEqual([{ key: '', error: 'Caractères non autorisés' }]);
    expect(errorsOf(textSchema(5, { type: 'Observations invalides' }), 3)).toEqual([{ key: '', error: 'Observations invalides' }]);
  });
});

describe('list queries', () => {
  const schema = listQuerySchema({ sortFields: ['nom'], defaultSort: 'nom', filters: { site: decimalFilterSchema(), nom: plainString().max(20) } });

  it('reads page, page size and filters as strict decimals', () => {
    expect(schema.parse({ page: '2', rowsPerPage: '50', filter: { site: '12' } })).toMatchObject({ page: 2, rowsPerPage: 50, filter: { site: 12 } });
    expect(schema.parse({})).toMatchObject({ page: 0, rowsPerPage: 20, search: '' });
  });

  it('bounds the page so the offset stays sane', () => {
    expect(schema.parse({ page: String(PAGE_MAX), rowsPerPage: '100' })).toMatchObject({ page: PAGE_MAX });
    expect(PAGE_MAX * 100).toBeLessThanOrEqual(1_000_000);
    for (const page of [String(PAGE_MAX + 1), '2147483648', '-1', '1e3', '0x10', ['1', '2']]) {
      expect(errorsOf(schema, { page }), JSON.stringify(page)).toEqual([{ key: 'page', error: 'Page invalide' }]);
    }
  });

  it('refuses page sizes written otherwise than in decimal', () => {
    expect(errorsOf(schema, { rowsPerPage: '1e2' })).toEqual([{ key: 'rowsPerPage', error: 'Taille de page invalide (5, 10, 20, 50 ou 100)' }]);
    expect(errorsOf(schema, { rowsPerPage: '7' })).toEqual([{ key: 'rowsPerPage', error: 'Taille de page invalide (5, 10, 20, 50 ou 100)' }]);
  });

  it('refuses out-of-range filters and control characters in texts', () => {
    expect(errorsOf(schema, { filter: { site: '2147483648' } })).toEqual([{ key: 'filter.site', error: 'Filtre invalide' }]);
    expect(errorsOf(schema, { filter: { nom: 'a\u0000' } })).toEqual([{ key: 'filter.nom', error: 'Caractères non autorisés' }]);
    expect(errorsOf(schema, { search: 'a\u0000' })).toEqual([{ key: 'search', error: 'Caractères non autorisés' }]);
    expect(errorsOf(schema, { search: ['a', 'b'] })).toHaveLength(1);
  });
});

describe('the API input schemas', () => {
  // One well-formed payload per schema and the text fields a NUL is tried in.
  const cases: [string, z.ZodType, Record<string, unknown>, string[]][] = [
    ['login', loginSchema, { username: 'jean@exemple.fr', password: 'motdepasse' }, ['username', 'password']],
    ['password reset request', passwordRequestSchema, { mail: 'jean@exemple.fr' }, ['mail']],
    [
      'signup',
      signupSchema,
      { type: 1, organisme: '', nom: 'NOM', prenom: 'Jean', tel: '0600000000', email: 'jean@exemple.fr', password: 'motdepasse1', confirmPassword: 'motdepasse1' },
      ['nom', 'prenom', 'email', 'password'],
    ],
    ['composter type', composterAddSchema, { volume: 400, precisions: 'Bois' }, ['precisions']],
    ['site type', siteTypeAddSchema, { libelle: 'Quartier', code: 'QUA' }, ['libelle', 'code']],
    ['site update', siteUpdateSchema, { nom: 'Site', adresse: 'rue de Siam', numero: '1', type: 1, observations: 'ok', cadena: '1234', statut: 1 }, ['nom', 'adresse', 'numero', 'observations', 'cadena']],
    [
      'requester update',
      requesterUpdateSchema,
      { fonction: 'Autre', precisions: 'Comité', telephone: '0298000000', telephone2: null, email: 'a@exemple.fr', periodeImplantation: null, anneeImplantation: null },
      ['precisions', 'telephone', 'email'],
    ],
  ];

  it.each(cases)('%s refuses NUL in each text field', (_name, schema, valid, fields) => {
    expect(errorsOf(schema, valid)).toEqual([]);
    for (const field of fields) {
      expect(errorsOf(schema, { ...valid, [field]: `${String(valid[field])}\u0000` }), field).toContainEqual({ key: field, error: 'Caractères non autorisés' });
    }
  });

  it('refuses ids beyond int32 in bodies', () => {
    expect(errorsOf(siteUpdateSchema, { adresse: 'rue', type: 2_147_483_648, statut: 1 })).toContainEqual({ key: 'type', error: 'Nombre entier invalide' });
    expect(errorsOf(siteReferentsSchema, { user: [2_147_483_648] })).toEqual([{ key: 'user0', error: 'Nombre entier invalide' }]);
    expect(errorsOf(userSitesUpdateSchema, { site: ['0x10'] })).toEqual([{ key: 'site0', error: 'Site inconnu' }]);
    expect(errorsOf(roleUpdateSchema, { agents: [2_147_483_648] })).toEqual([{ key: 'agents0', error: 'Agent inconnu' }]);
    expect(errorsOf(userTypeUpdateSchema, { type: 2_147_483_648 })).toEqual([{ key: 'type', error: "Type d'utilisateur inconnu" }]);
    expect(errorsOf(userTypeUpdateSchema, {})).toEqual([{ key: 'type', error: 'Le type est obligatoire' }]);
    expect(userTypeUpdateSchema.parse({ type: '2' })).toEqual({ type: 2 });
  });

  it('refuses out-of-range query filters', () => {
    expect(errorsOf(siteListQuerySchema, { filter: { statut: ['1', '2147483648'] } })).toEqual([{ key: 'filter.statut1', error: 'Statut inconnu' }]);
    expect(errorsOf(composterListQuerySchema, { filter: { volume: '1e3' } })).toEqual([{ key: 'filter.volume', error: 'Volume invalide' }]);
    expect(errorsOf(siteInterventionListQuerySchema, { filter: { numeroBac: '2147483648' } })).toEqual([{ key: 'filter.numeroBac', error: 'Filtre invalide' }]);
    expect(errorsOf(interventionAdminListQuerySchema, { filter: { site: '0x10' } })).toEqual([{ key: 'filter.site', error: 'Filtre invalide' }]);
  });
});

describe('dates', () => {
  it('refuses site dates outside 1900-2999, which include years a database cannot store', () => {
    const base = { adresse: 'rue', type: 1, statut: 1 };
    for (const d of ['0000-01-01', '1899-12-31', '3000-01-01', '0000-01-01T00:00:00Z']) {
      expect(errorsOf(siteUpdateSchema, { ...base, dateImplantation: d }), d).toEqual([{ key: 'dateImplantation', error: 'Date invalide' }]);
    }
    expect(errorsOf(siteUpdateSchema, { ...base, dateImplantation: '1900-01-01', dateInauguration: '2999-12-31' })).toEqual([]);
  });
});
