// npx tsx bench/alerts.ts [--runs n] — times the daily alerts job (compute every kind, open and
// close alerts, build and "send" the digests to an in-memory mailer) on the 1m bench dataset
// (PostgreSQL of BENCH_DATABASE_URL or TEST_DATABASE_URL, database compost_bench_1m). The
// dataset must exist: `npm run bench -- --dataset 1m --build-only` builds it; this script never
// builds nor rebuilds it. It applies the alerts migration (016) if the dataset lacks it, and no
// other (the bench applies the rest when it runs), runs the job
// on a clean alert state (the first run opens every alert and sends every digest), then again
// (nothing new: the usual day), and leaves the alert tables as it found them (empty).
// Target: under 10 s a run.
import { sql } from 'kysely';
import { openPostgres } from '../src/server/db/client.js';
import { createMemoryMailer } from '../src/server/mailer.js';
import { createAlertsJob } from '../src/server/modules/alerts/alerts.service.js';
import { loadMigrations, migrate } from '../src/server/db/migrate.js';
import { benchBaseUrl, datasetUrl, readMarker } from './dataset.js';

const TARGET_MS = 10_000;

async function clean(db: Awaited<ReturnType<typeof openPostgres>>['db']) {
  await sql`DELETE FROM alerte_digest`.execute(db);
  await sql`DELETE FROM alerte`.execute(db);
  await sql`DELETE FROM alerte_run`.execute(db);
}

async function main() {
  const runsArg = process.argv.indexOf('--runs');
  const rounds = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;
  const base = benchBaseUrl() ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  process.env.BENCH_DATABASE_URL ??= base;
  const url = datasetUrl(base, '1m');
  const handle = await openPostgres(url);
  const { db } = handle;
  try {
    const marker = await readMarker(db, '1m').catch(() => null);
    if (!marker) {
      console.error(`No complete 1m dataset in ${url}: build it with \`npm run bench -- --dataset 1m --build-only\` (this script does not).`);
      return 1;
    }
    const applied = new Set((await sql<{ id: number }>`SELECT id FROM schema_migration`.execute(db)).rows.map((r) => r.id));
    if (!applied.has(16)) {
      await migrate(db, (await loadMigrations()).filter((m) => m.id === 16));
      await sql`ANALYZE intervention`.execute(db);
      console.log('migration 016 (alerts) applied to the dataset');
    }
    const counts = (
      await sql<{ sites: number; cells: number; interventions: number; pending: number; latest: Date }>`
        SELECT (SELECT count(*)::int FROM site WHERE statut_id = 1) AS sites,
               (SELECT count(*)::int FROM site_composteur WHERE actif AND type_bac_id IN (1, 3)) AS cells,
               (SELECT count(*)::int FROM intervention) AS interventions,
               (SELECT count(*)::int FROM demande_intervention WHERE statut_id IN (3, 4)) AS pending,
               (SELECT max(date) FROM intervention) AS latest`.execute(db)
    ).rows[0];
    console.log(
      `dataset 1m: ${counts.interventions} interventions, ${counts.sites} active sites, ${counts.cells} followed cells, ${counts.pending} pending requests, latest entry ${new Date(counts.latest).toISOString()}`,
    );
    // "Now" is just after the newest entry, so that the dataset looks like a live programme.
    const now = new Date(new Date(counts.latest).getTime() + 3600_000);
    const results: string[] = [];
    let worst = 0;
    for (let round = 0; round < rounds; round++) {
      await clean(db);
      const mailer = createMemoryMailer();
      // The job logs how long the computation and the digests took.
      const log = { info: (o: object) => console.log(`  ${JSON.stringify(o)}`), error: (o: object) => console.error(o) } as never;
      const job = createAlertsJob({ db, mailer, config: { APP_NAME: 'Compost', publicUrl: 'http://127.0.0.1:3000' }, log });
      const t0 = performance.now();
      const first = await job.run({ trigger: 'cli', now });
      const t1 = performance.now();
      const second = await job.run({ trigger: 'cli', now: new Date(now.getTime() + 60_000) });
      const t2 = performance.now();
      worst = Math.max(worst, t1 - t0, t2 - t1);
      results.push(
        `round ${round + 1}: first run ${((t1 - t0) / 1000).toFixed(2)} s (${first.ouvertes} opened, ${first.fermees} closed, ${first.mails} digests, ` +
          `${mailer.sent.reduce((n, m) => n + m.text.length, 0)} characters of text), second run ${((t2 - t1) / 1000).toFixed(2)} s (${second.ouvertes} opened, ${second.fermees} closed, ${second.mails} digests)`,
      );
      console.log(results.at(-1));
    }
    await clean(db);
    console.log(`alerts job on 1m (PostgreSQL): slowest run ${(worst / 1000).toFixed(2)} s; target < ${TARGET_MS / 1000} s: ${worst < TARGET_MS ? 'met' : 'MISSED'}`);
    return worst < TARGET_MS ? 0 : 1;
  } finally {
    await handle.close();
  }
}

process.exitCode = await main();
