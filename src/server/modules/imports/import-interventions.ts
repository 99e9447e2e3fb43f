// Interventions from a file: each line checked like an entry from the phone (the same catalogue
// rules), matched with the history already there, then written in batches with the requests
// they raise, as the phone's entries would.
import type { CurrentUser } from '../../plugins/auth.js';
import { formatParisDateTime } from '../../../shared/dates.js';
import { SITE_STATUT, TYPE_BAC_MATURATION, TYPE_USER } from '../../../shared/domain.js';
import { storedValueOf, validateBlocksAgainstCatalogue } from '../../../shared/schemas/interventions.js';
import { isTooOldDate, isFutureDate, OBSERVATIONS_MAX } from '../../../shared/schemas/intervention-rules.js';
import { IMPORT_MESSAGES as M } from '../../../shared/schemas/imports.js';
import { createFieldEntryRepository } from '../field-entry/public.js';
import { createRequestLifecycle, type SavedEntry } from '../requests/public.js';
import { labelKey, parseDate, parseNumber, type ParsedFile } from './import-file.js';
import { createImportsRepository, NAME_ONLY_DOMAIN, type ImportsRepository, type NewInterventionRow } from './imports.repository.js';
import type { Db } from '../../db/client.js';
import { CHECK_SLICE, DAY_MS, INSERT_BATCH, Report, tick, uniqueMap } from './import-report.js';

export type PlannedRow = NewInterventionRow & { nameRef: string | null };

export interface InterventionPlan {
  inserts: PlannedRow[];
  updates: { id: number; observations: string | null; intervenant_id: number; bac_destination_id: number | null; nameRef: string | null }[];
  /** Names of the intervenants with no account, by their label key. */
  names: Map<string, string>;
}

export const NAME_PREFIX = 'name:';

export async function checkInterventions(db: Db, repo: ImportsRepository, file: ParsedFile, r: Report, user: CurrentUser, progress: (done: number) => void): Promise<InterventionPlan> {
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
export function nameOnlyEmail(key: string): string {
  const slug = key.normalize('NFD').replace(/[^a-z0-9]+/g, '.').replace(/^\.+|\.+$/g, '') || 'inconnu';
  let h = 0;
  for (const ch of key) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return `${slug.slice(0, 60)}.${(h >>> 0).toString(36)}@${NAME_ONLY_DOMAIN}`;
}

export async function applyInterventions(tx: Db, plan: InterventionPlan, progress: (done: number, total: number) => void) {
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

