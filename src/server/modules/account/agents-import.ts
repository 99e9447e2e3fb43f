// Import of internal agents from a CSV file (`;`-separated, header row with identifiant,
// prenom, nom and email, UTF-8 with or without BOM), used by `npm run agents:import`.
// Agents are matched on their identifiant: new ones are created, known ones updated. They
// get no password: each one chooses it through 'Mot de passe oublié'. Every valid row is
// written in one transaction; invalid rows are reported with their line number and reason.
import fs from 'node:fs';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { formatNom, formatPrenom } from '../../../shared/schemas/account.js';
import { createAccountRepository } from './account.repository.js';

export const AGENT_COLUMNS = ['identifiant', 'prenom', 'nom', 'email'] as const;

export interface AgentsImportResult {
  created: number;
  updated: number;
  unchanged: number;
  rejected: { line: number; reason: string }[];
}

export class AgentsImportError extends Error {}

const IDENTIFIANT = /^[A-Za-z0-9._-]{2,50}$/;
const emailSchema = z.email();

/** One CSV line split on `;`, with "quoted" fields ("" inside quotes is a quote). */
export function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field.trim() === '') {
      quoted = true;
      field = '';
    } else if (c === ';') {
      out.push(field);
      field = '';
    } else field += c;
  }
  out.push(field);
  return out.map((f) => f.trim());
}

interface AgentRow {
  line: number;
  identifiant: string;
  prenom: string | null;
  nom: string;
  email: string;
}

function parse(file: string, text: string): { rows: AgentRow[]; rejected: AgentsImportResult['rejected'] } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerIndex = lines.findIndex((l) => l.trim() !== '');
  if (headerIndex < 0) throw new AgentsImportError(`${file} : fichier vide`);
  const header = splitCsvLine(lines[headerIndex]).map((h) => h.toLowerCase());
  const missing = AGENT_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length) {
    const commas = header.length === 1 && header[0].includes(',') ? ' ; le fichier semble séparé par des virgules' : '';
    throw new AgentsImportError(
      `${file} : colonnes attendues ${AGENT_COLUMNS.join(';')} (séparateur « ; »), manquantes : ${missing.join(', ')}${commas}`,
    );
  }
  const col = Object.fromEntries(AGENT_COLUMNS.map((c) => [c, header.indexOf(c)])) as Record<(typeof AGENT_COLUMNS)[number], number>;
  const rows: AgentRow[] = [];
  const rejected: AgentsImportResult['rejected'] = [];
  const seenIdentifiant = new Map<string, number>();
  const seenEmail = new Map<string, number>();

  for (let i = headerIndex + 1; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const line = i + 1;
    const cells = splitCsvLine(lines[i]);
    const value = (c: (typeof AGENT_COLUMNS)[number]) => cells[col[c]] ?? '';
    const identifiant = value('identifiant');
    const email = value('email');
    const reject = (reason: string) => rejected.push({ line, reason });

    if (lines[i].includes('\uFFFD')) reject('caractères illisibles : enregistrez le fichier en UTF-8');
    else if (!identifiant) reject('identifiant manquant');
    else if (!IDENTIFIANT.test(identifiant)) reject(`identifiant « ${identifiant} » invalide (2 à 50 lettres sans accent, chiffres, « . », « _ » ou « - »)`);
    else if (!value('nom')) reject('nom manquant');
    else if (!email) reject('adresse mail manquante');
    else if (!emailSchema.safeParse(email).success) reject(`adresse mail « ${email} » invalide`);
    else if (seenIdentifiant.has(identifiant.toLowerCase())) reject(`identifiant « ${identifiant} » déjà présent ligne ${seenIdentifiant.get(identifiant.toLowerCase())}`);
    else if (seenEmail.has(email.toLowerCase())) reject(`adresse mail « ${email} » déjà présente ligne ${seenEmail.get(email.toLowerCase())}`);
    else {
      seenIdentifiant.set(identifiant.toLowerCase(), line);
      seenEmail.set(email.toLowerCase(), line);
      rows.push({ line, identifiant, email, nom: formatNom(value('nom')), prenom: value('prenom') ? formatPrenom(value('prenom')) : null });
    }
  }
  return { rows, rejected };
}

export async function importAgents(db: Db, file: string): Promise<AgentsImportResult> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new AgentsImportError(`${file} : fichier introuvable ou illisible`);
  }
  const { rows, rejected } = parse(file, text);
  const result: AgentsImportResult = { created: 0, updated: 0, unchanged: 0, rejected };

  await createAccountRepository(db).inTransaction(async (repo) => {
    for (const row of rows) {
      const values = { identifiant: row.identifiant, email: row.email, nom: row.nom, prenom: row.prenom };
      const existing = await repo.findByIdentifiant(row.identifiant);
      if (existing && existing.kind !== 'agent') {
        rejected.push({ line: row.line, reason: `identifiant « ${row.identifiant} » déjà pris par un compte externe` });
        continue;
      }
      const owner = await repo.findByEmail(row.email);
      if (owner && owner.id !== existing?.id) {
        rejected.push({ line: row.line, reason: `adresse mail « ${row.email} » déjà utilisée par un autre compte` });
        continue;
      }
      if (!existing) {
        await repo.insertAgent(values);
        result.created++;
      } else if (
        existing.identifiant === values.identifiant &&
        existing.email === values.email &&
        existing.nom === values.nom &&
        existing.prenom === values.prenom &&
        existing.actif &&
        existing.email_valide
      ) {
        result.unchanged++;
      } else {
        await repo.updateAgent(existing.id, values);
        result.updated++;
      }
    }
  });
  rejected.sort((a, b) => a.line - b.line);
  return result;
}

function count(n: number, one: string, many: string) {
  return `${n} ${n > 1 ? many : one}`;
}

/** The summary the CLI prints. */
export function formatAgentsImportSummary(r: AgentsImportResult): string {
  const head =
    `Import des agents terminé : ${count(r.created, 'créé', 'créés')}, ${count(r.updated, 'mis à jour', 'mis à jour')}, ` +
    `${count(r.unchanged, 'inchangé', 'inchangés')}, ${count(r.rejected.length, 'ligne rejetée', 'lignes rejetées')}.`;
  const lines = r.rejected.map((x) => `  ligne ${x.line} : ${x.reason}`);
  const hint = r.created > 0 ? ['Les nouveaux agents choisissent leur mot de passe avec « Mot de passe oublié » sur la page de connexion.'] : [];
  return [head, ...lines, ...hint].join('\n');
}
