// The API description (plugins/openapi.ts): every /api route the app registers is in the
// OpenAPI document with the schema of its successful answer, the error answers every client
// must handle, and who may call it; the page that renders it is served from this server.
// A route added without a response schema fails here, by name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../tests/helpers/test-app.js';
import { DOCS_PREFIX } from './plugins/openapi.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

interface Media {
  schema?: Record<string, unknown>;
}
interface Operation {
  tags?: string[];
  description?: string;
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { description: string; content?: Record<string, Media> }>;
  security?: Record<string, string[]>[];
  'x-access': 'public' | 'session' | 'roles';
  'x-roles': string[];
  'x-permissions': string[];
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: Record<string, unknown> };
}

/** 'GET /api/x/:id' -> 'GET /api/x/{id}', as OpenAPI writes paths. */
const documented = (key: string) => key.replace(/:(\w+)/g, '{$1}');

describe('API description (OpenAPI)', () => {
  // The document comes from the route schemas, not from the data: one database is enough.
  let ctx: Ctx;
  let doc: OpenApiDocument;
  let routes: string[];
  const op = (key: string): Operation | undefined => {
    const [method, path] = documented(key).split(' ');
    return doc.paths[path]?.[method.toLowerCase()];
  };

  beforeAll(async () => {
    ctx = await createTestApp('pglite');
    const res = await ctx.app.inject({ method: 'GET', url: `${DOCS_PREFIX}/json` });
    expect(res.statusCode).toBe(200);
    doc = res.json<OpenApiDocument>();
    const keys = ctx.app.routeGuards
      .filter((r) => r.method !== 'HEAD' && r.url.startsWith('/api/') && !r.url.startsWith(`${DOCS_PREFIX}/`) && r.url !== DOCS_PREFIX)
      .map((r) => `${r.method} ${r.url}`);
    routes = [...new Set(keys)].sort();
  }, 120_000);
  afterAll(() => ctx.close());

  it('is an OpenAPI 3.1 document that anyone may read without a session', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('API Compost');
    // The health routes and the reference lists at least; the app has dozens of routes.
    expect(routes.length).toBeGreaterThan(50);
    const yaml = await ctx.app.inject({ method: 'GET', url: `${DOCS_PREFIX}/yaml` });
    expect(yaml.statusCode).toBe(200);
    expect(yaml.body).toContain('openapi: 3.1.0');
  });

  it('documents every registered /api route, and nothing else', () => {
    const missing = routes.filter((k) => !op(k));
    expect(missing, `routes missing from the document: ${missing.join(', ')}`).toEqual([]);
    const documentedKeys = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    const extra = documentedKeys.filter((k) => !routes.map(documented).includes(k));
    expect(extra, `operations without a route: ${extra.join(', ')}`).toEqual([]);
  });

  it('gives every route the schema of its successful answer', () => {
    const withoutAnswer = routes.filter((k) => {
      const ok = Object.entries(op(k)?.responses ?? {}).filter(([code]) => /^2\d\d$/.test(code));
      return ok.length === 0 || ok.some(([, r]) => !r.content || Object.values(r.content).some((m) => !m.schema));
    });
    expect(withoutAnswer, `routes whose schema declares no 2xx answer (add response: { 200: ... }): ${withoutAnswer.join(', ')}`).toEqual([]);
  });

  it('documents the error answers: field errors on input, 401 behind a session, 403 behind a role, 500 and 503 everywhere', () => {
    const problems: string[] = [];
    for (const key of routes) {
      const o = op(key);
      if (!o) continue;
      const jsonOf = (code: string) => o.responses[code]?.content?.['application/json']?.schema;
      const hasInput = Boolean(o.requestBody) || (o.parameters ?? []).length > 0;
      if (hasInput && !o.responses['400']) problems.push(`${key}: no 400`);
      if (o['x-access'] !== 'public' && !o.responses['401']) problems.push(`${key}: no 401`);
      if (o['x-access'] === 'roles' && !o.responses['403']) problems.push(`${key}: no 403`);
      for (const code of ['500', '503']) if (!jsonOf(code)) problems.push(`${key}: no ${code}`);
      if (o.responses['401'] && jsonOf('401')?.$ref !== '#/components/schemas/ErrorBody') problems.push(`${key}: 401 is not ErrorBody`);
    }
    expect(problems).toEqual([]);
    // The two shapes of plugins/errors.ts: field errors {key, error} listed together, or a message.
    const validation = doc.components.schemas.ValidationErrorBody as { required: string[]; properties: { errors: { items: { required: string[] } } } };
    expect(validation.required).toEqual(expect.arrayContaining(['status', 'errors', 'message']));
    expect(validation.properties.errors.items.required).toEqual(['key', 'error']);
    expect((doc.components.schemas.ErrorBody as { required: string[] }).required).toEqual(expect.arrayContaining(['status', 'message']));
  });

  it('says who may call each route, from the guard it declares', () => {
    // Hand-written from the roles of the product: deletion is ROLE_ADMIN_DELETE's alone,
    // requests belong to providers and ROLE_ADMIN, cities are public, the active sites list
    // needs any role, /api/admin without a guard still needs a session.
    expect(op('PUT /api/admin/intervention/delete/:id')).toMatchObject({ 'x-access': 'roles', 'x-roles': ['ROLE_ADMIN_DELETE'], 'x-permissions': ['intervention.delete'] });
    expect(op('POST /api/admin/demande/intervention/programmer')).toMatchObject({ 'x-access': 'roles', 'x-roles': ['ROLE_ADMIN', 'ROLE_PRESTATAIRE'] });
    expect(op('POST /api/admin/demande/intervention/programmer')?.description).toContain('Accès : ROLE_ADMIN, ROLE_PRESTATAIRE');
    expect(op('GET /api/admin/site/get/all/actif')?.['x-roles']).toHaveLength(9);
    const cities = op('GET /api/ville/get/all');
    expect(cities).toMatchObject({ 'x-access': 'public', 'x-roles': [] });
    expect(cities?.responses['401']).toBeUndefined();
    expect(cities?.security).toBeUndefined();
    expect(op('POST /api/admin/intervention/add')?.security).toEqual([{ session: [] }]);
    expect(doc.components.securitySchemes.session).toEqual({ type: 'apiKey', in: 'cookie', name: 'compost_sid' });
    // Every route: a known access, and roles only when access is by role.
    const odd = routes.filter((k) => {
      const o = op(k);
      return !o || !['public', 'session', 'roles'].includes(o['x-access']) || (o['x-access'] === 'roles') !== o['x-roles'].length > 0;
    });
    expect(odd).toEqual([]);
  });

  it('describes the inputs: path parameters, the list query and the request body', () => {
    const rule = op('PUT /api/admin/demande/regle/update/:id')!;
    expect(rule.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'path', name: 'id', required: true })]));
    expect(rule.requestBody?.content['application/json'].schema).toMatchObject({ type: 'object' });
    const history = op('GET /api/admin/demande/intervention/get/all/by/filters')!;
    expect((history.parameters ?? []).map((p) => `${p.in} ${p.name}`)).toEqual(expect.arrayContaining(['query page', 'query rowsPerPage', 'query sort', 'query filter']));
    // Every {name} of a path is a declared path parameter.
    const undeclared = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([m, o]) =>
        [...path.matchAll(/\{(\w+)\}/g)].filter(([, name]) => !(o.parameters ?? []).some((p) => p.in === 'path' && p.name === name)).map(([, name]) => `${m} ${path} {${name}}`),
      ),
    );
    expect(undeclared).toEqual([]);
  });

  it('only references schemas it defines', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    expect([...new Set(refs)].filter((name) => !(name in doc.components.schemas))).toEqual([]);
  });

  it('serves the page and its scripts from this server, under a policy that lets them run', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: DOCS_PREFIX });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    // No address of another site in the page: every file comes from /api/docs/static.
    expect(page.body).not.toMatch(/(src|href)="https?:/);
    const scripts = [...page.body.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toContain(`${DOCS_PREFIX}/static/swagger-ui-bundle.js`);
    for (const src of scripts) {
      const res = await ctx.app.inject({ method: 'GET', url: src });
      expect(res.statusCode, src).toBe(200);
      expect(res.headers['content-type'], src).toContain('javascript');
    }
    const init = await ctx.app.inject({ method: 'GET', url: `${DOCS_PREFIX}/static/swagger-initializer.js` });
    // The page validates nothing against an outside service.
    expect(init.body).toContain('validatorUrl: null');
  });

  it('keeps the /api policy on every other answer', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
  });
});
