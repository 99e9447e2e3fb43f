// The daily run of the alerts job inside the server, at ALERTS_AT (Paris time). At start, a
// scheduled time passed without a run (the server was down) is caught up at once; the job
// itself makes sure that one run happens per scheduled time whatever the number of processes.
import type { FastifyBaseLogger } from 'fastify';
import { createAlertsJob, type AlertsJobDeps, type RunOutcome } from './alerts.service.js';
import { parisWall } from '../../../shared/paris-time.js';

/** The instant it is `hh:mm` in Paris on the Paris day of `wall` (a wall-clock count); at a DST gap, the hour after. */
function instantOf(wallDay: number, hh: number, mm: number): Date {
  const day = new Date(wallDay);
  const wall = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), hh, mm);
  // Paris is UTC+1 or UTC+2: try both offsets, keep the one that reads back as the wanted time.
  for (const offsetHours of [1, 2]) {
    const t = wall - offsetHours * 3600_000;
    if (parisWall(t) === wall) return new Date(t);
  }
  return new Date(wall - 3600_000);
}

function parseAt(at: string): [number, number] {
  const [hh, mm] = at.split(':').map(Number);
  return [hh, mm];
}

/** The latest scheduled instant at or before `now`. */
export function lastSlot(at: string, now: Date): Date {
  const [hh, mm] = parseAt(at);
  const wall = parisWall(now.getTime());
  const today = instantOf(wall, hh, mm);
  if (today.getTime() <= now.getTime()) return today;
  return instantOf(wall - 24 * 3600_000, hh, mm);
}

/** The first scheduled instant after `now`. */
export function nextSlot(at: string, now: Date): Date {
  const [hh, mm] = parseAt(at);
  const wall = parisWall(now.getTime());
  const today = instantOf(wall, hh, mm);
  if (today.getTime() > now.getTime()) return today;
  return instantOf(wall + 24 * 3600_000, hh, mm);
}

export interface AlertScheduler {
  /** The run in progress, if any (tests wait for it). */
  readonly current: Promise<RunOutcome | null>;
  stop(): Promise<void>;
}

/**
 * Runs the job now if the last scheduled time was missed, then at every scheduled time. A
 * failed run (database down) is logged; the next scheduled time tries again.
 */
export function startAlertScheduler(deps: AlertsJobDeps & { at: string; log: Pick<FastifyBaseLogger, 'info' | 'error'>; now?: () => Date }): AlertScheduler {
  const job = createAlertsJob(deps);
  const clock = deps.now ?? (() => new Date());
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let current: Promise<RunOutcome | null> = Promise.resolve(null);

  const runDue = () => {
    const now = clock();
    current = job.run({ trigger: 'schedule', now, slot: lastSlot(deps.at, now) }).catch((e: unknown) => {
      deps.log.error({ err: e }, 'Calcul des alertes en échec');
      return null;
    });
    return current;
  };

  const plan = () => {
    if (stopped) return;
    const delay = Math.max(0, nextSlot(deps.at, clock()).getTime() - clock().getTime());
    timer = setTimeout(() => {
      timer = null;
      void runDue().then(plan);
    }, delay);
    timer.unref();
  };

  void runDue().then(plan);
  return {
    get current() {
      return current;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await current;
    },
  };
}
