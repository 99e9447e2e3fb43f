// Data directories for tests that start the server or a command on an embedded database.
// A new embedded database first initialises its cluster (PGlite's initdb: 4-6 s of CPU on a
// 2-core machine, more than the command under test). A directory from emptyDataDir() holds a copy
// of a cluster initialised once per PGlite version and machine: what the first start would have
// written before migrating, so the command still migrates and seeds as on a first start.
// main.test.ts keeps one start on a truly empty directory, initdb included.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';

const { version } = JSON.parse(fs.readFileSync(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8')) as { version: string };
const CLUSTER = path.join(os.tmpdir(), `compost-pglite-cluster-${version}`);
let ready: Promise<string> | undefined;

/** The initialised cluster's directory, made by the first caller on this machine (several may race: one rename wins). */
export function initialisedCluster(): Promise<string> {
  ready ??= (async () => {
    if (fs.existsSync(path.join(CLUSTER, 'PG_VERSION'))) return CLUSTER;
    const building = fs.mkdtempSync(`${CLUSTER}-building-`);
    const pg = await PGlite.create(building);
    await pg.close();
    try {
      fs.renameSync(building, CLUSTER);
    } catch (e) {
      // Another process renamed its own first: that one is as good.
      if (!['EEXIST', 'ENOTEMPTY'].includes((e as NodeJS.ErrnoException).code ?? '')) throw e;
      fs.rmSync(building, { recursive: true, force: true });
    }
    return CLUSTER;
  })();
  return ready;
}

/** A new temporary directory with a copy of the initialised cluster in `sub`; `track` collects it for removal. */
async function withClusterCopy(prefix: string, sub: string, track?: string[]): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  track?.push(dir);
  fs.cpSync(await initialisedCluster(), path.join(dir, sub), { recursive: true });
  return dir;
}

/** A new temporary directory holding an initialised, empty cluster (a PGlite directory). */
export const emptyCluster = (prefix: string, track?: string[]) => withClusterCopy(prefix, '', track);

/** A new temporary DATA_DIR whose db/ holds an initialised, empty cluster. */
export const emptyDataDir = (prefix: string, track?: string[]) => withClusterCopy(prefix, 'db', track);
