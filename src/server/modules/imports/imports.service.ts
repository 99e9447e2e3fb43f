// Moving in: a file of sites, users or interventions is read, every line checked against
// maps read once (sites, cells, actions, accounts), and the report tells what the import would
// create, change or leave alone. Only a file without a single error is written, in one
// transaction, in batches. Lines are matched with what is there already (sites by code, cells by
// site, type and number, users by e-mail, interventions by site, cell, date, action and
// value), so importing the same file again changes nothing.
import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { withSmallHeap } from '../../gc-tuning.js';
import { formatParisDate } from '../../../shared/dates.js';
import { SITE_STATUT, TYPE_USER, TYPE_USERS } from '../../../shared/domain.js';
import { normaliseTel, toStoredDate } from '../../../shared/schemas/sites.js';
import { IMPORT_COLUMNS, IMPORT_MESSAGES as M, type ImportKind, type ImportReport } from '../../../shared/schemas/imports.js';
import { createAccountService } from '../account/public.js';
import { loadTerritoryFrame } from '../sites/public.js';
import { positionErrors, type TerritoryFrame } from '../../../shared/schemas/territory.js';
import { labelKey, parseDay, parseNumber, readImportFile, type ParsedFile } from './import-file.js';
import { createImportsRepository, type ImportsRepository } from './imports.repository.js';

import { EMAIL_RE, Report, composteurKey, has, same, splitList, uniqueMap, type ImportOptions } from './import-report.js';
import { applyInterventions, interventionChecker } from './import-interventions.js';


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

/** `frame`: where typed coordinates may stand (the territory's, from the sites module). */
async function checkSites(repo: ImportsRepository, file: ParsedFile, r: Report, frame: TerritoryFrame): Promise<SitePlan[]> {
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
      else {
        const outside = positionErrors(frame, la, lo);
        for (const e of outside) r.err(n, e.key, e.error);
        if (outside.length === 0) Object.assign(values, { latitude: la, longitude: lo, coordonnees_source: 'saisie' });
      }
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

export function createImportsService(deps: AppDeps, log: FastifyBaseLogger) {
  const repo = createImportsRepository(deps.db);
  const accounts = createAccountService(deps, log);

  return {
    repo,
    async run(kind: ImportKind, buf: Buffer, opts: ImportOptions): Promise<ImportReport> {
      // Under V8's small-heap mode (gc-tuning.ts): a file's plan is the largest data the server holds.
      return withSmallHeap(async () => {
        const progress = opts.onProgress ?? (() => {});
        progress({ phase: 'lecture', fait: 0, total: buf.length });
        const r = new Report(kind);
        let invitations = 0;
        let total: number;
        const write = opts.mode === 'import';
        if (kind === 'interventions') {
          // Checked as they are read: the plan is kept, not the file's lines.
          const checker = await interventionChecker(deps.db, repo, r, opts.user);
          let seen = 0;
          const file = await readImportFile(buf, IMPORT_COLUMNS[kind], {
            onHeader: (headers) => (r.headers = headers),
            onLine: (line, estimate) => {
              if (++seen % 1000 === 0) progress({ phase: 'verification', fait: seen, total: estimate });
              return checker.check(line);
            },
          });
          total = file.count;
          const plan = checker.finish();
          if (write && r.erreurs.length === 0) await repo.transaction((tx) => applyInterventions(tx, plan, (fait, of) => progress({ phase: 'ecriture', fait, total: of })));
        } else {
          const file = await readImportFile(buf, IMPORT_COLUMNS[kind]);
          r.headers = file.headers;
          total = file.count;
          progress({ phase: 'verification', fait: 0, total });
          if (kind === 'sites') {
            const plans = await checkSites(repo, file, r, await loadTerritoryFrame(deps.db));
            if (write && r.erreurs.length === 0) await repo.transaction((tx) => applySites(createImportsRepository(tx), plans));
          } else {
            const plans = await checkUsers(repo, file, r);
            if (write && r.erreurs.length === 0) {
              const created = await repo.transaction((tx) => applyUsers(createImportsRepository(tx), plans));
              // After the commit: an invitation to an account that rolled back would be a lie.
              if (opts.invite) for (const email of created) await accounts.requestReset(email);
              invitations = opts.invite ? created.length : 0;
            }
          }
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
      });
    },
  };
}
