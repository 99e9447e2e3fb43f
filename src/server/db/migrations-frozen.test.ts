// A released migration never changes: databases already migrated would never run the new text,
// so they would differ from new ones. This pins the SQL of every migration by its SHA-256, and
// keeps each migration one SQL literal that imports nothing (a shared helper or constant that
// changes would change it silently).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadMigrations } from './migrate.js';

const THIS_FILE = 'src/server/db/migrations-frozen.test.ts';
const DIR = fileURLToPath(new URL('./migrations', import.meta.url));

/** SHA-256 of each migration's `up`, by id. A released migration's line never changes; a new one adds its line. */
const PINNED: Record<string, string> = {
  '001': '3ad5f1ce9b439d624fd1696071003c5229dca4bc9cfa2f76d78135c4ecd59e9e', // initial
  '002': 'a3453c7d6be8504354115bc8d5c27eb9feca5d6d4fc43573f456fcd7deebb4a4', // reference-data
  '003': 'e4ebf2ead998900abccb47c5e086fcd017930923f1f5501061b5ffda0ce5148e', // admin-lists
  '004': 'd9e4a1881d0d68f0ed55e40698d8189e9a457a3cb40731c0ea8c31c1f2c92345', // admin-list-indexes
  '005': '92a126154a776ef227a31f576013a168186fd4960f1d9a73199045f79ac097d5', // sites-list
  '006': 'a0074edb6e308cc73a698717d87e8bfe99bdf551a11c9d744941fdd53d3c2bd3', // login-attempts
  '007': 'a0a77ba73bbd30364d867266429dc3009d8270e1e22c6bded845c770b60ed5d5', // scale
  '008': 'e981fbccefdc5d4a5798e67983fa8e42a32743eb4e08b66eec22f0ebc372428c', // intervention-admin
  '009': '6e9406a2143aea85d22986665fb10ccc82c7005d268a0a5420b4fbf93c0d2d5b', // statistics
  '010': 'b7cbd3c7e074c15026068119cd3d7c6ea22a8d80b8ce238e59225873e9f9b64e', // requests
  '011': '6143657b6acad29832741effc8ce2c21872c69feb1907baf6652c45702c76dc7', // auth-notify
  '012': '567ad7b8d651bfbda122185d0a13a066cc9c577aec0e19379a5c995c9c235bfe', // stats-site-month
  '013': '5de5e6f385c1b7770286b4d343858d4ae002da41623a3289a977b74db17b7bf6', // site-name-starts
  '014': '1c6d0c4170541100d5eb31347b655893cde038111bfbfc65c69e5a97c3142333', // request-history-groups
  '015': 'dbc0db862cfcb59047e6af0682422439e3cbdd54de1a9f78492b72afdc693532', // intervention-search
  '016': 'efdeda3c61303ca565c40a65863634dbcb201cd7c6758c21ca45a6a7e683d6d2', // alerts
  '017': '79b1ebcee42518ad58c5340cf024d457aa0702451579d36973cc28cc8ca464c9', // photos
  '018': '3531317d1e0a76a6484c08dde4fd54e237c51ee5df87a5a1ccea1161c8b1164f', // public-sites
  '019': '6120c2913ea1f113944636c9d47151e8b35ad52ad3fbf3c844369555d8da7461', // request-lifecycle
  '020': '2cb59a7a4748647600e438da15a729dc74fd0384da6c8694cf86c57bd5aeec17', // site-name-natural-sort
  '021': 'c754bd0f0a7924150cc43d6290adc17e72ebe51c75f86bbc168fdcd5a745f095', // request-counts
  '022': '37114dd5abd55c01dc4ca7afa379a779a8a36f568e21ecf5890ca1931a14033f', // export-paris-date
  '023': 'a7d970c0180a81caafb057c7d1ab019f616e17941cc6d35dc7297c2889eb756e', // stats-network-day
  '024': '710cc48ef89ace0140c87635e68f4a7f832a6c5b2f1273faccfce2708b42a9ec', // site-cell-number-order
  '025': '747477a1edb0ac4c0773729a9185c4f5f845e08fef69d37c240ba476820ddcc8', // request-creation-months
  '026': '75ae8879382030d110207ba3a30389e25eeba69794260e9ca5cfb0e9b8cb18bb', // public-report-flooding
  '027': '8d87476076c0538ef2fd360e6195ec467adc5c610b72a1bc91d5fb9d7ab2c04d', // alerts-reports
  '028': 'dcd4ec31da6a9b93a4cdc26e555ba0a8a8285ab04915c91313c90f48a879d58f', // drop-deep-page-summaries
  '029': '8d51b5c83f5d719f6e2084bee05313495ea1574593b0f36c968b22e0896ade6e', // drop-request-months
  '030': '3d3afa1c1cad3c2b8222edbfab705e001305230a0fdd58a0f18686aac681ea78', // map-and-route
  '031': '10b2dc413281b7331aa843bdae9d5abaacda88b3f6d63a66c66b0e98963808b8', // permanences-households
  '032': 'ba0dfb437da457e79ad5aef5d8c44905b952d52686899864017e063bc88445c9', // intervenant-names
  '033': '086094c3bab012091663285befea96c7cc75c5ece51717a1b9d21ad13d26f5f7', // one-trigger-per-event
  '034': 'ea658c09ef50ab039f6c3059b5db18b667f22f3460550c375f8e51b801fe9653', // single-entry-summaries
  '035': 'ef31405751c5de6ec42d10a217c137e0bdac80a653457534c21dc398c90cea05', // user-sort-columns
  '036': 'b4c90df18b9782a37ab835127a6a88449b89134b620b797917e500e2c3b9aa24', // no-intervenant-summary
};

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
const id3 = (id: number) => String(id).padStart(3, '0');

describe('released migrations', () => {
  it('each have their SQL pinned, and it has not changed', async () => {
    const problems: string[] = [];
    const migrations = await loadMigrations();
    for (const m of migrations) {
      const hash = sha256(m.up);
      const pinned = PINNED[id3(m.id)];
      if (pinned === undefined)
        problems.push(`Migration ${id3(m.id)}-${m.name} has no pinned hash. Once its SQL is final, add this line to PINNED in ${THIS_FILE}:\n  '${id3(m.id)}': '${hash}', // ${m.name}`);
      else if (pinned !== hash)
        problems.push(
          `Migration ${id3(m.id)}-${m.name} changed (its SQL hashes to ${hash}, pinned ${pinned}). A released migration never changes: ` +
            'put its text back as it was and make the change in a new migration.',
        );
    }
    const ids = new Set(migrations.map((m) => id3(m.id)));
    for (const id of Object.keys(PINNED)) if (!ids.has(id)) problems.push(`Migration ${id} is pinned but its file is gone: a released migration is never removed.`);
    expect(problems, problems.join('\n\n')).toEqual([]);
  });

  it('are each one SQL literal that imports nothing', () => {
    const problems: string[] = [];
    for (const file of fs.readdirSync(DIR).filter((f) => /^\d{3}-.*\.ts$/.test(f))) {
      const code = fs
        .readFileSync(path.join(DIR, file), 'utf8')
        .split('\n')
        .filter((line) => !line.startsWith('//'))
        .join('\n')
        .trim();
      // A template literal without `${...}` (an escaped backquote, dollar or backslash is fine).
      if (!/^export const up = `(?:[^`\\$]|\\[\s\S]|\$(?!\{))*`;$/.test(code))
        problems.push(
          `${file}: a migration is comment lines and \`export const up = \`...\`;\` with its SQL written out (no import, no \${...}, ` +
            `no other code). \`npx tsx scripts/inline-migration.ts ${file.slice(0, 3)}\` rewrites it so, producing the same SQL.`,
        );
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
