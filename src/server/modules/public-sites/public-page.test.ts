// /s/{code} as the server answers it (plugins/web.ts): the built public page with the site's
// data already in it, or a plain 404 page.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CONFIG, TEST_DRIVERS, openTestDatabase } from '../../../../tests/helpers/test-app.js';
import { createApp } from '../../app.js';
import { createMemoryMailer } from '../../mailer.js';
import { seedCities } from '../../db/seed.js';
import { PUBLIC_SITE_HTML } from '../../plugins/web.js';
import { createEquippedSite, createSite } from '../field-entry/test-factories.js';

const TEMPLATE = `<!doctype html>
<html lang="fr">
  <head>
    <title>Site de compostage</title>
    <script type="module" crossorigin src="/assets/public-site-abc.js"></script>
  </head>
  <body><div id="root"></div></body>
</html>
`;

describe.each(TEST_DRIVERS)('the public page as the server serves it (%s)', (driver) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  const dirs: string[] = [];
  const apps: Awaited<ReturnType<typeof createApp>>[] = [];

  async function appWith(files: Record<string, string>) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-web-'));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    const app = await createApp({ db: handle.db, mailer: createMemoryMailer(), config: { ...TEST_CONFIG, webDir: dir } });
    await app.ready();
    apps.push(app);
    return app;
  }

  beforeAll(async () => {
    handle = await openTestDatabase(driver);
    await seedCities(handle.db, '242900314');
  }, 120_000);
  afterAll(async () => {
    for (const app of apps) await app.close();
    await handle.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes the site’s public data and name into the page, as data no script runs', async () => {
    const app = await appWith({ 'index.html': '<!doctype html><title>App</title>', [PUBLIC_SITE_HTML]: TEMPLATE });
    const site = await createEquippedSite(handle.db, { nom: 'Jardin <des> Capucins' });
    await handle.db.updateTable('site').set({ consignes: '</script><script>alert(1)</script>' }).where('id', '=', site.id).execute();
    const res = await app.inject({ method: 'GET', url: `/s/${site.code}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.body).toContain('<title>Jardin &lt;des&gt; Capucins – Compost test</title>');
    const inline = /<script id="public-site-data" type="application\/json">(.*?)<\/script><\/head>/s.exec(res.body);
    expect(inline).not.toBeNull();
    expect(inline![1]).not.toContain('<');
    const data = JSON.parse(inline![1]);
    expect(data).toMatchObject({ code: site.code, nom: 'Jardin <des> Capucins', consignes: '</script><script>alert(1)</script>' });
    expect(res.body).toContain('<script type="module" crossorigin src="/assets/public-site-abc.js"></script>');
  });

  it('keeps $ patterns and </script> of every site text intact, in the title and in the data', async () => {
    const app = await appWith({ 'index.html': '<!doctype html><title>App</title>', [PUBLIC_SITE_HTML]: TEMPLATE });
    const site = await createEquippedSite(handle.db);
    // Each of these means something to String.replace: after, before, the match, group 1.
    const tricky = (field: string) => `${field} $' $\` $& $$ $1 </script><b>x</b>`;
    const texts = { nom: tricky('Nom'), horaires: tricky('Horaires'), consignes: tricky('Consignes'), adresse: tricky('Adresse'), numero: tricky('N'), ville: tricky('Ville'), cp: tricky('CP') };
    await handle.db.updateTable('site').set(texts).where('id', '=', site.id).execute();
    const api = (await app.inject({ method: 'GET', url: `/api/public/site/${site.code}` })).json();
    expect(api).toMatchObject(texts);
    const res = await app.inject({ method: 'GET', url: `/s/${site.code}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("<title>Nom $&#39; $` $&amp; $$ $1 &lt;/script&gt;&lt;b&gt;x&lt;/b&gt; – Compost test</title>");
    // The template around the inserts is there once, untouched.
    expect(res.body.match(/<title>/g)).toHaveLength(1);
    expect(res.body.match(/<\/head>/g)).toHaveLength(1);
    expect(res.body).toContain('<script type="module" crossorigin src="/assets/public-site-abc.js"></script>');
    const inline = /<script id="public-site-data" type="application\/json">(.*?)<\/script><\/head>/s.exec(res.body);
    expect(inline).not.toBeNull();
    expect(JSON.parse(inline![1])).toEqual(api);
  });

  it('answers a site that is not public, or no site at all, with a plain 404 page', async () => {
    const app = await appWith({ 'index.html': '<!doctype html><title>App</title>', [PUBLIC_SITE_HTML]: TEMPLATE });
    const requested = await createSite(handle.db, { statut: 2 });
    for (const url of [`/s/${requested.code}`, '/s/ZZZ999', '/s/pas%20un%20code']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('<h1>Site introuvable</h1>');
      expect(res.body).not.toContain('public-site-data');
    }
  });

  it('leaves /s/{code} to the app’s own route when the build has no public page', async () => {
    const app = await appWith({ 'index.html': '<!doctype html><title>App</title>' });
    const site = await createEquippedSite(handle.db);
    const res = await app.inject({ method: 'GET', url: `/s/${site.code}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('<!doctype html><title>App</title>');
  });
});
