// The probes while the database refuses: /api/health answers 200 whatever session cookie comes
// with it (it reads neither the session nor the database), /api/ready answers 503, and the
// other routes answer 503 with Retry-After. On PostgreSQL the database really refuses
// connections (ALLOW_CONNECTIONS false: SQLSTATE 55000); on PGlite it is closed.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CONFIG, TEST_DRIVERS, createAccount, login, openTestDatabase } from '../../../../tests/helpers/test-app.js';
import { createApp, type App } from '../../app.js';
import { openPostgres, type DatabaseHandle } from '../../db/client.js';
import { createMemoryMailer } from '../../mailer.js';

const UNAVAILABLE = { status: 'error', message: 'Service momentanément indisponible, réessayez dans un instant.' };

describe.each(TEST_DRIVERS)('health probes while the database refuses (%s)', (driver) => {
  let handle: DatabaseHandle & { url?: string };
  let app: App;
  let admin: DatabaseHandle | null = null;
  let name = '';
  beforeAll(async () => {
    handle = await openTestDatabase(driver);
    app = await createApp({ db: handle.db, mailer: createMemoryMailer(), authChanges: handle.changes, config: TEST_CONFIG });
    if (driver === 'postgres') {
      admin = await openPostgres(process.env.TEST_DATABASE_URL!);
      name = new URL(handle.url!).pathname.slice(1);
    }
  });
  afterAll(async () => {
    await app.close();
    if (admin) {
      await sql.raw(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`).execute(admin.db);
      await admin.close();
      await handle.close();
    }
  });

  it('answer /api/health 200 and /api/ready 503, with or without a session cookie, and the other routes 503', async () => {
    const account = await createAccount(handle.db, { roles: ['ROLE_ADMIN'] });
    const session = await login(app, account.login);
    // A cookie no process has in memory: reading it would take a query.
    const unknown = 'compost_sid=inconnu-de-ce-processus';
    expect((await app.inject({ url: '/api/ready' })).statusCode).toBe(200);

    if (admin) {
      await sql.raw(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`).execute(admin.db);
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name} AND pid <> pg_backend_pid()`.execute(admin.db);
      await expect(sql`SELECT 1`.execute(handle.db)).rejects.toMatchObject({ code: '55000' });
    } else {
      await handle.close();
    }

    for (const cookie of [undefined, session, unknown]) {
      const headers = cookie ? { cookie } : {};
      const health = await app.inject({ url: '/api/health', headers });
      expect([health.statusCode, health.json()]).toEqual([200, { status: 'ok' }]);
      const ready = await app.inject({ url: '/api/ready', headers });
      expect([ready.statusCode, ready.json()]).toEqual([503, { status: 'error', message: 'Base de données indisponible.' }]);
    }
    if (admin) {
      // A database that does not accept connections is an outage like any other.
      for (const res of [
        await app.inject({ method: 'POST', url: '/api/login', payload: { username: account.login, password: 'x-y-z-w-v' } }),
        await app.inject({ url: '/api/app/info/get', headers: { cookie: unknown } }),
      ]) {
        expect([res.statusCode, res.headers['retry-after'], res.json()]).toEqual([503, '5', UNAVAILABLE]);
      }
    }
  });
});
