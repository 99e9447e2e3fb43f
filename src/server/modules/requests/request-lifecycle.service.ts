// A request and the entries that call for it never disagree. The interventions services call
// this inside their own transaction:
// - after an entry is saved, each rule it matches raises a request on its cell, unless one is
//   already pending there for that action: the entry is then recorded as one more call for it
//   (its count and latest value show on the board), and the request keeps its due date;
// - after a trigger is corrected, its requests follow: a new date moves the due date, a new
//   cell moves the request, a value no rule asks for any more cancels it (by the editor);
// - after a trigger is deleted, its pending requests go with it.
// A request called for by several entries only goes (or is cancelled) with the last of them:
// until then the earliest remaining entry takes the trigger's place and gives the due date.
// Locks: cells first (lockCells), then requests, in every path, so that two writers of one bin
// wait for each other instead of deadlocking.
import type { Db } from '../../db/client.js';
import { PENDING_STATUTS } from '../../../shared/schemas/requests.js';
import { createRequestLifecycleRepository, type Rule, type SignalRow } from './request-lifecycle.repository.js';

const DAY_MS = 24 * 3600 * 1000;

/** What the rules read of an intervention. */
export interface TriggerState {
  cell: number;
  date: Date;
  action: number;
  /** The constant of constant actions (valeur_constante), else null. */
  constante: number | null;
}

export interface SavedEntry extends TriggerState {
  interventionId: number;
  site: number;
}

export const isPendingStatut = (statut: number) => (PENDING_STATUTS as readonly number[]).includes(statut);


/** Scheduled actions a state calls for, each with the shortest delay of its rules. */
function calledFor(rules: Rule[], state: Pick<TriggerState, 'action' | 'constante'>): Map<number, number> {
  const out = new Map<number, number>();
  for (const r of rules) {
    if (r.action !== state.action || (r.constante !== null && r.constante !== state.constante)) continue;
    out.set(r.programmee, Math.min(out.get(r.programmee) ?? Infinity, r.delai));
  }
  return out;
}

export interface FollowResult {
  /** Raised for this intervention. */
  creees: number[];
  /** Pending already: this intervention was added to their calls. */
  signalees: number[];
  /** Cancelled by the editor: no rule asks for them any more, or they merged into another. */
  annulees: number[];
  /** Moved to the intervention's new cell. */
  deplacees: number[];
  /** Deleted with their only trigger. */
  supprimees: number[];
  /** Still pending, called for by other entries. */
  maintenues: number[];
}

const emptyResult = (): FollowResult => ({ creees: [], signalees: [], annulees: [], deplacees: [], supprimees: [], maintenues: [] });

export function createRequestLifecycle(conn: Db) {
  const repo = createRequestLifecycleRepository(conn);
  const lockCells = (ids: number[]) => repo.lockCells([...new Set(ids)].sort((a, b) => a - b));

  /** Raises the request, or adds the entry to the calls of the one already pending. */
  async function raiseOrSignal(site: number, interventionId: number, cell: number, date: Date, programmee: number, delayMs: number, out: FollowResult) {
    const due = new Date(date.getTime() + delayMs);
    const pending = await repo.findPending(cell, programmee);
    if (!pending) {
      out.creees.push(await repo.insertRequest({ site, cell, programmee, trigger: interventionId, due }));
    } else if (pending.trigger !== interventionId) {
      await repo.addSignal(pending.id, interventionId, due);
      out.signalees.push(pending.id);
    }
  }

  /**
   * Takes the intervention off a pending request's calls. When it was the trigger, the
   * earliest other entry takes its place; with none left, `alone` decides the request's fate.
   */
  async function detach(s: SignalRow, interventionId: number, alone: 'cancel' | 'delete', editorId: number, out: FollowResult) {
    if (!s.first) {
      await repo.removeSignal(s.id, interventionId);
      out.maintenues.push(s.id);
      return;
    }
    const next = await repo.earliestSignal(s.id);
    if (next) {
      await repo.promote(s.id, next.interventionId, new Date(next.due));
      out.maintenues.push(s.id);
    } else if (alone === 'cancel') {
      await repo.cancel([s.id], editorId);
      out.annulees.push(s.id);
    } else {
      await repo.deleteRequest(s.id);
      out.supprimees.push(s.id);
    }
  }

  return {
    lockCells,
    lockProcessed: (ids: number[]) => repo.lockProcessed(ids),
    /** Every request the intervention called for, locked (lock its cells first). */
    signalsOf: (interventionId: number) => repo.signalsOf(interventionId),
    rulesFor: (actionIds: number[]) => repo.rulesFor([...new Set(actionIds)]),

    /**
     * The requests that saved entries call for: raised, or signalled when already pending.
     * `rules`: those of the entries' actions, when the caller already read them.
     */
    async afterEntries(entries: SavedEntry[], rules?: Rule[]): Promise<FollowResult> {
      const out = emptyResult();
      rules ??= await repo.rulesFor([...new Set(entries.map((e) => e.action))]);
      const matches = entries.flatMap((e) => [...calledFor(rules, e)].map(([programmee, delai]) => ({ e, programmee, delai })));
      if (matches.length === 0) return out;
      await lockCells(matches.map((m) => m.e.cell));
      for (const { e, programmee, delai } of matches) await raiseOrSignal(e.site, e.interventionId, e.cell, e.date, programmee, delai * DAY_MS, out);
      return out;
    },

    /**
     * The requests of a corrected intervention follow it. `signals` comes from signalsOf, read
     * before the change (cells locked first); requests already processed lock the intervention
     * and never reach this point.
     */
    async afterEdit(editorId: number, interventionId: number, site: number, before: TriggerState, after: TriggerState, signals: SignalRow[]): Promise<FollowResult> {
      const out = emptyResult();
      const rules = await repo.rulesFor([...new Set([before.action, after.action])]);
      const now = calledFor(rules, after);
      const was = calledFor(rules, before);
      const covered = new Set<number>();
      for (const s of signals.filter((x) => isPendingStatut(x.statut))) {
        if (!now.has(s.programmee)) {
          await detach(s, interventionId, 'cancel', editorId, out);
          continue;
        }
        covered.add(s.programmee);
        // The delay the request was raised with, kept whatever the rules say today.
        const delayMs = (s.first ? s.due.getTime() : s.signalDue!.getTime()) - before.date.getTime();
        const due = new Date(after.date.getTime() + delayMs);
        if (after.cell !== s.cell) {
          if (s.first && !(await repo.hasSignals(s.id))) {
            // Its only trigger moved: the request moves too, or joins the one pending there.
            const there = await repo.findPending(after.cell, s.programmee);
            if (there) {
              await repo.addSignal(there.id, interventionId, due);
              await repo.cancel([s.id], editorId);
              out.signalees.push(there.id);
              out.annulees.push(s.id);
            } else {
              await repo.move(s.id, after.cell, due);
              out.deplacees.push(s.id);
            }
          } else {
            // Other entries on the old cell still call for it: it stays, this entry goes to the new cell.
            await detach(s, interventionId, 'cancel', editorId, out);
            await raiseOrSignal(site, interventionId, after.cell, after.date, s.programmee, delayMs, out);
          }
        } else if (after.date.getTime() !== before.date.getTime()) {
          if (s.first) await repo.setDue(s.id, due);
          else await repo.setSignalDue(s.id, interventionId, due);
        }
      }
      // A scheduled action the old value already called for is never raised again: its request
      // was processed or cancelled by someone, which a correction does not undo.
      for (const [programmee, delai] of now) {
        if (covered.has(programmee) || was.has(programmee)) continue;
        await raiseOrSignal(site, interventionId, after.cell, after.date, programmee, delai * DAY_MS, out);
      }
      return out;
    },

    /** The pending requests of a deleted intervention: deleted with it, unless other entries still call for them. */
    async beforeDelete(editorId: number, interventionId: number, signals: SignalRow[]): Promise<FollowResult> {
      const out = emptyResult();
      for (const s of signals.filter((x) => isPendingStatut(x.statut))) await detach(s, interventionId, 'delete', editorId, out);
      return out;
    },
  };
}

export type RequestLifecycle = ReturnType<typeof createRequestLifecycle>;
