import { describe, expect, it } from 'vitest';
import { issuesToFieldErrors } from '../errors.js';
import { interventionAdminListQuerySchema } from './interventions-admin.js';
import {
  displayBlockValue,
  displayValue,
  interventionBlockSchema,
  interventionSubmissionSchema,
  isFutureDate,
  siteInterventionListQuerySchema,
  submissionDateError,
  storedValueOf,
  validateBlocksAgainstCatalogue,
  type CatalogueContext,
} from './interventions.js';

// The action catalogue (src/shared/domain.ts), as /api/typeAction/get/all and /api/typeActionConstante/get/all give it.
const typeActions: CatalogueContext['typeActions'] = [
  { id: 1, valueKind: 'none', typeBac: [1, 3] },
  { id: 2, valueKind: 'none', typeBac: [1] },
  { id: 3, valueKind: 'transfer', typeBac: [1] },
  { id: 4, valueKind: 'litres', typeBac: [1, 2, 3] },
  { id: 6, valueKind: 'temperature', typeBac: [1, 3] },
  { id: 7, valueKind: 'constant', typeBac: [2] },
  { id: 9, valueKind: 'constant', typeBac: [1, 2, 3] },
  { id: 13, valueKind: 'none', typeBac: [1, 2, 3] },
  { id: 14, valueKind: 'text', typeBac: [1, 2, 3] },
  { id: 16, valueKind: 'constant', typeBac: [1] },
];
const constantes = [
  ...[7, 16, 19].flatMap((idAction) =>
    ['Vide', '1/4', '1/2', '3/4', 'Plein'].map((constante, i) => ({ idConstante: i + 1, constante, idAction })),
  ),
  { idConstante: 10, constante: 'Bon état', idAction: 9 },
  { idConstante: 12, constante: 'Endommagé', idAction: 9 },
];
// Cells: 10 apport n°1, 11 broyat n°2, 12 maturation n°3, 13 retired maturation n°4.
const cells = [
  { id: 10, numero: 1, typeBac: 1, actif: true },
  { id: 11, numero: 2, typeBac: 2, actif: true },
  { id: 12, numero: 3, typeBac: 3, actif: true },
  { id: 13, numero: 4, typeBac: 3, actif: false },
];
const ctx: CatalogueContext = { typeActions, constantes, cells };

const validate = (block: Parameters<typeof validateBlocksAgainstCatalogue>[0][number]) => validateBlocksAgainstCatalogue([block], ctx);

describe('validateBlocksAgainstCatalogue', () => {
  it('accepts a valid block of each value kind', () => {
    expect(
      validateBlocksAgainstCatalogue(
        [
          { composteur: 10, action: 1, valeur: null },
          { composteur: 10, action: 3, valeur: 200, bacDestination: 12 },
          { composteur: 12, action: 4, valeur: '10000' },
          { composteur: 12, action: 6, valeur: '-20' },
          { composteur: 12, action: 6, valeur: '54,5' },
          { composteur: 11, action: 7, valeur: 1 },
          { composteur: 10, action: 14, valeur: 'Charnière changée' },
          { composteur: 10, action: 13, observations: 'Sac plastique retiré' },
          { composteur: 10, action: 2, valeur: '' },
        ],
        ctx,
      ),
    ).toEqual([]);
  });

  it('names the cell that is unknown to the site, or retired', () => {
    expect(validate({ composteur: 99, action: 1 })).toEqual([{ key: 'values0.composteur', error: "Cette cellule n'appartient pas à ce site" }]);
    expect(validate({ composteur: 13, action: 1 })).toEqual([{ key: 'values0.composteur', error: 'Cette cellule est désactivée' }]);
    expect(validate({ composteur: null, action: 1 })).toEqual([{ key: 'values0.composteur', error: 'Veuillez choisir une cellule' }]);
  });

  it('refuses an action the cell type does not allow, and an unknown action', () => {
    expect(validate({ composteur: 10, action: 7, valeur: 1 })).toEqual([{ key: 'values0.action', error: 'Action non autorisée sur cette cellule' }]);
    expect(validate({ composteur: 10, action: 99 })).toEqual([{ key: 'values0.action', error: 'Action inconnue' }]);
    expect(validate({ composteur: 10, action: undefined })).toEqual([{ key: 'values0.action', error: 'Veuillez choisir une action' }]);
  });

  it.each([
    [4, 10, null, 'Veuillez renseigner une quantité en litres'],
    [4, 10, 1.5, 'La quantité doit être un nombre entier de litres entre 0 et 10 000'],
    [4, 10, 10_001, 'La quantité doit être un nombre entier de litres entre 0 et 10 000'],
    [4, 10, 'beaucoup', 'La quantité doit être un nombre entier de litres entre 0 et 10 000'],
    [6, 10, '', 'Veuillez renseigner une température'],
    [6, 10, 91, 'La température doit être comprise entre -20 et 90 °C'],
    [16, 10, null, 'Veuillez choisir une valeur'],
    [16, 10, 12, 'Valeur non autorisée pour cette action'],
    [9, 10, 5, 'Valeur non autorisée pour cette action'],
    [14, 10, ' ', 'Veuillez renseigner une précision'],
    [14, 10, 'x'.repeat(501), 'La précision ne doit pas dépasser 500 caractères'],
    [1, 10, 'oui', 'Cette action ne prend pas de valeur'],
  ])('refuses for action %i on cell %i the value %j', (action, composteur, valeur, error) => {
    expect(validate({ composteur, action, valeur })).toEqual([{ key: 'values0.valeur', error }]);
  });

  it('requires a transfer destination that is another active maturation cell of the site', () => {
    const transfer = (bacDestination: number | null) => validate({ composteur: 10, action: 3, valeur: 100, bacDestination });
    expect(transfer(null)).toEqual([{ key: 'values0.bacDestination', error: 'Veuillez choisir une cellule de destination' }]);
    expect(transfer(11)).toEqual([{ key: 'values0.bacDestination', error: 'La destination doit être une cellule de maturation active du site' }]);
    expect(transfer(13)).toEqual([{ key: 'values0.bacDestination', error: 'La destination doit être une cellule de maturation active du site' }]);
    expect(transfer(99)).toEqual([{ key: 'values0.bacDestination', error: 'La destination doit être une cellule de maturation active du site' }]);
    expect(transfer(10)).toEqual([{ key: 'values0.bacDestination', error: "La destination doit être différente de la cellule d'origine" }]);
    expect(validate({ composteur: 10, action: 4, valeur: 5, bacDestination: 12 })).toEqual([
      { key: 'values0.bacDestination', error: 'Cette action ne prend pas de cellule de destination' },
    ]);
  });

  it('requires observations for action 13 only', () => {
    expect(validate({ composteur: 10, action: 13, observations: '  ' })).toEqual([
      { key: 'values0.observations', error: 'Les observations sont obligatoires pour cette action' },
    ]);
    expect(validate({ composteur: 10, action: 1, observations: null })).toEqual([]);
  });

  it('keys each error by the index of its block', () => {
    const errors = validateBlocksAgainstCatalogue(
      [
        { composteur: 10, action: 1 },
        { composteur: 10, action: 4, valeur: null },
        { composteur: 13, action: 13 },
      ],
      ctx,
    );
    expect(errors.map((e) => e.key)).toEqual(['values1.valeur', 'values2.composteur', 'values2.observations']);
  });
});

describe('interventionSubmissionSchema', () => {
  const base = { clientId: '0b6f6a58-8f2e-4c47-9f4e-6a1c1b2d3e4f', site: 1, date: '2024-05-10T08:00:00.000Z', values: [{ composteur: 10, action: 1 }] };
  const errorsOf = (input: unknown) => {
    const r = interventionSubmissionSchema.safeParse(input);
    return r.success ? [] : issuesToFieldErrors(r.error.issues);
  };

  it('fills the optional block fields with null and trims observations', () => {
    const parsed = interventionSubmissionSchema.parse({ ...base, values: [{ composteur: 10, action: 13, observations: '  Nettoyé  ' }, { composteur: 10, action: 1, observations: '   ' }] });
    expect(parsed.values).toEqual([
      { composteur: 10, action: 13, valeur: null, bacDestination: null, observations: 'Nettoyé', demandeIntervention: null },
      { composteur: 10, action: 1, valeur: null, bacDestination: null, observations: null, demandeIntervention: null },
    ]);
  });

  it('leaves a date in the future to submissionDateError, which allows two minutes of clock drift', () => {
    // The shape accepts it, so that the service reports it together with the block errors.
    const future = new Date(Date.now() + 5 * 60_000).toISOString();
    expect(errorsOf({ ...base, date: future })).toEqual([]);
    expect(submissionDateError(future)).toEqual({ key: 'date', error: 'La date ne peut pas être dans le futur' });
    expect(submissionDateError(new Date(Date.now() + 60_000).toISOString())).toBeNull();
    expect(isFutureDate('2024-05-10T08:02:01.000Z', Date.parse('2024-05-10T08:00:00.000Z'))).toBe(true);
    expect(isFutureDate('2024-05-10T08:01:59.000Z', Date.parse('2024-05-10T08:00:00.000Z'))).toBe(false);
  });

  it('refuses a missing or malformed date, accepting an explicit offset', () => {
    expect(errorsOf({ ...base, date: '' })).toEqual([{ key: 'date', error: "Veuillez renseigner la date de l'intervention" }]);
    expect(errorsOf({ ...base, date: '10/05/2024 10:00' })).toEqual([{ key: 'date', error: 'Date invalide' }]);
    expect(errorsOf({ ...base, date: '2024-05-10T10:00:00+02:00' })).toEqual([]);
  });

  it('takes one to twenty blocks', () => {
    expect(errorsOf({ ...base, values: [] })).toEqual([{ key: 'values', error: 'Veuillez ajouter au moins une action' }]);
    expect(errorsOf({ ...base, values: Array.from({ length: 21 }, () => ({ composteur: 10, action: 1 })) })).toEqual([
      { key: 'values', error: '20 actions au maximum par saisie' },
    ]);
  });

  it('asks for a cell and an action with the messages of the form', () => {
    expect(errorsOf({ ...base, values: [{ composteur: null, action: null }] })).toEqual([
      { key: 'values0.composteur', error: 'Veuillez choisir une cellule' },
      { key: 'values0.action', error: 'Veuillez choisir une action' },
    ]);
    expect(interventionBlockSchema.safeParse({ composteur: 10, action: 1, observations: 'x'.repeat(1001) }).error?.issues[0].message).toBe(
      'Les observations ne doivent pas dépasser 1000 caractères',
    );
  });
});

describe('displayValue', () => {
  const row = { valeurNombre: null, constante: null, valeurTexte: null, destinationNumeroBac: null };

  it('shows litres, a transfer with its destination, and a temperature', () => {
    expect(displayValue({ ...row, idAction: 3, valeurNombre: 200, destinationNumeroBac: 3 })).toBe('200 L vers le composteur n°3');
    expect(displayValue({ ...row, idAction: 11, valeurNombre: 150 })).toBe('150 L');
    expect(displayValue({ ...row, idAction: 4, valeurNombre: 0 })).toBe('0 L');
    expect(displayValue({ ...row, idAction: 6, valeurNombre: 54.5 })).toBe('54.5 °C');
  });

  it('shows constants by their label and free text as typed', () => {
    expect(displayValue({ ...row, idAction: 19, constante: 'Plein' })).toBe('Plein');
    expect(displayValue({ ...row, idAction: 9, constante: 'Endommagé' })).toBe('Endommagé');
    expect(displayValue({ ...row, idAction: 18, valeurTexte: 'Porte arrachée' })).toBe('Porte arrachée');
  });

  it('shows nothing for actions without a value, even if a stray value is stored', () => {
    expect(displayValue({ ...row, idAction: 1, valeurNombre: 5 })).toBe('');
    expect(displayValue({ ...row, idAction: 13, valeurTexte: 'x' })).toBe('');
    expect(displayValue({ ...row, idAction: 15 })).toBe('');
  });

  it('shows a queued block from the cached catalogue', () => {
    const cache = { constantes, cells };
    expect(displayBlockValue({ action: 3, valeur: '200', bacDestination: 12 }, cache)).toBe('200 L vers le composteur n°3');
    expect(displayBlockValue({ action: 16, valeur: 5 }, cache)).toBe('Plein');
    expect(displayBlockValue({ action: 6, valeur: '54,5' }, cache)).toBe('54.5 °C');
    expect(displayBlockValue({ action: null, valeur: 5 }, cache)).toBe('');
  });
});

describe('storedValueOf', () => {
  it('puts each kind in its column', () => {
    expect(storedValueOf('54,5', 'temperature')).toEqual({ valeurNombre: 54.5, valeurConstante: null, valeurTexte: null });
    expect(storedValueOf(4, 'constant')).toEqual({ valeurNombre: null, valeurConstante: 4, valeurTexte: null });
    expect(storedValueOf('  texte ', 'text')).toEqual({ valeurNombre: null, valeurConstante: null, valeurTexte: 'texte' });
    expect(storedValueOf(null, 'none')).toEqual({ valeurNombre: null, valeurConstante: null, valeurTexte: null });
  });
});

describe('intervention list queries', () => {
  it('default to the newest first and keep an explicit sort', () => {
    expect(siteInterventionListQuerySchema.parse({}).sort).toEqual({ name: 'date', direction: 'desc' });
    expect(siteInterventionListQuerySchema.parse({ sort: { name: 'numeroBac', direction: 'asc' } }).sort).toEqual({ name: 'numeroBac', direction: 'asc' });
  });

  it('take the site id of the administrators list and refuse unknown parameters', () => {
    expect(interventionAdminListQuerySchema.parse({ id: '12', filter: { action: '3' } })).toMatchObject({ id: 12, filter: { action: 3 } });
    expect(interventionAdminListQuerySchema.safeParse({ site: '12' }).success).toBe(false);
    expect(siteInterventionListQuerySchema.safeParse({ filter: { site: '1' } }).success).toBe(false);
  });
});
