// The one error handler: the top-level message of a 400 says what is wrong unless a field is
// missing (then the spec's message), and a database refusing connections is an outage (503).
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import errorsPlugin from './errors.js';
import { ValidationError } from '../errors.js';
import { TEST_DRIVERS, createTestApp } from '../../../tests/helpers/test-app.js';

const REQUIRED = 'Veuillez renseigner les champs obligatoires';

async function errorsApp() {
  const app = Fastify().withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(errorsPlugin, {});
  const body = z.object({ nom: z.string().trim().min(1, { message: 'Champ obligatoire' }), email: z.email({ message: 'Adresse mail invalide' }), tags: z.array(z.string()).min(1, { message: 'Au moins un mot' }) });
  app.post('/form', { schema: { body } }, async () => ({}));
  app.get('/list', { schema: { querystring: z.object({ page: z.coerce.number().int({ message: 'Page invalide' }).optional() }) } }, async () => ({}));
  // A service's refusal after the schemas passed: the key names a block of a list.
  app.post('/service', async (request) => {
    const { message } = (request.body ?? {}) as { message?: string };
    throw new ValidationError([{ key: 'values0.observations', error: 'Les observations sont obligatoires pour cette action' }, { key: 'date', error: 'Date invalide' }], message);
  });
  app.get('/closed', async () => {
    throw Object.assign(new Error('database "compost" is not currently accepting connections'), { code: '55000', severity: 'FATAL' });
  });
  return app;
}

describe('the error handler', () => {
  let app: Awaited<ReturnType<typeof errorsApp>>;
  beforeAll(async () => {
    app = await errorsApp();
  });
  afterAll(() => app.close());

  it.each([
    ['a missing field', {}, REQUIRED],
    ['a blank field first', { nom: '  ', email: 'x' }, REQUIRED],
    ['an empty list first', { nom: 'a', email: 'a@b.fr', tags: [] }, REQUIRED],
    ['an invalid e-mail first', { nom: 'Anne', email: 'anne.exemple.fr' }, 'Adresse mail invalide'],
  ])('answers a body with %s with the message that fits its first error', async (_name, payload, message) => {
    const res = await app.inject({ method: 'POST', url: '/form', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(message);
  });

  it('names a bad query parameter in the message', async () => {
    const res = await app.inject({ url: '/list?page=1.5' });
    expect(res.json()).toEqual({ status: 'error', errors: [{ key: 'page', error: 'Page invalide' }], message: 'Page invalide' });
  });

  it('names the first error a service refuses, unless its field is missing, and keeps the message a service chose for missing fields', async () => {
    const given = await app.inject({ method: 'POST', url: '/service', payload: { values: [{ observations: 'sale' }] } });
    expect(given.json().message).toBe('Les observations sont obligatoires pour cette action');
    const missing = await app.inject({ method: 'POST', url: '/service', payload: { values: [{ observations: '' }] } });
    expect(missing.json().message).toBe(REQUIRED);
    const own = await app.inject({ method: 'POST', url: '/service', payload: { values: [{}], message: 'Veuillez remplir les champs obligatoires' } });
    expect(own.json().message).toBe('Veuillez remplir les champs obligatoires');
  });

  it('answers 503 with Retry-After to a database that does not accept connections (55000)', async () => {
    const res = await app.inject({ url: '/closed' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({ status: 'error', message: 'Service momentanément indisponible, réessayez dans un instant.' });
  });
});

describe.each(TEST_DRIVERS)('refusals of the real routes (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  beforeAll(async () => {
    ctx = await createTestApp(driver);
  });
  afterAll(() => ctx.close());

  it('keeps the message for missing fields, and otherwise names the first error', async () => {
    const login = (payload: object) => ctx.app.inject({ method: 'POST', url: '/api/login', payload, remoteAddress: '10.9.0.1' });
    expect((await login({ username: '', password: '' })).json()).toEqual({
      status: 'error',
      errors: [
        { key: 'username', error: 'Identifiant ou adresse mail obligatoire' },
        { key: 'password', error: 'Mot de passe obligatoire' },
      ],
      message: REQUIRED,
    });
    expect((await login({ username: 'chef\u0001', password: '' })).json()).toEqual({
      status: 'error',
      errors: [
        { key: 'username', error: 'Caractères non autorisés' },
        { key: 'password', error: 'Mot de passe obligatoire' },
      ],
      message: 'Caractères non autorisés',
    });
  });
});
