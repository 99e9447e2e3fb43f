// Moving in: a file of sites, users or interventions is read, every line checked against
// maps read once (sites, cells, actions, accounts), and the report tells what the import would
// create, change or leave alone. Only a file without a single error is written, in one
// transaction, in batches. Lines are matched with what is there already (sites by code, cells by
// site, type and number, users by e-mail, interventions by site, cell, date, action and
// value), so importing the same file again changes nothing.
import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../../deps.js';
import type { CurrentUser } from '../../plugins/auth.js';
import { formatParisDate, formatParisDateTime } from '../../../shared/dates.js';
import { SITE_STATUT, TYPE_BAC_MATURATION, TYPE_USER, TYPE_USERS } from '../../../shared/domain.js';
import { hasControlChars } from '../../../shared/schemas/bounds.js';
import { storedValueOf, validateBlocksAgainstCatalogue } from '../../../shared/schemas/interventions.js';
import { isTooOldDate, isFutureDate, OBSERVATIONS_MAX } from '../../../shared/schemas/intervention-rules.js';
import { normaliseTel, toStoredDate } from '../../../shared/schemas/sites.js';
import {
  IMPORT_COLUMNS,
  IMPORT_MESSAGES as M,
  type ImportKind,
  type ImportLineError,
  type ImportProgress,
  type ImportReport,
} from '../../../shared/schemas/imports.js';
import { createFieldEntryRepository } from '../field-entry/public.js';
import { createRequestLifecycle, type SavedEntry } from '../requests/public.js';
import { createAccountService } from '../account/public.js';
import { labelKey, parseDate, parseDay, parseNumber, readImportFile, type FileLine, type ParsedFile } from './import-file.js';
import { createImportsRepository, NAME_ONLY_DOMAIN, type ImportsRepository, type NewInterventionRow } from './imports.repository.js';
import type { Db } from '../../db/client.js';

const DAY_MS = 24 * 3600 * 1000;
/** Rows per INSERT: 10 columns each, far below PostgreSQL's 65,535 parameters. */
const INSERT_BATCH = 2000;
/** Lines checked between two yields to the event loop. */
const CHECK_SLICE = 5000;
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface ImportOptions {
  mode: 'essai' | 'import';
  user: CurrentUser;
  invite?: boolean;
  onProgress?: (p: ImportProgress) => void;
}

/** Errors and warnings of a file, each with its line and the column as the file names it. */
class Report {
  erreurs: ImportLineError[] = [];
  avertissements: ImportLineError[] = [];
  crees = 0;
  modifies = 0;
  inchanges = 0;
  constructor(private readonly file: ParsedFile, private readonly kind: ImportKind) {}
  colonne(key: string) {
    return this.file.headers[key] ?? IMPORT_COLUMNS[this.kind].find((c) => c.key === key)?.header ?? key;
  }
  err(ligne: number, key: string, message: string) {
    this.erreurs.push({ ligne, colonne: this.colonne(key), message });
  }
  warn(ligne: number, key: string, message: string) {
    this.avertissements.push({ ligne, colonne: this.colonne(key), message });
  }
  count(state: 'new' | 'changed' | 'same') {
    if (state === 'new') this.crees++;
    else if (state === 'changed') this.modifies++;
    else this.inchanges++;
  }
  /** A text cell: null when empty; an error when too long, required and missing, or with control characters. */
  text(line: FileLine, key: string, max: number, required = false): string | null {
    const v = line.cells[key] ?? '';
    if (v === '') {
      if (required) this.err(line.ligne, key, M.required);
      return null;
    }
    if (hasControlChars(v)) this.err(line.ligne, key, M.controlChars);
    else if (v.length > max) this.err(line.ligne, key, M.tooLong(max));
    return v;
  }
}

const has = (file: ParsedFile, key: string) => key in file.headers;
const splitList = (s: string) => s.split(/[\s,;|]+/).filter(Boolean);
const same = (a: unknown, b: unknown) => (a instanceof Date || b instanceof Date ? (a as Date | null)?.getTime?.() === (b as Date | null)?.getTime?.() : (a ?? null) === (b ?? null));
const composteurKey = (s: string) => labelKey(s).replace(/\s+/g, '');

/** A label -> id map that forgets labels shared by several ids. */
function uniqueMap<T>(items: T[], keyOf: (t: T) => string[], idOf: (t: T) => number): Map<string, number> {
  const out = new Map<string, number | null>();
  for (const t of items)
    for (const k of keyOf(t)) {
      const prev = out.get(k);
      out.set(k, prev === undefined || prev === idOf(t) ? idOf(t) : null);
    }
  return new Map([...out].filter((e): e is [string, number] => e[1] !== null));
}

// ---------------------------------------------------------------------------------------------
// Sites

interface CellPlan {
  typeBac: number;
  numero: number;
  composteur: number;
  actif: boolean;
  existingId: number | null;
}

interface SitePlan {
  ligne: number;
  id: number | null;
  code: string;
  values: Record<string, unknown>;
  convention: Date | null;
  cells: CellPlan[];
  referents: number[];
  state: 'new' | 'changed' | 'same';
}

async function checkSites(repo: ImportsRepository, file: ParsedFile, r: Report): Promise<SitePlan[]> {
  const [types, villes, composteurs, typeBacs] = await Promise.all([repo.typeSites(), repo.villes(), repo.typeComposteurs(), repo.typeBacs()]);
  const codes = [...new Set(file.lines.map((l) => l.cells.code).filter(Boolean))];
  const existing = new Map((await repo.sitesByCode(codes)).map((s) => [s.code, s]));
  const ids = [...existing.values()].map((s) => s.id);
  const [cells, links] = await Promise.all([repo.cellsOf(ids), repo.referentLinks(ids)]);
  const linked = new Set(links.map((l) => `${l.site_id}:${l.account_id}`));
  const emails = [...new Set(file.lines.flatMap((l) => splitList(l.cells.referents ?? '')))];
  const accounts = new Map((await repo.accountsByEmail(emails)).map((a) => [a.email.toLowerCase(), a]));
  const typeOf = uniqueMap(types, (t) => [labelKey(t.libelle), labelKey(t.code)], (t) => t.id);
  const bacOf = uniqueMap(typeBacs, (t) => [labelKey(t.libelle), String(t.id)], (t) => t.id);
  const composteurOf = uniqueMap(composteurs, (c) => [composteurKey(`${c.volume} L - ${c.precisions}`), composteurKey(`${c.volume} L`), composteurKey(c.precisions)], (c) => c.id);
  const typeList = types.map((t) => t.libelle).join(', ');
  const composteurList = composteurs.map((c) => `${c.volume} L - ${c.precisions}`).join(', ');
  const seen = new Map<string, number>();
  const plans: SitePlan[] = [];

  for (const line of file.lines) {
    const n = line.ligne;
    const c = line.cells;
    const errorsBefore = r.erreurs.length;
    const code = c.code ?? '';
    if (code === '') r.err(n, 'code', M.required);
    else if (!/^[A-Za-z0-9_-]{1,20}$/.test(code)) r.err(n, 'code', M.codeInvalid);
    else if (seen.has(code)) r.err(n, 'code', M.duplicateCode(seen.get(code)!));
    else seen.set(code, n);
    const current = existing.get(code);
    const values: Record<string, unknown> = {};
    const set = (key: string, column: string, v: unknown) => {
      if (has(file, key)) values[column] = v;
    };
    set('nom', 'nom', r.text(line, 'nom', 50));
    set('numero', 'numero', r.text(line, 'numero', 20));
    set('adresse', 'adresse', r.text(line, 'adresse', 200, true));
    set('complement', 'complement', r.text(line, 'complement', 200));
    set('cadena', 'cadena', r.text(line, 'cadena', 8));
    set('observations', 'observations', r.text(line, 'observations', 1000));
    const villeName = r.text(line, 'ville', 100, true);
    if (villeName) {
      const cp = c.cp ?? '';
      const found = villes.find((v) => labelKey(v.nom) === labelKey(villeName) && (cp === '' || v.cp === cp));
      if (!found) r.err(n, 'ville', M.villeUnknown);
      else Object.assign(values, { ville: found.nom, cp: found.cp, code_insee: found.code_insee });
    }
    const type = r.text(line, 'type', 100, true);
    if (type) {
      const id = typeOf.get(labelKey(type));
      if (id === undefined) r.err(n, 'type', M.typeSiteUnknown(typeList));
      else values.type_site_id = id;
    }
    if (has(file, 'statut')) {
      const s = labelKey(c.statut ?? '');
      const statut = s === '' || s === 'actif' || s === '1' ? SITE_STATUT.actif : s === 'demande' || s === '2' ? SITE_STATUT.demande : null;
      if (statut === null) r.err(n, 'statut', M.statutUnknown);
      else values.statut_id = statut;
    } else if (!current) values.statut_id = SITE_STATUT.actif;
    for (const [key, column] of [['dateImplantation', 'date_implantation'], ['dateInauguration', 'date_inauguration']] as const) {
      if (!has(file, key)) continue;
      const v = c[key] ?? '';
      const day = v === '' ? null : parseDay(v);
      if (v !== '' && !day) r.err(n, key, M.dateInvalid);
      values[column] = toStoredDate(day);
    }
    let convention: Date | null = null;
    if (c.dateConvention) {
      const day = parseDay(c.dateConvention);
      if (!day) r.err(n, 'dateConvention', M.dateInvalid);
      else if (!current || formatParisDate(current.date_convention) !== formatParisDate(toStoredDate(day))) convention = toStoredDate(day);
    }
    const lat = c.latitude ?? '';
    const lon = c.longitude ?? '';
    if (lat !== '' || lon !== '') {
      const la = parseNumber(lat);
      const lo = parseNumber(lon);
      if (la === null || lo === null || la < -90 || la > 90 || lo < -180 || lo > 180) r.err(n, lat === '' || la === null || la < -90 || la > 90 ? 'latitude' : 'longitude', M.coordinates);
      else Object.assign(values, { latitude: la, longitude: lo, coordonnees_source: 'saisie' });
    }

    // Cells: the site's as they will be, to check the numbers of the active ones.
    const siteCells = current ? cells.filter((x) => x.site_id === current.id) : [];
    const planned: CellPlan[] = [];
    for (const item of (c.cellules ?? '').split('|').map((s) => s.trim()).filter(Boolean)) {
      const m = /^(desactive\s*-\s*)?n°?\s*(\d+)\s+(.+?)\s*\((.+)\)$/.exec(labelKey(item));
      if (!m) {
        r.err(n, 'cellules', `${M.cellFormat} : « ${item} »`);
        continue;
      }
      const numero = Number(m[2]);
      const typeBac = bacOf.get(m[3].trim());
      const composteur = composteurOf.get(composteurKey(m[4]));
      if (numero > 20) r.err(n, 'cellules', `${M.cellNumero} : « ${item} »`);
      if (typeBac === undefined) r.err(n, 'cellules', `${M.cellTypeUnknown} : « ${item} »`);
      if (composteur === undefined) r.err(n, 'cellules', `${M.composteurUnknown(composteurList)} : « ${item} »`);
      if (numero > 20 || typeBac === undefined || composteur === undefined) continue;
      if (planned.some((p) => p.typeBac === typeBac && p.numero === numero)) {
        r.err(n, 'cellules', `${M.cellDuplicate} : « ${item} »`);
        continue;
      }
      const old = siteCells.find((x) => x.type_bac_id === typeBac && x.numero === numero);
      planned.push({ typeBac, numero, composteur, actif: !m[1], existingId: old?.id ?? null });
    }
    const finalActive = [
      ...siteCells.filter((x) => x.actif && !planned.some((p) => p.existingId === x.id)).map((x) => x.numero),
      ...planned.filter((p) => p.actif).map((p) => p.numero),
    ];
    if (new Set(finalActive).size !== finalActive.length) r.err(n, 'cellules', M.cellNumeroTaken);
    const cellChanges = planned.filter((p) => {
      const old = siteCells.find((x) => x.id === p.existingId);
      return !old || old.type_composteur_id !== p.composteur || old.actif !== p.actif;
    });

    const referents: number[] = [];
    for (const email of splitList(c.referents ?? '')) {
      const a = accounts.get(email.toLowerCase());
      if (!EMAIL_RE.test(email)) r.err(n, 'referents', `${M.emailInvalid} : ${email}`);
      else if (!a) r.warn(n, 'referents', M.referentUnknown(email));
      else if (a.kind !== 'user' || a.type_user_id === TYPE_USER.prestataire) r.err(n, 'referents', M.referentNotUser(email));
      else if (!current || !linked.has(`${current.id}:${a.id}`)) referents.push(a.id);
    }

    if (r.erreurs.length > errorsBefore) continue;
    const changed = current ? Object.entries(values).some(([k, v]) => !same((current as Record<string, unknown>)[k], v)) : true;
    const state = !current ? 'new' : changed || convention || cellChanges.length || referents.length ? 'changed' : 'same';
    r.count(state);
    plans.push({ ligne: n, id: current?.id ?? null, code, values, convention, cells: cellChanges, referents: [...new Set(referents)], state });
  }
  return plans;
}

async function applySites(tx: ImportsRepository, plans: SitePlan[]) {
  for (const p of plans) {
    if (p.state === 'same') continue;
    let id = p.id;
    if (id === null) id = await tx.insertSite({ ...p.values, code: p.code });
    else if (Object.keys(p.values).length) await tx.updateSite(id, p.values);
    if (p.convention) await tx.addConvention(id, p.convention);
    for (const cell of p.cells.filter((x) => x.existingId !== null)) await tx.updateCell(cell.existingId!, { type_composteur_id: cell.composteur, actif: cell.actif });
    const siteId = id;
    await tx.insertCells(p.cells.filter((x) => x.existingId === null).map((x) => ({ site_id: siteId, type_composteur_id: x.composteur, type_bac_id: x.typeBac, numero: x.numero, actif: x.actif })));
    await tx.addReferents(p.referents.map((account_id) => ({ site_id: siteId, account_id })));
  }
}

// ---------------------------------------------------------------------------------------------
// Users

interface UserPlan {
  id: number | null;
  email: string;
  values: { nom: string; prenom: string | null; tel: string | null; organisme: string | null; type_user_id: number };
  typeChanged: boolean;
  sites: number[];
  state: 'new' | 'changed' | 'same';
}

async function checkUsers(repo: ImportsRepository, file: ParsedFile, r: Report): Promise<UserPlan[]> {
  const emails = [...new Set(file.lines.map((l) => l.cells.email).filter(Boolean))];
  const accounts = new Map((await repo.accountsByEmail(emails)).map((a) => [a.email.toLowerCase(), a]));
  const codes = [...new Set(file.lines.flatMap((l) => splitList(l.cells.sites ?? '')))];
  const sites = new Map((await repo.sitesByCode(codes)).map((s) => [s.code, s.id]));
  const existingIds = [...accounts.values()].map((a) => a.id);
  const links = new Set(
    existingIds.length ? (await repo.referentLinks([...sites.values()])).filter((l) => existingIds.includes(l.account_id)).map((l) => `${l.site_id}:${l.account_id}`) : [],
  );
  const typeOf = uniqueMap([...TYPE_USERS], (t) => [labelKey(t.libelle), String(t.id)], (t) => t.id);
  const seen = new Map<string, number>();
  const plans: UserPlan[] = [];
  for (const line of file.lines) {
    const n = line.ligne;
    const c = line.cells;
    const before = r.erreurs.length;
    const type = typeOf.get(labelKey(c.type ?? ''));
    if (!c.type) r.err(n, 'type', M.required);
    else if (type === undefined) r.err(n, 'type', M.typeUserUnknown);
    const nom = r.text(line, 'nom', 100, true);
    const prenom = r.text(line, 'prenom', 100, type !== undefined && type !== TYPE_USER.organisme);
    const organisme = r.text(line, 'organisme', 100, type === TYPE_USER.organisme);
    const email = r.text(line, 'email', 254, true);
    const key = email?.toLowerCase() ?? '';
    if (email && !EMAIL_RE.test(email)) r.err(n, 'email', M.emailInvalid);
    else if (email && seen.has(key)) r.err(n, 'email', M.duplicateEmail(seen.get(key)!));
    else if (email) seen.set(key, n);
    const current = accounts.get(key);
    if (current && current.kind !== 'user') r.err(n, 'email', M.emailAgent);
    let tel: string | null = null;
    if (c.tel) {
      tel = normaliseTel(c.tel);
      if (!/^\d{10}$/.test(tel)) r.err(n, 'tel', M.tel);
    }
    const siteIds: number[] = [];
    for (const code of splitList(c.sites ?? '')) {
      const id = sites.get(code);
      if (id === undefined) r.err(n, 'sites', M.siteUnknown(code));
      else siteIds.push(id);
    }
    if (type === TYPE_USER.prestataire && siteIds.length) r.err(n, 'sites', M.prestataireSites);
    if (r.erreurs.length > before || type === undefined || !email || !nom) continue;
    const values = { nom, prenom, tel: has(file, 'tel') ? tel : (current?.tel ?? null), organisme, type_user_id: type };
    const newSites = [...new Set(siteIds)].filter((s) => !current || !links.has(`${s}:${current.id}`));
    const changed = current && (Object.entries(values) as [keyof typeof values, unknown][]).some(([k, v]) => !same(current[k], v));
    const state = !current ? 'new' : changed || newSites.length ? 'changed' : 'same';
    r.count(state);
    plans.push({ id: current?.id ?? null, email, values, typeChanged: !current || current.type_user_id !== type, sites: newSites, state });
  }
  return plans;
}

async function applyUsers(tx: ImportsRepository, plans: UserPlan[]): Promise<string[]> {
  const created: string[] = [];
  for (const p of plans) {
    if (p.state === 'same') continue;
    let id = p.id;
    if (id === null) {
      id = await tx.insertUser({ email: p.email, ...p.values });
      created.push(p.email);
    } else await tx.updateUser(id, p.values);
    if (p.typeChanged) await tx.setExternalRole(id, p.values.type_user_id);
    const accountId = id;
    await tx.addReferents(p.sites.map((site_id) => ({ site_id, account_id: accountId })));
  }
  return created;
}

// ---------------------------------------------------------------------------------------------
// Interventions

/** A row to write; `nameRef`: an intervenant with no account, kept as a name-only account (created before the rows). */
type PlannedRow = NewInterventionRow & { nameRef: string | null };

interface InterventionPlan {
  inserts: PlannedRow[];
  updates: { id: number; observations: string | null; intervenant_id: number; bac_destination_id: number | null; nameRef: string | null }[];
  /** Names of the intervenants with no account, by their label key. */
  names: Map<string, string>;
}

const NAME_PREFIX = 'name:';

async function checkInterventions(db: Db, repo: ImportsRepository, file: ParsedFile, r: Report, user: CurrentUser, progress: (done: number) => void): Promise<InterventionPlan> {
  const field = createFieldEntryRepository(db);
  const [sites, cells, typeBacs, actions, constantes, typeActions, accounts] = await Promise.all([
    repo.sites(),
    repo.cellsOf(null),
    repo.typeBacs(),
    repo.actions(),
    repo.constantes(),
    field.actionCatalogue(),
    repo.accountNames(),
  ]);
  const siteByCode = new Map(sites.map((s) => [s.code, s]));
  const siteIdsByName = new Map<string, number[]>();
  for (const s of sites) if (s.nom) siteIdsByName.set(labelKey(s.nom), [...(siteIdsByName.get(labelKey(s.nom)) ?? []), s.id]);
  const siteById = new Map(sites.map((s) => [s.id, s]));
  // A number freed by a retired cell may be taken again: the active cell wins, else the latest.
  const cellOf = new Map<string, (typeof cells)[number]>();
  for (const cell of cells) {
    const k = `${cell.site_id}:${cell.type_bac_id}:${cell.numero}`;
    const prev = cellOf.get(k);
    if (!prev || cell.actif || !prev.actif) cellOf.set(k, cell);
  }
  const bacOf = uniqueMap(typeBacs, (t) => [labelKey(t.libelle), String(t.id)], (t) => t.id);
  const actionOf = uniqueMap(actions, (a) => [labelKey(a.libelle), String(a.id)], (a) => a.id);
  const kindOf = new Map(actions.map((a) => [a.id, a.value_kind as Parameters<typeof storedValueOf>[1]]));
  const constanteOf = new Map(constantes.map((k) => [`${k.id_action}:${labelKey(k.constante)}`, k.id_constante]));
  const accountByName = uniqueMap(accounts, (a) => [labelKey(a.name)], (a) => a.id);
  const accountByEmail = new Map(accounts.map((a) => [a.email.toLowerCase(), a.id]));
  const names = new Map<string, string>();
  const columnOf: Record<string, string> = { composteur: 'numeroBac', action: 'action', valeur: 'valeur', bacDestination: 'unite', observations: 'observations' };
  const now = Date.now();

  interface Checked extends NewInterventionRow {
    ligne: number;
    key: string;
    intervenantRef: number | string;
  }
  const checked: Checked[] = [];
  for (const [i, line] of file.lines.entries()) {
    if (i % CHECK_SLICE === CHECK_SLICE - 1) {
      progress(i);
      await tick();
    }
    const n = line.ligne;
    const c = line.cells;
    const before = r.erreurs.length;
    const parsed = c.date ? parseDate(c.date) : null;
    if (!c.date) r.err(n, 'date', M.required);
    else if (!parsed) r.err(n, 'date', M.dateInvalid);
    else if (isTooOldDate(parsed.date.toISOString())) r.err(n, 'date', M.dateTooOld);
    else if (isFutureDate(parsed.date.toISOString(), now)) r.err(n, 'date', M.dateFuture);

    let site = c.site ? siteByCode.get(c.site) : undefined;
    if (!c.site) r.err(n, 'site', M.required);
    else if (!site) {
      const byName = siteIdsByName.get(labelKey(c.site)) ?? [];
      if (byName.length > 1) r.err(n, 'site', M.siteAmbiguous);
      else if (byName.length === 0) r.err(n, 'site', M.siteUnknown(c.site));
      else site = siteById.get(byName[0]);
    }
    if (site && site.statut_id !== SITE_STATUT.actif) r.err(n, 'site', M.siteNotActive);

    const typeBac = bacOf.get(labelKey(c.typeBac ?? ''));
    if (!c.typeBac) r.err(n, 'typeBac', M.required);
    else if (typeBac === undefined) r.err(n, 'typeBac', M.cellTypeUnknown);
    const numero = /^\d{1,2}$/.test(c.numeroBac ?? '') ? Number(c.numeroBac) : null;
    if (!c.numeroBac) r.err(n, 'numeroBac', M.required);
    else if (numero === null) r.err(n, 'numeroBac', M.cellNumero);
    const cell = site && typeBac !== undefined && numero !== null ? cellOf.get(`${site.id}:${typeBac}:${numero}`) : undefined;
    if (site && typeBac !== undefined && numero !== null && !cell) r.err(n, 'numeroBac', M.cellUnknown);

    const action = actionOf.get(labelKey(c.action ?? ''));
    if (!c.action) r.err(n, 'action', M.required);
    else if (action === undefined) r.err(n, 'action', M.actionUnknown);
    const kind = action === undefined ? undefined : kindOf.get(action);

    // The value as the phone would send it: a number, a constant's id, a text.
    const raw = c.valeur ?? '';
    let valeur: string | number | null = raw === '' ? null : raw;
    if (kind === 'constant' && raw !== '') valeur = constanteOf.get(`${action}:${labelKey(raw)}`) ?? (/^\d+$/.test(raw) ? Number(raw) : -1);
    else if ((kind === 'litres' || kind === 'transfer' || kind === 'temperature') && raw !== '') valeur = parseNumber(raw) ?? raw;
    const unite = labelKey(c.unite ?? '');
    let dest: (typeof cells)[number] | undefined;
    if (kind === 'transfer' && site) {
      const m = /vers le composteur n°?\s*(\d+)/.exec(unite);
      dest = m ? cellOf.get(`${site.id}:${TYPE_BAC_MATURATION}:${Number(m[1])}`) : undefined;
      if (!m || !dest) r.err(n, 'unite', M.destinationUnknown);
    } else if (unite !== '' && !['l', '°c', 'c'].includes(unite)) r.err(n, 'unite', M.uniteInvalid);
    const observations = r.text(line, 'observations', OBSERVATIONS_MAX);

    if (cell && action !== undefined) {
      // History may name cells retired since: they count as active for the checks.
      const catalogueCells = [cell, ...(dest ? [dest] : [])].map((x) => ({ id: x.id, typeBac: x.type_bac_id, actif: true }));
      const blockErrors = validateBlocksAgainstCatalogue([{ composteur: cell.id, action, valeur, bacDestination: dest?.id ?? null, observations }], {
        typeActions,
        constantes: constantes.map((k) => ({ idConstante: k.id_constante, idAction: k.id_action })),
        cells: catalogueCells,
      });
      for (const e of blockErrors) if (!(e.key.endsWith('bacDestination') && kind === 'transfer' && !dest)) r.err(n, columnOf[e.key.split('.')[1]] ?? 'valeur', e.error);
    }

    let intervenantRef: number | string = user.id;
    const who = r.text(line, 'intervenant', 200);
    if (who) {
      const id = accountByEmail.get(who.toLowerCase()) ?? accountByName.get(labelKey(who));
      if (id !== undefined) intervenantRef = id;
      else {
        // Kept as the name the file gives (see NAME_ONLY_DOMAIN).
        names.set(labelKey(who), who);
        intervenantRef = NAME_PREFIX + labelKey(who);
      }
    }

    if (r.erreurs.length > before || !parsed || !site || !cell || action === undefined || kind === undefined) continue;
    const v = storedValueOf(valeur, kind);
    checked.push({
      ligne: n,
      key: `${cell.id}|${formatParisDateTime(parsed.date)}|${action}|${v.valeurNombre ?? ''}|${v.valeurConstante ?? ''}|${v.valeurTexte ?? ''}`,
      date: parsed.date,
      site_id: site.id,
      site_composteur_id: cell.id,
      type_action_id: action,
      valeur_nombre: v.valeurNombre,
      valeur_constante: v.valeurConstante,
      valeur_texte: v.valeurTexte,
      bac_destination_id: dest?.id ?? null,
      observations,
      intervenant_id: 0,
      intervenantRef,
    });
  }

  // What is there already, by key: the n-th line of a key is the n-th intervention of that key.
  const plan: InterventionPlan = { inserts: [], updates: [], names };
  if (r.erreurs.length > 0) return plan;
  const existing = new Map<string, Awaited<ReturnType<ImportsRepository['interventionKeys']>>>();
  for (const row of await repo.interventionKeys([...new Set(checked.map((x) => x.site_id))])) {
    const num = row.valeur_nombre === null ? '' : String(Number(row.valeur_nombre));
    const k = `${row.site_composteur_id}|${row.date_paris}|${row.type_action_id}|${num}|${row.valeur_constante ?? ''}|${row.valeur_texte ?? ''}`;
    const list = existing.get(k);
    if (list) list.push(row);
    else existing.set(k, [row]);
  }
  const nameIds = new Map([...names.keys()].map((k) => [k, accountByEmail.get(nameOnlyEmail(k))]));
  for (const { ligne: _l, key, intervenantRef: ref, ...row } of checked) {
    const nameRef = typeof ref === 'string' ? ref.slice(NAME_PREFIX.length) : null;
    const knownId = typeof ref === 'number' ? ref : nameIds.get(nameRef!);
    const old = existing.get(key)?.shift();
    const intervenant = { intervenant_id: knownId ?? 0, nameRef: knownId === undefined ? nameRef : null };
    if (!old) {
      plan.inserts.push({ ...row, ...intervenant });
      r.count('new');
    } else if (old.observations !== row.observations || old.intervenant_id !== knownId || old.bac_destination_id !== row.bac_destination_id) {
      plan.updates.push({ id: old.id, observations: row.observations, bac_destination_id: row.bac_destination_id, ...intervenant });
      r.count('changed');
    } else r.count('same');
  }
  return plan;
}

/** The e-mail of the name-only account that keeps an intervenant with no account. */
function nameOnlyEmail(key: string): string {
  const slug = key.normalize('NFD').replace(/[^a-z0-9]+/g, '.').replace(/^\.+|\.+$/g, '') || 'inconnu';
  let h = 0;
  for (const ch of key) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return `${slug.slice(0, 60)}.${(h >>> 0).toString(36)}@${NAME_ONLY_DOMAIN}`;
}

async function applyInterventions(tx: Db, plan: InterventionPlan, progress: (done: number, total: number) => void) {
  const repo = createImportsRepository(tx);
  const nameIds = new Map<string, number>();
  const needed = new Set([...plan.inserts, ...plan.updates].map((x) => x.nameRef).filter((k): k is string => k !== null));
  for (const key of needed) {
    const email = nameOnlyEmail(key);
    const [found] = await repo.accountsByEmail([email]);
    nameIds.set(key, found?.id ?? (await repo.insertUser({ email, nom: plan.names.get(key)!, prenom: null, tel: null, organisme: null, type_user_id: TYPE_USER.particulier, actif: false, email_valide: false })));
  }
  const resolve = <T extends { intervenant_id: number; nameRef: string | null }>({ nameRef, ...x }: T): Omit<T, 'nameRef'> => ({
    ...x,
    intervenant_id: nameRef === null ? x.intervenant_id : nameIds.get(nameRef)!,
  });
  for (const u of plan.updates) await repo.updateIntervention(u.id, resolve(u));

  // Oldest first, so that a cell's earliest entry is the one that raises its request; lines of
  // one date in the reverse order of the file, which is the export's (newest first, then the
  // latest recorded first): a file exported and imported again lists them in the same order.
  const rows = plan.inserts
    .map((x, i) => ({ x: resolve(x), i }))
    .sort((a, b) => a.x.date.getTime() - b.x.date.getTime() || b.i - a.i)
    .map((e) => e.x);
  const lifecycle = createRequestLifecycle(tx);
  const rules = await lifecycle.rulesFor([...new Set(rows.map((x) => x.type_action_id))]);
  const now = Date.now();
  const recent: SavedEntry[] = [];
  const total = rows.length;
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    const batch = rows.slice(i, i + INSERT_BATCH);
    const ids = await repo.insertInterventions(batch);
    batch.forEach((row, j) => {
      // A request whose delay has run out already is history, not work: only later ones are raised.
      if (rules.some((rule) => rule.action === row.type_action_id && row.date.getTime() + rule.delai * DAY_MS > now))
        recent.push({ interventionId: ids[j], site: row.site_id, cell: row.site_composteur_id, date: row.date, action: row.type_action_id, constante: row.valeur_constante });
    });
    progress(Math.min(i + INSERT_BATCH, total), total);
    await tick();
  }
  for (const e of recent) await lifecycle.afterEntries([e], rules.filter((rule) => e.date.getTime() + rule.delai * DAY_MS > now));
}

// ---------------------------------------------------------------------------------------------

export function createImportsService(deps: AppDeps, log: FastifyBaseLogger) {
  const repo = createImportsRepository(deps.db);
  const accounts = createAccountService(deps, log);

  return {
    repo,
    async run(kind: ImportKind, buf: Buffer, opts: ImportOptions): Promise<ImportReport> {
      const progress = opts.onProgress ?? (() => {});
      progress({ phase: 'lecture', fait: 0, total: buf.length });
      const file = await readImportFile(buf, IMPORT_COLUMNS[kind]);
      const total = file.lines.length;
      progress({ phase: 'verification', fait: 0, total });
      const r = new Report(file, kind);
      let invitations = 0;
      const write = opts.mode === 'import';
      const writing = (fait: number, of = total) => progress({ phase: 'ecriture', fait, total: of });
      if (kind === 'sites') {
        const plans = await checkSites(repo, file, r);
        if (write && r.erreurs.length === 0) await repo.transaction((tx) => applySites(createImportsRepository(tx), plans));
      } else if (kind === 'utilisateurs') {
        const plans = await checkUsers(repo, file, r);
        if (write && r.erreurs.length === 0) {
          const created = await repo.transaction((tx) => applyUsers(createImportsRepository(tx), plans));
          // After the commit: an invitation to an account that rolled back would be a lie.
          if (opts.invite) for (const email of created) await accounts.requestReset(email);
          invitations = opts.invite ? created.length : 0;
        }
      } else {
        const plan = await checkInterventions(deps.db, repo, file, r, opts.user, (fait) => progress({ phase: 'verification', fait, total }));
        if (write && r.erreurs.length === 0) await repo.transaction((tx) => applyInterventions(tx, plan, writing));
      }
      progress({ phase: 'termine', fait: total, total });
      return {
        status: 'success',
        mode: write && r.erreurs.length === 0 ? 'import' : 'essai',
        lignes: total,
        crees: r.crees,
        modifies: r.modifies,
        inchanges: r.inchanges,
        erreurs: r.erreurs.sort((a, b) => a.ligne - b.ligne),
        avertissements: r.avertissements,
        invitations,
      };
    },
  };
}
