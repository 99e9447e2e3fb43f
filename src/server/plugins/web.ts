// Serves the built PWA. Unknown non-API paths fall back to index.html (client-side
// routes): see the not-found handler in errors.ts.
// /s/{code}, the page a site's label opens, is its own light entry (public-site.html): the
// server writes the site's public data into it, so that a phone gets the page, its script and
// its data in one round trip each, and answers a site that is not public with a plain 404.
import fs from 'node:fs';
import path from 'node:path';
import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import { escapeHtml } from '../html.js';

/** Where Vite writes the public page's HTML (its input path, vite.config.ts). */
export const PUBLIC_SITE_HTML = path.join('src', 'web', 'modules', 'public-sites', 'public-site.html');

const NOT_FOUND_PAGE = `<!doctype html>
<html lang="fr">
<head><meta charset="UTF-8"><meta name="viewport" content="width=device-width, initial-scale=1.0"><title>Site introuvable</title></head>
<body style="margin:0;font-family:system-ui,sans-serif;line-height:1.5;color:#1f2328">
<main style="max-width:40rem;margin:0 auto;padding:1rem">
<h1>Site introuvable</h1>
<p>Ce site de compostage n’existe pas ou n’est plus en service.</p>
</main>
</body>
</html>
`;

/**
 * The page with the site's data inlined (as JSON no script runs: `<` escaped) and its name as
 * title. The inserts come from functions: a replacement string would read `$'` or `$&` in a
 * site's texts as patterns and paste parts of the page instead.
 */
export function publicSitePage(template: string, data: { code: string; nom: string | null; appName?: string }, json: string): string {
  const title = `${data.nom || `Site de compostage ${data.code}`}${data.appName ? ` – ${data.appName}` : ''}`;
  const inline = `<script id="public-site-data" type="application/json">${json.replace(/</g, '\\u003c')}</script>`;
  return template.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(title)}</title>`).replace('</head>', () => `${inline}</head>`);
}

export default fp<{ root: string }>(async (app, opts) => {
  await app.register(fastifyStatic, {
    root: opts.root,
    wildcard: false,
    index: false,
    setHeaders(res, filePath) {
      // Hashed assets never change; the shell and the service worker must be re-checked.
      if (filePath.includes(`${path.sep}assets${path.sep}`)) res.header('cache-control', 'public, max-age=31536000, immutable');
      else res.header('cache-control', 'no-cache');
    },
  });

  // A build without the public page (older than it) leaves /s/{code} to the app's own route.
  const file = path.join(opts.root, PUBLIC_SITE_HTML);
  if (!fs.existsSync(file)) return;
  const template = fs.readFileSync(file, 'utf8');

  app.get('/s/:code', async (request, reply) => {
    const { code } = request.params as { code: string };
    // The public page's own API route decides what is public; asked in-process, no network.
    const res = await app.inject({ method: 'GET', url: `/api/public/site/${encodeURIComponent(code)}` });
    reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8');
    if (res.statusCode === 404 || res.statusCode === 400) return reply.code(404).send(NOT_FOUND_PAGE);
    // Database out of reach: the page loads its data itself, and says so if it still cannot.
    if (res.statusCode !== 200) return reply.send(template);
    return reply.send(publicSitePage(template, res.json(), res.body));
  });
});
