// Interventions from a file: each line checked like an entry from the phone (the same catalogue
// rules), matched with the history already there, then written in batches with the requests
// they raise, as the phone's entries would.
import type { CurrentUser } from '../../plugins/auth.js';
import { formatParisDateTime } from '../../../shared/dates.js';
import { SITE_STATUT, TYPE_BAC_MATURATION } from '../../../shared/domain.js';
import { storedValueOf, validateBlocksAgainstCatalogue } from '../../../shared/schemas/interventions.js';
import { isTooOldDate, isFutureDate, OBSERVATIONS_MAX } from '../../../shared/schemas/intervention-rules.js';
import { IMPORT_MESSAGES as M } from '../../../shared/schemas/imports.js';
import { createFieldEntryRepository } from '../field-entry/public.js';
import { createRequestLifecycle, type SavedEntry } from '../requests/public.js';
import { labelKey, parseDate, parseNumber, type FileLine } from './import-file.js';
import { createImportsRepository, NAME_ONLY_DOMAIN, type ImportsRepository, type InterventionColumns, type NewInterventionRow } from './imports.repository.js';
import type { Db } from '../../db/client.js';
import { DAY_MS, INSERT_BATCH, Report, tick, uniqueMap } from './import-report.js';

/** A row to write; `nameRef`: an intervenant with no account, kept as a name-only account (created before the rows). */
export type PlannedRow = NewInterventionRow & { nameRef: string | null };

/**
 * The rows to insert, a column each: 100,000 rows take about a third of the memory they took as
 * objects (a number in an array costs 8 bytes, an object with its date about 300).
 */
export class PlannedRows {
  private readonly date: number[] = [];
  private readonly site: number[] = [];
  private readonly cell: number[] = [];
  private readonly action: number[] = [];
  /** NaN: no number. */
  private readonly nombre: number[] = [];
  /** -1: no constant. */
  private readonly constante: number[] = [];
  private readonly texte: (string | null)[] = [];
  /** 0: no destination. */
  private readonly dest: number[] = [];
  private readonly observations: (string | null)[] = [];
  private readonly intervenant: number[] = [];
  private readonly nameRef: (string | null)[] = [];

  get length() {
    return this.date.length;
  }

  push(r: PlannedRow) {
    this.date.push(r.date.getTime());
    this.site.push(r.site_id);
    this.cell.push(r.site_composteur_id);
    this.action.push(r.type_action_id);
    this.nombre.push(r.valeur_nombre ?? NaN);
    this.constante.push(r.valeur_constante ?? -1);
    this.texte.push(r.valeur_texte);
    this.dest.push(r.bac_destination_id ?? 0);
    this.observations.push(r.observations);
    this.intervenant.push(r.intervenant_id);
    this.nameRef.push(r.nameRef);
  }

  /** The rows at `at`, a column each; `intervenantOf` resolves the names kept as text. */
  columns(at: Uint32Array, intervenantOf: (id: number, nameRef: string | null) => number): InterventionColumns {
    const pick = <T, U>(col: T[], f: (v: T) => U) => Array.from(at, (i) => f(col[i]));
    const same = <T>(v: T) => v;
    return {
      date: pick(this.date, (t) => new Date(t).toISOString()),
      site_id: pick(this.site, same),
      site_composteur_id: pick(this.cell, same),
      type_action_id: pick(this.action, same),
      valeur_nombre: pick(this.nombre, (v) => (Number.isNaN(v) ? null : v)),
      valeur_constante: pick(this.constante, (v) => (v === -1 ? null : v)),
      valeur_texte: pick(this.texte, same),
      bac_destination_id: pick(this.dest, (v) => v || null),
      observations: pick(this.observations, same),
      intervenant_id: Array.from(at, (i) => intervenantOf(this.intervenant[i], this.nameRef[i])),
    };
  }

  /** What a written row may raise a request with. */
  entry(i: number) {
    return { date: this.date[i], site: this.site[i], cell: this.cell[i], action: this.action[i], constante: this.constante[i] === -1 ? null : this.constante[i] };
  }

  names(): Set<string> {
    return new Set(this.nameRef.filter((k): k is string => k !== null));
  }

  actions(): Set<number> {
    return new Set(this.action);
  }

  /**
   * The rows' positions, oldest first, and lines of one date in the reverse order of the file,
   * which is the export's (newest first, then the latest recorded first): a file exported and
   * imported again lists them in the same order.
   */
  order(): Uint32Array {
    return Uint32Array.from({ length: this.length }, (_, i) => i).sort((a, b) => this.date[a] - this.date[b] || b - a);
  }
}

export interface InterventionPlan {
  inserts: PlannedRows;
  updates: { id: number; observations: string | null; intervenant_id: number; bac_destination_id: number | null; nameRef: string | null }[];
  /** Names of the intervenants with no account, by their label key. */
  names: Map<string, string>;
}

type KnownRow = Awaited<ReturnType<ImportsRepository['interventionKeys']>>[number];

/**
 * Checks lines one by one as the file is read (the lines are not kept): each is matched with
 * the history already there and planned at once, so what stays in memory is the plan, not the
 * file. `finish()` gives the plan; with any error in the file, it is empty and counts nothing.
 */
export async function interventionChecker(db: Db, repo: ImportsRepository, r: Report, user: CurrentUser) {
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
  const catalogue = { typeActions, constantes: constantes.map((k) => ({ idConstante: k.id_constante, idAction: k.id_action })) };
  const accountByName = uniqueMap(accounts, (a) => [labelKey(a.name)], (a) => a.id);
  const accountByEmail = new Map(accounts.map((a) => [a.email.toLowerCase(), a.id]));
  const columnOf: Record<string, string> = { composteur: 'numeroBac', action: 'action', valeur: 'valeur', bacDestination: 'unite', observations: 'observations' };
  const now = Date.now();
  const plan: InterventionPlan = { inserts: new PlannedRows(), updates: [], names: new Map() };
  /** The name-only account of a name, when an earlier import made it. */
  const nameIds = new Map<string, number | undefined>();
  // What each site holds already, by key, read when the file first names the site (null: nothing).
  // The n-th line of a key is the n-th intervention of that key.
  const existing = new Map<number, Map<string, KnownRow[]> | null>();
  const existingOf = async (siteId: number) => {
    if (existing.has(siteId)) return existing.get(siteId)!;
    const byKey = new Map<string, KnownRow[]>();
    for (const row of await repo.interventionKeys([siteId])) {
      const num = row.valeur_nombre === null ? '' : String(Number(row.valeur_nombre));
      const k = `${row.site_composteur_id}|${row.date_paris}|${row.type_action_id}|${num}|${row.valeur_constante ?? ''}|${row.valeur_texte ?? ''}`;
      const list = byKey.get(k);
      if (list) list.push(row);
      else byKey.set(k, [row]);
    }
    const found = byKey.size ? byKey : null;
    existing.set(siteId, found);
    return found;
  };

  return {
    async check(line: FileLine) {
      const n = line.ligne;
      const c = line.cells;
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
        const blockErrors = validateBlocksAgainstCatalogue([{ composteur: cell.id, action, valeur, bacDestination: dest?.id ?? null, observations }], { ...catalogue, cells: catalogueCells });
        for (const e of blockErrors) if (!(e.key.endsWith('bacDestination') && kind === 'transfer' && !dest)) r.err(n, columnOf[e.key.split('.')[1]] ?? 'valeur', e.error);
      }

      let intervenantId: number | undefined = user.id;
      let nameRef: string | null = null;
      const who = r.text(line, 'intervenant', 200);
      if (who) {
        intervenantId = accountByEmail.get(who.toLowerCase()) ?? accountByName.get(labelKey(who));
        if (intervenantId === undefined) {
          // Kept as the name the file gives (see NAME_ONLY_DOMAIN); a name-only account an
          // earlier import made is the same person.
          const key = labelKey(who);
          if (!plan.names.has(key)) {
            plan.names.set(key, who);
            nameIds.set(key, accountByEmail.get(nameOnlyEmail(key)));
          }
          intervenantId = nameIds.get(key);
          if (intervenantId === undefined) nameRef = key;
        }
      }

      // A file with an error writes nothing: past the first one, lines are only checked.
      if (r.erreurs.length > 0 || !parsed || !site || !cell || action === undefined || kind === undefined) return;
      const v = storedValueOf(valeur, kind);
      const row: PlannedRow = {
        date: parsed.date,
        site_id: site.id,
        site_composteur_id: cell.id,
        type_action_id: action,
        valeur_nombre: v.valeurNombre,
        valeur_constante: v.valeurConstante,
        valeur_texte: v.valeurTexte,
        bac_destination_id: dest?.id ?? null,
        observations,
        intervenant_id: intervenantId ?? 0,
        nameRef,
      };
      const known = await existingOf(site.id);
      const old = known?.get(`${cell.id}|${formatParisDateTime(parsed.date)}|${action}|${v.valeurNombre ?? ''}|${v.valeurConstante ?? ''}|${v.valeurTexte ?? ''}`)?.shift();
      if (!old) {
        plan.inserts.push(row);
        r.count('new');
      } else if (old.observations !== observations || old.intervenant_id !== intervenantId || old.bac_destination_id !== row.bac_destination_id) {
        plan.updates.push({ id: old.id, observations, bac_destination_id: row.bac_destination_id, intervenant_id: row.intervenant_id, nameRef });
        r.count('changed');
      } else r.count('same');
    },

    finish(): InterventionPlan {
      if (r.erreurs.length === 0) return plan;
      r.crees = r.modifies = r.inchanges = 0;
      return { inserts: new PlannedRows(), updates: [], names: new Map() };
    },
  };
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
  const needed = new Set([...plan.inserts.names(), ...plan.updates.map((x) => x.nameRef).filter((k): k is string => k !== null)]);
  for (const key of needed) {
    const email = nameOnlyEmail(key);
    const [found] = await repo.accountsByEmail([email]);
    nameIds.set(key, found?.id ?? (await repo.insertIntervenantName(email, plan.names.get(key)!)));
  }
  const intervenantOf = (id: number, nameRef: string | null) => (nameRef === null ? id : nameIds.get(nameRef)!);
  for (const u of plan.updates) await repo.updateIntervention(u.id, { observations: u.observations, bac_destination_id: u.bac_destination_id, intervenant_id: intervenantOf(u.intervenant_id, u.nameRef) });

  // Oldest first, so that a cell's earliest entry is the one that raises its request.
  const order = plan.inserts.order();
  const lifecycle = createRequestLifecycle(tx);
  const rules = await lifecycle.rulesFor([...plan.inserts.actions()]);
  const now = Date.now();
  const recent: SavedEntry[] = [];
  const total = order.length;
  for (let i = 0; i < total; i += INSERT_BATCH) {
    const at = order.subarray(i, i + INSERT_BATCH);
    const ids = await repo.insertInterventions(plan.inserts.columns(at, intervenantOf));
    at.forEach((k, j) => {
      const row = plan.inserts.entry(k);
      // A request whose delay has run out already is history, not work: only later ones are raised.
      if (rules.some((rule) => rule.action === row.action && row.date + rule.delai * DAY_MS > now))
        recent.push({ interventionId: ids[j], site: row.site, cell: row.cell, date: new Date(row.date), action: row.action, constante: row.constante });
    });
    progress(Math.min(i + INSERT_BATCH, total), total);
    await tick();
  }
  for (const e of recent) await lifecycle.afterEntries([e], rules.filter((rule) => e.date.getTime() + rule.delai * DAY_MS > now));
}
