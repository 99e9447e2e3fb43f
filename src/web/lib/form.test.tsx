import { act, renderHook } from '@testing-library/react';
import { notifications } from '@mantine/notifications';
import { HTTPError } from 'ky';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { signupSchema } from '../../shared/schemas/account';
import { REQUIRED_MESSAGE, schemaInput, serverKeyToPath, useSaveAction, useZodForm, validateWithSchema } from './form';

const blockSchema = z.object({
  date: z.string().min(1, { message: 'Date obligatoire' }),
  telephone2: z.string().optional(),
  values: z.array(z.object({ observations: z.string().max(3, { message: '3 caractères au plus' }) })),
});

describe('validateWithSchema', () => {
  it('reports blank fields with the messages the schema gives for them', () => {
    const errors = validateWithSchema(signupSchema, schemaInput({ type: null, nom: '', prenom: '', tel: '', email: '', password: '', confirmPassword: '' }, ['type']));
    expect(errors).toMatchObject({ type: 'Champ obligatoire', nom: 'Champ obligatoire', email: 'Champ obligatoire', tel: 'Champ obligatoire' });
  });

  it('keeps blank strings as strings unless the field is listed as blank-as-missing', () => {
    const schema = z.object({ nom: z.string().max(50).nullable(), precisions: z.string().optional() });
    expect(validateWithSchema(schema, { nom: null, precisions: '' })).toEqual({});
    expect(schemaInput({ type: '', nom: null, other: '' }, ['type', 'nom'])).toEqual({ type: undefined, nom: undefined, other: '' });
  });

  it('gives French messages where the schema sets none', () => {
    const errors = validateWithSchema(z.object({ age: z.number().min(3), nom: z.string() }), { age: '' });
    expect(errors).toEqual({ age: REQUIRED_MESSAGE, nom: REQUIRED_MESSAGE });
    const tooSmall = validateWithSchema(z.object({ age: z.number().min(3) }), { age: 1 });
    expect(tooSmall.age).toMatch(/trop petit/i);
  });

  it('names array fields with dotted indexes like the form does', () => {
    const errors = validateWithSchema(blockSchema, { date: 'x', values: [{ observations: 'ok' }, { observations: 'trop long' }] });
    expect(errors).toEqual({ 'values.1.observations': '3 caractères au plus' });
  });
});

describe('serverKeyToPath', () => {
  const values = { date: '', telephone2: '', values: [{ observations: '' }, { observations: '' }] };

  it('maps an indexed server key onto the matching list item', () => {
    expect(serverKeyToPath('values1.observations', values)).toBe('values.1.observations');
  });

  it('keeps a field whose own name ends with a digit', () => {
    expect(serverKeyToPath('telephone2', values)).toBe('telephone2');
  });

  it('returns null for a key the form has no field for', () => {
    expect(serverKeyToPath('site', values)).toBeNull();
    expect(serverKeyToPath('values5.observations', values)).toBeNull();
  });
});

describe('useZodForm', () => {
  it('hands the parsed schema output to the submit handler', async () => {
    const { result } = renderHook(() =>
      useZodForm(signupSchema, {
        blankAsMissing: ['type'],
        initialValues: { type: '2' as string | null, organisme: ' Mairie ', nom: 'DUPONT', prenom: '', tel: '0601020304', email: 'a@b.fr', password: 'motdepasse', confirmPassword: 'motdepasse' },
      }),
    );
    const handler = vi.fn();
    await act(async () => result.current.onSubmit(handler)());
    expect(handler).toHaveBeenCalledTimes(1);
    expect(handler.mock.calls[0][0]).toMatchObject({ type: 2, organisme: 'Mairie', prenom: '' });
  });

  it('does not submit invalid values and shows the errors under the fields', async () => {
    const { result } = renderHook(() => useZodForm(blockSchema, { initialValues: { date: '', telephone2: '', values: [{ observations: '' }] } }));
    const handler = vi.fn();
    await act(async () => result.current.onSubmit(handler)());
    expect(handler).not.toHaveBeenCalled();
    expect(result.current.errors.date).toBe('Date obligatoire');
  });

  it('puts server errors under their fields and returns the ones without a field', () => {
    const { result } = renderHook(() => useZodForm(blockSchema, { initialValues: { date: '', telephone2: '', values: [{ observations: '' }] } }));
    let unmatched: unknown;
    act(() => {
      unmatched = result.current.setServerErrors([
        { key: 'values0.observations', error: 'Observations obligatoires' },
        { key: 'telephone2', error: 'Téléphone invalide' },
        { key: 'site', error: 'Site inconnu' },
      ]);
    });
    expect(result.current.errors).toEqual({ 'values.0.observations': 'Observations obligatoires', telephone2: 'Téléphone invalide' });
    expect(unmatched).toEqual([{ key: 'site', error: 'Site inconnu' }]);
  });
});

describe('useSaveAction', () => {
  afterEach(() => vi.restoreAllMocks());

  const refusal = (status: number, body: unknown) =>
    new HTTPError(new Response(JSON.stringify(body), { status }), new Request('http://localhost/api/x'), {} as ConstructorParameters<typeof HTTPError>[2]);
  const toasts = () => vi.mocked(notifications.show).mock.calls.map(([n]) => [n.message, n.color]);

  async function runFailing(options: Parameters<typeof useSaveAction>[0], error: unknown) {
    vi.spyOn(notifications, 'show').mockReturnValue('id');
    const { result } = renderHook(() => useSaveAction(options));
    await act(() =>
      result.current.run(() => {
        throw error;
      }),
    );
    return result.current;
  }

  it('is saving while the save runs and clears the previous banner', async () => {
    const { result } = renderHook(() => useSaveAction({ invalid: 'Veuillez vérifier votre saisie' }));
    act(() => result.current.showInvalid());
    expect(result.current.banner).toBe('Veuillez vérifier votre saisie');
    let finish = () => {};
    let running: Promise<void> = Promise.resolve();
    act(() => {
      running = result.current.run(() => new Promise<void>((resolve) => (finish = resolve)));
    });
    expect(result.current).toMatchObject({ saving: true, banner: null });
    await act(async () => {
      finish();
      await running;
    });
    expect(result.current).toMatchObject({ saving: false, banner: null });
  });

  it('puts the per-field errors of a 400 under the fields, the others after the screen wording in the banner', async () => {
    const setServerErrors = vi.fn(() => [{ key: 'site', error: 'Site inconnu' }]);
    const errors = [
      { key: 'numero', error: 'Numéro déjà utilisé' },
      { key: 'site', error: 'Site inconnu' },
    ];
    const save = await runFailing({ invalid: 'Veuillezvérifier votre saisie', setServerErrors }, refusal(400, { status: 'error', errors, message: 'x' }));
    expect(setServerErrors).toHaveBeenCalledWith(errors);
    expect(save).toMatchObject({ banner: 'Veuillezvérifier votre saisie : Site inconnu', saving: false });
    expect(toasts()).toEqual([['Veuillezvérifier votre saisie', 'red']]);
  });

  it('can list the errors of a 400 alone in the banner', async () => {
    const save = await runFailing({ invalid: 'Veuillez renseigner les champs obligatoires', invalidInBanner: false }, refusal(400, { status: 'error', errors: [{ key: 'agents', error: 'Agent inconnu' }] }));
    expect(save.banner).toBe('Agent inconnu');
    expect(toasts()).toEqual([['Veuillez renseigner les champs obligatoires', 'red']]);
  });

  it("says 'Une erreur est survenue.' for a 500, a network failure or any refusal unless told to show the server's message", async () => {
    const options = { invalid: 'Veuillez renseigner les champs obligatoires' };
    expect((await runFailing(options, refusal(409, { status: 'error', message: 'Déjà utilisé' }))).banner).toBe('Une erreur est survenue.');
    expect((await runFailing({ ...options, serverMessage: true }, refusal(409, { status: 'error', message: 'Déjà utilisé' }))).banner).toBe('Déjà utilisé');
    expect((await runFailing({ ...options, serverMessage: true }, refusal(500, { status: 'error', message: 'Boom' }))).banner).toBe('Une erreur est survenue.');
    expect((await runFailing({ ...options, serverMessage: true }, new TypeError('Failed to fetch'))).banner).toBe('Une erreur est survenue.');
    expect(toasts()).toEqual(Array(4).fill(['Une erreur est survenue', 'red']));
  });

  it('shows nothing for a 401 or 403: the API client has already told the user', async () => {
    for (const status of [401, 403]) {
      const save = await runFailing({ invalid: 'Veuillez renseigner les champs obligatoires' }, refusal(status, { status: 'error', message: 'Accès non authorisé.' }));
      expect(save).toMatchObject({ banner: null, saving: false });
    }
    expect(toasts()).toEqual([]);
  });
});
