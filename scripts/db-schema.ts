// Writes src/server/db/schema.sql: the schema of a database migrated from scratch (in-memory
// PGlite), read from its catalog. Run after adding a migration: `npm run db:schema`.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/server/db/client.js';
import { migrate } from '../src/server/db/migrate.js';
import { schemaSql } from '../src/server/db/schema-sql.js';

const target = fileURLToPath(new URL('../src/server/db/schema.sql', import.meta.url));
const h = await openDatabase({ memory: true });
try {
  await migrate(h.db);
  fs.writeFileSync(target, await schemaSql(h.db));
  console.log(`Wrote ${target}`);
} finally {
  await h.close();
}
