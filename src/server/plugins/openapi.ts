// The API description: an OpenAPI 3.1 document generated from the zod schemas that already
// validate each route (so it cannot drift from what the server accepts and answers), served
// at GET /api/docs/json, and a readable page at GET /api/docs (Swagger UI, its files served
// from node_modules: nothing is fetched from another site).
//
// Each operation also says who may call it, read from the guard the route declares
// (app.routeGuards, kept by plugins/auth.ts): `x-access` ('public', 'session' or 'roles'),
// `x-roles` (the role codes that pass), `x-permissions` (the permissions of shared/permissions.ts
// the guard names), and a French line of the description. The error answers every route can
// give (400 field errors, 401, 403, 500, 503) are added to each operation in the shapes the one
// error handler sends (plugins/errors.ts).
//
// Nothing here runs on the requests of the API itself: the routes are collected as they are
// registered (onRoute), the document is built once, on its first read, and the page's own
// CSP hook is scoped to the docs routes.
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { createJsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema, fieldErrorSchema } from '../../shared/errors.js';
import { PERMISSIONS, ROLES, type Permission, type Role } from '../../shared/permissions.js';
import { SESSION_COOKIE } from './auth.js';

export const DOCS_PREFIX = '/api/docs';

/**
 * The page's own policy: Swagger UI is a script of this origin that reads the document from
 * this origin and styles itself with inline style attributes and data: images. The /api
 * answers' policy (default-src 'none', app.ts) would leave it blank.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Swagger UI's colours darkened to a contrast of at least 4.5:1 with their background (WCAG
 * AA): the methods' labels, links, the version stamps and the greyed texts.
 */
const DOCS_CSS = `
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1d5d9b; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1b6e47; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b3261e; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0b6b5a; }
.swagger-ui .opblock.opblock-head .opblock-summary-method, .swagger-ui .opblock.opblock-options .opblock-summary-method { background: #5b2a86; }
.swagger-ui .info .title small, .swagger-ui .info .title small.version-stamp { background: #3b4151; }
.swagger-ui .info .title small pre, .swagger-ui .info .title small.version-stamp pre { color: #fff; }
.swagger-ui a, .swagger-ui .info a, .swagger-ui .info .url, .swagger-ui .info .base-url { color: #1d5d9b; }
.swagger-ui .btn.authorize { color: #1b6e47; border-color: #1b6e47; }
.swagger-ui .btn.authorize svg { fill: #1b6e47; }
.swagger-ui .parameter__in, .swagger-ui .parameter__deprecated, .swagger-ui .prop-format, .swagger-ui .parameter__extension, .swagger-ui .renderedMarkdown code, .swagger-ui .response-col_links, .swagger-ui .opblock-description-wrapper p, .swagger-ui .model-title, .swagger-ui .model .property.primitive, .swagger-ui .tab li, .swagger-ui .opblock .opblock-section-header h4, .swagger-ui .response-control-media-type__accept-message { color: #3b4151; }
.swagger-ui .opblock-tag small { color: #3b4151; }
.swagger-ui .parameter__name.required span, .swagger-ui .parameter__name.required::after { color: #b3261e; }
`;

/**
 * Names Swagger UI leaves out, set as it renders: a label for each text area (the example
 * bodies) and a keyboard stop on each scrolling code block.
 */
const DOCS_JS = `new MutationObserver(function () {
  document.querySelectorAll('#swagger-ui textarea:not([aria-label])').forEach(function (t) { t.setAttribute('aria-label', 'Corps de la requête (exemple)'); });
  document.querySelectorAll('#swagger-ui .microlight:not([tabindex])').forEach(function (c) { c.setAttribute('tabindex', '0'); });
  document.querySelectorAll('#swagger-ui img:not([alt])').forEach(function (i) { i.setAttribute('alt', ''); });
}).observe(document.documentElement, { childList: true, subtree: true });`;

/** Who may call a route, as the document states it. */
export interface RouteAccess {
  access: 'public' | 'session' | 'roles';
  roles: Role[];
  permissions: Permission[];
  /** app.guard() without a permission: any role at all. */
  anyRole: boolean;
}

type Guards = FastifyInstance['routeGuards'];

/** The access of METHOD url from the guard it declares; /api/admin/* always needs a session. */
export function routeAccess(guards: Guards, method: string, url: string): RouteAccess {
  const guard = guards.find((g) => g.method === method && g.url === url);
  const permissions = guard?.permissions ?? null;
  if (permissions === 'any-role') return { access: 'roles', roles: [...ROLES], permissions: [], anyRole: true };
  if (permissions === null) return { access: url.startsWith('/api/admin/') ? 'session' : 'public', roles: [], permissions: [], anyRole: false };
  const allowed = new Set<string>(permissions.flatMap((p) => PERMISSIONS[p]));
  return { access: 'roles', roles: ROLES.filter((r) => allowed.has(r)), permissions: [...permissions], anyRole: false };
}

function accessLine(a: RouteAccess): string {
  if (a.access === 'public') return 'Accès : public, sans session.';
  if (a.access === 'session') return 'Accès : tout compte connecté.';
  if (a.anyRole) return 'Accès : tout compte connecté ayant au moins un rôle.';
  return `Accès : ${a.roles.join(', ')} (permission${a.permissions.length > 1 ? 's' : ''} ${a.permissions.join(', ')}).`;
}

const validationErrorBodySchema = errorBodySchema.extend({ errors: z.array(fieldErrorSchema), message: z.string() });
const messageErrorBodySchema = errorBodySchema.omit({ errors: true }).extend({ message: z.string() });

const toJson = (schema: z.ZodType) => {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
};

const ref = (name: string, description: string) => ({ $ref: `#/components/schemas/${name}`, description });

/** The tag of a route: the route module that registered it (requestsRoutes -> 'requests'). */
function tagOf(pluginName: string | undefined): string | null {
  const last = pluginName?.split(' -> ').at(-1);
  const m = last ? /^([a-z][A-Za-z]*)Routes$/.exec(last) : null;
  return m ? m[1].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`) : null;
}

async function openapi(app: FastifyInstance) {
  const tags = new WeakMap<RouteOptions, string>();
  app.addHook('onRoute', function (this: FastifyInstance, route) {
    const tag = tagOf(this.pluginName);
    if (tag) tags.set(route, tag);
  });

  const zodTransform = createJsonSchemaTransform({});

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'API Compost',
        version: '1',
        description: [
          'API JSON du back-office et de l’application de terrain Compost. Les noms de champs et de routes sont ceux du contrat d’origine, en français.',
          '',
          'Session : cookie HttpOnly `compost_sid` posé par `POST /api/login`. Les listes lisent `search`, `page` (à partir de 0), `rowsPerPage`, `sort[name]`, `sort[direction]` et `filter[champ]` ; les tableaux s’écrivent entre crochets (`filter[ville][]=A&filter[ville][]=B`).',
          '',
          'Erreurs : `{status: "error", errors: [{key, error}], message}` pour une saisie refusée (400, une entrée par champ, toutes à la fois) ; `{status: "error", message}` sinon. Les dates circulent en ISO 8601 (UTC).',
          '',
          'Chaque opération indique qui peut l’appeler : `x-access` (`public`, `session` ou `roles`), `x-roles` et `x-permissions`.',
        ].join('\n'),
      },
      components: {
        securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE } },
        schemas: {
          ValidationErrorBody: toJson(validationErrorBodySchema),
          ErrorBody: toJson(messageErrorBodySchema),
        },
      },
    },
    transform: (document) => {
      const { route, url } = document;
      const base = zodTransform(document);
      const method = (Array.isArray(route.method) ? route.method[0] : route.method).toUpperCase();
      // Only the /api routes are the API; the docs' own routes (schema.hide) describe nothing.
      if (!url.startsWith('/api/') || url.startsWith(`${DOCS_PREFIX}/`) || url === DOCS_PREFIX || base.schema?.hide) {
        return { schema: { ...base.schema, hide: true }, url };
      }
      const schema = { ...(base.schema ?? {}) } as Record<string, unknown>;
      const access = routeAccess(app.routeGuards, method, url);
      const hasInput = Boolean(schema.body ?? schema.querystring ?? schema.params);
      const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(method);

      const declared = { ...((schema.response ?? {}) as Record<string, Record<string, unknown>>) };
      const describe = (code: string, text: string) => {
        // A response that names its own description (a CSV file...) keeps it.
        if (declared[code] && typeof declared[code].description !== 'string') declared[code] = { ...declared[code], 'x-response-description': text };
      };
      for (const code of Object.keys(declared)) {
        const text = code.startsWith('2') ? 'Succès' : code === '404' ? 'Introuvable' : code === '409' ? 'Conflit avec l’état actuel' : code === '429' ? 'Trop de tentatives' : 'Erreur';
        describe(code, text);
      }
      const add = (code: string, schemaName: string, text: string) => {
        declared[code] ??= ref(schemaName, text);
      };
      if (hasInput) add('400', 'ValidationErrorBody', 'Saisie refusée : une entrée {key, error} par champ invalide, toutes à la fois.');
      if (access.access !== 'public') add('401', 'ErrorBody', 'Pas de session, ou session expirée.');
      const forbidden = [access.access === 'roles' ? 'aucun des rôles requis' : null, unsafe ? 'requête venue d’une autre origine' : null].filter(Boolean);
      if (forbidden.length > 0) add('403', 'ErrorBody', `Refus : ${forbidden.join(', ou ')}.`);
      add('500', 'ErrorBody', 'Erreur inattendue (« Une erreur est survenue. »).');
      add('503', 'ErrorBody', 'Base de données momentanément injoignable : réessayer après Retry-After secondes.');

      const line = accessLine(access);
      const tag = tags.get(route);
      return {
        url,
        schema: {
          ...schema,
          response: declared,
          ...(tag ? { tags: [tag] } : {}),
          description: typeof schema.description === 'string' ? `${schema.description}\n\n${line}` : line,
          ...(access.access === 'public' ? {} : { security: [{ session: [] }] }),
          'x-access': access.access,
          'x-roles': access.roles,
          'x-permissions': access.permissions,
        },
      };
    },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const { openapiObject } = documentObject;
      // Bracket-style objects in the query string (sort[name]=nom, filter[ville][]=A).
      for (const item of Object.values(openapiObject.paths ?? {})) {
        for (const op of Object.values(item ?? {})) {
          const params = (op as { parameters?: { in?: string; schema?: { type?: unknown }; style?: string; explode?: boolean }[] }).parameters ?? [];
          for (const p of params) {
            if (p.in === 'query' && p.schema?.type === 'object') {
              p.style = 'deepObject';
              p.explode = true;
            }
          }
        }
      }
      return openapiObject;
    },
  });

  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    staticCSP: DOCS_CSP,
    // No call to an outside validator: the page stays on this origin.
    validatorUrl: false,
    theme: { title: 'API Compost', css: [{ filename: 'accessible.css', content: DOCS_CSS }], js: [{ filename: 'accessible.js', content: DOCS_JS }] },
    // The page passes the same accessibility checks as the app: no top bar (a logo without text
    // and an unlabelled address field), no link nested in each operation's button (deep links).
    uiConfig: { layout: 'BaseLayout', docExpansion: 'none', deepLinking: false, tryItOutEnabled: false, defaultModelsExpandDepth: 0 },
  });
}

export default fp(openapi, { name: 'openapi' });
