// Start-time seeding: the territory's cities, the sample streets, the first administrator
// and, with DEMO_DATA=1, a demo programme. Reference tables come from migrations.
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { sql } from 'kysely';
import type { Db } from './client.js';
import { hashPassword } from '../passwords.js';
import { roleId } from '../../shared/domain.js';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
export const SAMPLE_STREETS_FILE = path.join(here, 'seed-data', 'adresses-29-sample.csv');

interface Commune {
  code: string;
  nom: string;
  type: string;
  departement?: string;
  codesPostaux?: string[];
}

/** Communes of the territory: an EPCI SIREN (9 digits) or département codes. */
export function territoryCommunes(territory: string): { code_insee: string; nom: string; cp: string }[] {
  const communes = require('@etalab/decoupage-administratif/data/communes.json') as Commune[];
  let keep: (c: Commune) => boolean;
  if (/^\d{9}$/.test(territory)) {
    const epcis = require('@etalab/decoupage-administratif/data/epci.json') as { code: string; membres: { code: string }[] }[];
    const epci = epcis.find((e) => e.code === territory);
    if (!epci) throw new Error(`TERRITORY : aucun EPCI de SIREN ${territory}`);
    const members = new Set(epci.membres.map((m) => m.code));
    keep = (c) => members.has(c.code);
  } else {
    const deps = new Set(territory.split(',').map((d) => d.trim()));
    keep = (c) => !!c.departement && deps.has(c.departement);
  }
  const out: { code_insee: string; nom: string; cp: string }[] = [];
  for (const c of communes) {
    if (c.type !== 'commune-actuelle' || !keep(c)) continue;
    for (const cp of c.codesPostaux ?? []) out.push({ code_insee: c.code, nom: c.nom, cp });
  }
  return out;
}

export async function seedCities(db: Db, territory: string) {
  const rows = territoryCommunes(territory);
  await db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('ville').select(['code_insee', 'cp']).execute();
    const wanted = new Set(rows.map((r) => `${r.code_insee}|${r.cp}`));
    const stale = existing.filter((e) => !wanted.has(`${e.code_insee}|${e.cp}`));
    for (const s of stale) await trx.deleteFrom('ville').where('code_insee', '=', s.code_insee).where('cp', '=', s.cp).execute();
    for (let i = 0; i < rows.length; i += 1000) {
      await trx
        .insertInto('ville')
        .values(rows.slice(i, i + 1000))
        .onConflict((oc) => oc.columns(['code_insee', 'cp']).doUpdateSet({ nom: (eb) => eb.ref('excluded.nom') }))
        .execute();
    }
  });
  return rows.length;
}

export interface AdminSeedResult {
  created: boolean;
  login?: string;
  /** Only when generated: printed once by the caller, never stored in clear. */
  generatedPassword?: string;
}

export async function seedAdmin(db: Db, env: { ADMIN_LOGIN?: string; ADMIN_PASSWORD?: string; ADMIN_EMAIL?: string }): Promise<AdminSeedResult> {
  const hasAdmin = await db
    .selectFrom('account_role')
    .innerJoin('account', 'account.id', 'account_role.account_id')
    .where('account_role.role_id', '=', roleId('ROLE_ADMIN'))
    .select('account.id')
    .executeTakeFirst();
  if (hasAdmin) return { created: false };
  const login = env.ADMIN_LOGIN ?? 'admin';
  const generatedPassword = env.ADMIN_PASSWORD ? undefined : crypto.randomBytes(12).toString('base64url');
  const password = env.ADMIN_PASSWORD ?? generatedPassword!;
  const email = env.ADMIN_EMAIL ?? `${login}@compost.local`;
  const hash = await hashPassword(password);
  await db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('account')
      .where(sql`lower(identifiant)`, '=', login.toLowerCase())
      .select('id')
      .executeTakeFirst();
    let id = existing?.id;
    if (id) {
      await trx.updateTable('account').set({ password_hash: hash, actif: true, email_valide: true }).where('id', '=', id).execute();
    } else {
      const row = await trx
        .insertInto('account')
        .values({ kind: 'agent', identifiant: login, email, password_hash: hash, nom: 'Administrateur', prenom: null, email_valide: true, actif: true })
        .returning('id')
        .executeTakeFirstOrThrow();
      id = row.id;
    }
    await trx.insertInto('account_role').values({ account_id: id, role_id: roleId('ROLE_ADMIN') }).onConflict((oc) => oc.doNothing()).execute();
  });
  return { created: true, login, generatedPassword };
}
