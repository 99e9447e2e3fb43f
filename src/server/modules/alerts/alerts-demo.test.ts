// The first alerts run on the demonstration programme (DEMO_DATA=1), as a new installation sees
// it on its first morning: its sites were installed long ago but have just entered the app, so a
// bin that was never read is not "without reading" yet; what is told comes as one digest line per
// site and kind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, createAccount, createTestApp } from '../../../../tests/helpers/test-app.js';
import { seedDemoData } from '../../db/demo-data.js';
import { createAlertsJob } from './alerts.service.js';

describe.each(TEST_DRIVERS)('alerts on the demonstration programme (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  beforeAll(async () => {
    ctx = await createTestApp(driver);
    expect((await seedDemoData(ctx.db)).created).toBe(true);
  }, 120_000);
  afterAll(() => ctx?.close());

  it('opens no "Température non relevée" on a cell never read, and sends digests of one line per site and kind', async () => {
    const admin = await createAccount(ctx.db, { roles: ['ROLE_ADMIN'] });
    const job = createAlertsJob({ db: ctx.db, mailer: ctx.mailer, config: { APP_NAME: 'Compost', publicUrl: 'https://compost.example.fr' } });
    const now = new Date();
    const outcome = await job.run({ trigger: 'cli', now });
    expect(outcome.status).toBe('done');

    // The demo reads one input cell per site; the second input cell and the maturation cells
    // (75 in all) were never read.
    const { rows: neverRead } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM site_composteur sc JOIN site s ON s.id = sc.site_id AND s.statut_id = 1
       WHERE sc.actif AND sc.type_bac_id IN (1, 3)
         AND NOT EXISTS (SELECT 1 FROM intervention i WHERE i.site_composteur_id = sc.id AND i.type_action_id = 6)`.execute(ctx.db);
    expect(neverRead[0].n).toBe(75);
    const { rows: alerts } = await sql<{ kind: string; site_id: number; read: boolean }>`
      SELECT a.kind, a.site_id, EXISTS (SELECT 1 FROM intervention i WHERE i.site_composteur_id = a.site_composteur_id AND i.type_action_id = 6) AS read
        FROM alerte a WHERE a.closed_at IS NULL`.execute(ctx.db);
    const noReading = alerts.filter((a) => a.kind === 'no_reading');
    expect(noReading.every((a) => a.read)).toBe(true);
    // Those alerts are the read cells whose latest reading is 14 days old or more.
    const { rows: stale } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM (
        SELECT max(i.date) AS last FROM intervention i JOIN site s ON s.id = i.site_id AND s.statut_id = 1
         WHERE i.type_action_id = 6 GROUP BY i.site_composteur_id) c
       WHERE c.last <= ${new Date(now.getTime() - 14 * 24 * 3600 * 1000)}`.execute(ctx.db);
    expect(noReading).toHaveLength(stale[0].n);

    // The administrator's digest: as many lines as (site, kind) pairs, each site's name once per kind.
    const [mail] = ctx.mailer.sent.filter((m) => m.to === admin.email);
    const lines = mail.text.split('\n').filter((l) => l.startsWith('- '));
    expect(lines).toHaveLength(new Set(alerts.map((a) => `${a.site_id} ${a.kind}`)).size);
    expect(mail.headers?.['List-Unsubscribe']).toMatch(/^<https:\/\/compost\.example\.fr\/api\/alerte\/desabonnement\/\d+\.[A-Za-z0-9_-]{43}>$/);
  });
});
