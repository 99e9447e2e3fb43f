import { describe, expect, it } from 'vitest';
import { formatNom, formatPrenom, formatTel, loginSchema, passwordRequestSchema, passwordUpdateSchema, signupSchema } from './account.js';

const valid = {
  type: 1,
  organisme: '',
  nom: 'LE GALL',
  prenom: 'Jean',
  tel: '0298000000',
  email: 'jean@exemple.fr',
  password: 'motdepasse',
  confirmPassword: 'motdepasse',
};

/** The first message per field, as the API and the forms show it. */
function errorsOf(input: unknown): Record<string, string> {
  const r = signupSchema.safeParse(input);
  const out: Record<string, string> = {};
  if (!r.success) for (const i of r.error.issues) out[i.path.join('.')] ??= i.message;
  return out;
}

describe('name and phone formatting while typing', () => {
  it('upper-cases a last name, accents included', () => {
    expect(formatNom('le gall')).toBe('LE GALL');
    expect(formatNom('Hélène-éléonore')).toBe('HÉLÈNE-ÉLÉONORE');
  });

  it('capitalises each word of a first name, after spaces and hyphens', () => {
    expect(formatPrenom('jean-pierre')).toBe('Jean-Pierre');
    expect(formatPrenom('MARIE anne')).toBe('Marie Anne');
    expect(formatPrenom('élodie')).toBe('Élodie');
    expect(formatPrenom('')).toBe('');
  });

  it('truncates a phone longer than 10 characters, otherwise removes the first non-digit', () => {
    expect(formatTel('02980000001234')).toBe('0298000000');
    expect(formatTel('02 98')).toBe('0298');
    expect(formatTel('02 98 0')).toBe('0298 0');
    expect(formatTel('0298000000')).toBe('0298000000');
  });
});

describe('signupSchema', () => {
  it('accepts a complete private person and a Select value given as text', () => {
    expect(signupSchema.parse(valid)).toMatchObject({ type: 1, prenom: 'Jean', organisme: '' });
    expect(signupSchema.parse({ ...valid, type: '3' }).type).toBe(3);
  });

  it('trims text fields and reads absent optional texts as empty', () => {
    const out = signupSchema.parse({ ...valid, nom: '  LE GALL ', email: ' jean@exemple.fr ', organisme: null, prenom: 'Jean' });
    expect(out).toMatchObject({ nom: 'LE GALL', email: 'jean@exemple.fr', organisme: '' });
  });

  it('requires the type, and says so rather than reading a cleared field as type 0', () => {
    expect(errorsOf({ ...valid, type: undefined }).type).toBe('Champ obligatoire');
    expect(errorsOf({ ...valid, type: null }).type).toBe('Champ obligatoire');
    expect(errorsOf({ ...valid, type: '' }).type).toBe('Champ obligatoire');
  });

  it('refuses a type that does not exist', () => {
    for (const type of [0, 4, 1.5, 'abc']) expect(errorsOf({ ...valid, type }).type).toBe('Type d’utilisateur inconnu');
  });

  it('requires an organisme for type 2 only', () => {
    expect(errorsOf({ ...valid, type: 2, organisme: ' ' }).organisme).toBe('Champ obligatoire');
    expect(errorsOf({ ...valid, type: 1, organisme: '' }).organisme).toBeUndefined();
  });

  it('requires a first name unless the type is 2', () => {
    expect(errorsOf({ ...valid, prenom: '' }).prenom).toBe('Champ obligatoire');
    expect(errorsOf({ ...valid, type: 3, prenom: undefined }).prenom).toBe('Champ obligatoire');
    expect(signupSchema.safeParse({ ...valid, type: 2, organisme: 'Mairie', prenom: '' }).success).toBe(true);
  });

  it('requires a last name', () => {
    expect(errorsOf({ ...valid, nom: '   ' }).nom).toBe('Champ obligatoire');
    expect(errorsOf({ ...valid, nom: 'A'.repeat(101) }).nom).toBe('100 caractères au plus');
  });

  it('requires a phone of at most 10 digits', () => {
    expect(errorsOf({ ...valid, tel: '' }).tel).toBe('Champ obligatoire');
    expect(errorsOf({ ...valid, tel: '02980000001' }).tel).toBe('Le téléphone ne contient que des chiffres (10 au plus)');
    expect(errorsOf({ ...valid, tel: '02.98' }).tel).toBe('Le téléphone ne contient que des chiffres (10 au plus)');
    expect(errorsOf({ ...valid, tel: '0298' }).tel).toBeUndefined();
  });

  it('requires a well-formed e-mail address', () => {
    expect(errorsOf({ ...valid, email: '' }).email).toBe('Champ obligatoire');
    expect(errorsOf({ ...valid, email: 'jean@' }).email).toBe('Adresse mail invalide');
    expect(errorsOf({ ...valid, email: `${'a'.repeat(250)}@exemple.fr` }).email).toBe('Adresse mail trop longue (254 caractères au plus)');
  });

  it('requires a password of 8 characters or more, equal to its confirmation', () => {
    expect(errorsOf({ ...valid, password: '', confirmPassword: '' })).toMatchObject({ password: 'Champ obligatoire', confirmPassword: 'Champ obligatoire' });
    expect(errorsOf({ ...valid, password: '1234567', confirmPassword: '1234567' }).password).toBe('Le mot de passe doit contenir au moins 8 caractères');
    expect(errorsOf({ ...valid, confirmPassword: 'motdepasse2' }).confirmPassword).toBe('Les mots de passe ne correspondent pas');
    expect(errorsOf({ ...valid, password: '12345678', confirmPassword: '12345678' })).toEqual({});
  });

  it('gives French messages for every field of an empty form', () => {
    const errors = errorsOf({});
    expect(Object.keys(errors).sort()).toEqual(['confirmPassword', 'email', 'nom', 'password', 'tel', 'type']);
    expect(new Set(Object.values(errors))).toEqual(new Set(['Champ obligatoire']));
  });
});

describe('password and login schemas', () => {
  it('checks a new password like the signup one', () => {
    expect(passwordUpdateSchema.safeParse({ password: 'nouveau-secret', confirmPassword: 'nouveau-secret' }).success).toBe(true);
    const r = passwordUpdateSchema.safeParse({ password: 'nouveau-secret', confirmPassword: 'autre' });
    expect(r.success ? [] : r.error.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['confirmPassword', 'Les mots de passe ne correspondent pas']]);
  });

  it('takes any reset address, trimmed, so that the answer never depends on it', () => {
    expect(passwordRequestSchema.parse({ mail: '  pas une adresse ' })).toEqual({ mail: 'pas une adresse' });
    expect(passwordRequestSchema.parse({ mail: '' })).toEqual({ mail: '' });
  });

  it('asks for both login fields', () => {
    const r = loginSchema.safeParse({ username: '  ', password: '' });
    expect(r.success ? [] : r.error.issues.map((i) => i.message)).toEqual(['Identifiant ou adresse mail obligatoire', 'Mot de passe obligatoire']);
  });
});
