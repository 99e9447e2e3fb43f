// Builds the real application on a fresh database for API tests: in-memory PGlite by
// default, and a fresh PostgreSQL database per test file when TEST_DATABASE_URL is set.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import fs from 'node:fs';
import { expect, inject } from 'vitest';
import { openPGlite, openPostgres, type DatabaseHandle, type Db } from '../../src/server/db/client.js';
import { migrate } from '../../src/server/db/migrate.js';
import { createApp, type AppConfig } from '../../src/server/app.js';
import { createMemoryMailer } from '../../src/server/mailer.js';
import { hashPassword } from '../../src/server/passwords.js';
import { seedCities } from '../../src/server/db/seed.js';
import { makePGliteImages } from './server-global-setup.js';

export const TEST_DRIVERS: ('pglite' | 'postgres')[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

/**
 * The files of an in-memory database, migrated or just initialised, read once per test file from
 * what the global set-up wrote (server-global-setup.ts), or made here when a file runs without
 * it: each test database starts from a copy (0.4-0.6 s) instead of initialising (PGlite's
 * initdb, 4-6 s of CPU) and migrating (about 1.7 s).
 */
let images: Promise<{ empty: Uint8Array; migrated: Uint8Array }> | undefined;
const imageFiles = new Map<'pgliteImage' | 'pgliteEmptyImage', Uint8Array>();
async function pgliteImage(key: 'pgliteImage' | 'pgliteEmptyImage'): Promise<Uint8Array> {
  let image = imageFiles.get(key);
  if (!image) {
    const file = inject(key);
    if (file && fs.existsSync(file)) image = fs.readFileSync(file);
    else {
      images ??= makePGliteImages();
      image = (await images)[key === 'pgliteImage' ? 'migrated' : 'empty'];
    }
    imageFiles.set(key, image);
  }
  return image;
}

/** A fresh database, migrated unless `migrated: false` (for the tests of the migrations themselves). */
export async function openTestDatabase(driver: 'pglite' | 'postgres', opts: { migrated?: boolean } = {}): Promise<DatabaseHandle & { url?: string }> {
  const migrated = opts.migrated ?? true;
  if (driver === 'pglite') {
    return openPGlite(null, { worker: false, image: await pgliteImage(migrated ? 'pgliteImage' : 'pgliteEmptyImage') });
  }
  const baseUrl = process.env.TEST_DATABASE_URL!;
  const name = `compost_t_${crypto.randomBytes(6).toString('hex')}`;
  const admin = await openPostgres(baseUrl);
  // A migrated database is a copy of the run's template when there is one.
  const template = migrated ? inject('postgresTemplate') : '';
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await sql.raw(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`).execute(admin.db);
        break;
      } catch (e) {
        // 55006: the template's last set-up connection is still closing.
        if ((e as { code?: string }).code !== '55006' || attempt >= 50) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await admin.close();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const h = await openPostgres(url.toString());
  if (migrated && !template) await migrate(h.db);
  return {
    db: h.db,
    kind: 'postgres',
    changes: h.changes,
    /** Where a second handle (another process) opens the same database. */
    url: url.toString(),
    async close() {
      await h.close();
      // pg's pool.end() resolves before its connections have finished closing: wait for
      // them instead of killing them (a forced drop makes them throw in this process). A
      // connection a test left open on purpose (a silent relay) is ended by force after 3 s;
      // a plain DROP that meets one would itself wait 5 s per attempt.
      const a = await openPostgres(baseUrl);
      try {
        const connected = async () =>
          Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${name}`.execute(a.db)).rows[0].n);
        const deadline = Date.now() + 3000;
        while ((await connected()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        await sql.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).execute(a.db);
      } finally {
        await a.close();
      }
    },
  };
}

export const TEST_CONFIG: AppConfig = {
  APP_NAME: 'Compost test',
  APP_CONTACT: '02 98 00 00 00',
  publicUrl: 'http://localhost:3000',
  secureCookies: false,
  TERRITORY: '242900314',
};

export async function createTestApp(driver: 'pglite' | 'postgres' = 'pglite', config: Partial<AppConfig> = {}) {
  const handle = await openTestDatabase(driver);
  await seedCities(handle.db, '242900314');
  const mailer = createMemoryMailer();
  const app = await createApp({ db: handle.db, mailer, authChanges: handle.changes, config: { ...TEST_CONFIG, ...config } });
  await app.ready();
  return {
    app,
    db: handle.db,
    mailer,
    async close() {
      await app.close();
      await handle.close();
    },
  };
}

let counter = 0;
const hashCache = new Map<string, string>();
async function cachedHash(password: string) {
  if (!hashCache.has(password)) hashCache.set(password, await hashPassword(password));
  return hashCache.get(password)!;
}

export const TEST_PASSWORD = 'motdepasse-test';

/** Creates an active, validated account with the given roles; returns its id and login. */
export async function createAccount(
  db: Db,
  opts: { kind?: 'user' | 'agent'; roles?: string[]; actif?: boolean; emailValide?: boolean; typeUser?: number; nom?: string; prenom?: string; password?: string } = {},
) {
  counter++;
  const kind = opts.kind ?? (opts.roles?.some((r) => r.startsWith('ROLE_ADMIN')) ? 'agent' : 'user');
  const email = `compte${counter}-${crypto.randomBytes(3).toString('hex')}@exemple.fr`;
  const identifiant = kind === 'agent' ? `agent${counter}${crypto.randomBytes(2).toString('hex')}` : null;
  const row = await db
    .insertInto('account')
    .values({
      kind,
      identifiant,
      email,
      password_hash: await cachedHash(opts.password ?? TEST_PASSWORD),
      type_user_id: kind === 'user' ? (opts.typeUser ?? 1) : null,
      nom: opts.nom ?? `NOM${counter}`,
      prenom: opts.prenom ?? `Prénom${counter}`,
      tel: '0600000000',
      email_valide: opts.emailValide ?? true,
      actif: opts.actif ?? true,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const code of opts.roles ?? []) {
    const role = await db.selectFrom('role').where('code', '=', code).select('id').executeTakeFirstOrThrow();
    await db.insertInto('account_role').values({ account_id: row.id, role_id: role.id }).execute();
  }
  return { id: row.id, login: identifiant ?? email, email, identifiant };
}

/** Logs in through the API; returns the cookie header to send with later requests. */
export async function login(app: Awaited<ReturnType<typeof createTestApp>>['app'], username: string, password = TEST_PASSWORD) {
  const res = await app.inject({ method: 'POST', url: '/api/login', payload: { username, password } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const cookie = res.cookies.find((c) => c.name === 'compost_sid');
  return `compost_sid=${cookie!.value}`;
}

/** An account with these roles, already logged in. */
export async function loggedAs(ctx: Awaited<ReturnType<typeof createTestApp>>, roles: string[], opts: Parameters<typeof createAccount>[1] = {}) {
  const acc = await createAccount(ctx.db, { ...opts, roles });
  const cookie = await login(ctx.app, acc.login);
  return { ...acc, cookie };
}

/** GET `url` as the holder of `cookie`: the JSON body of a 200; anything else fails the test with the body. */
export async function getJson<T>(app: Awaited<ReturnType<typeof createTestApp>>['app'], url: string, cookie: string): Promise<T> {
  const res = await app.inject({ method: 'GET', url, headers: { cookie } });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json() as T;
}
