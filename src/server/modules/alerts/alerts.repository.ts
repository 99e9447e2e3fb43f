// SQL of the site follow-up alerts: the thresholds, what each kind looks at (requests, the
// latest reading of each cell, each site's latest intervention, each site's recent transfers and
// public reports), opening and closing alerts, the list a person sees, preferences, the daily
// digests and the key their unsubscribe links are signed with.
// Every instant the job compares with is the `now` it is given, never the database's now(),
// so a run is reproducible (and testable with a fixed clock).
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import { ACTION, PENDING_STATUTS, SITE_STATUT, TYPE_BAC } from '../../../shared/domain.js';
import { ilikeUnaccent, pageOf } from '../../db/list.js';
import { ALERT_KINDS, ALERT_LABELS, DUE_SOON_DAYS, REQUEST_ALERT_KINDS, type AlertKind, type AlertListQuery, type AlertSettings, type AlertSettingsInput } from '../../../shared/schemas/alerts.js';

/** Advisory lock of the alerts job: one run at a time across every process on the database. */
export const ALERTS_LOCK = 99111110;

// Ids written as literals, as the planner sees them in the indexes' conditions: the partial index
// of migration 016 is keyed on the temperature action. Transfers move what households brought
// out of an input bin: the intake estimate.
const TEMPERATURE = sql.lit(ACTION.temperature);
const TRANSFER = sql.lit(ACTION.transfert);
const ACTIF = sql.lit(SITE_STATUT.actif);
const PENDING = sql.join(PENDING_STATUTS.map((s) => sql.lit(s)));
const READ_CELLS = sql.join([TYPE_BAC.apport, TYPE_BAC.maturation].map((t) => sql.lit(t)));

/** Whose alerts a person sees: everything, requests, and/or those of their own sites. */
export interface AlertScope {
  all: boolean;
  requests: boolean;
  referentId: number | null;
}

export interface NewAlert {
  kind: AlertKind;
  objetId: number;
  siteId: number;
  cellId: number | null;
  demandeId: number | null;
  message: string;
}

export interface PendingRequestRow {
  id: number;
  siteId: number;
  cellId: number;
  numero: number;
  action: string;
  dateEcheance: Date;
}

export interface CellReadingRow {
  cellId: number;
  siteId: number;
  numero: number;
  typeBac: string;
  /** When the site started: a cell of a site installed since fewer days than the threshold is not "without reading". */
  siteStart: Date;
  /** When the site's follow-up in the app began: the later of its installation and its creation in the app. */
  followedSince: Date;
  lastDate: Date | null;
  lastValue: number | null;
}

export interface SiteActivityRow {
  siteId: number;
  siteStart: Date;
  lastDate: Date | null;
}

export interface SiteReportsRow {
  siteId: number;
  nb: number;
}

export interface SiteIntakeRow {
  siteId: number;
  litres: number;
  kgParSemaine: number;
}

export interface AlertListRow {
  id: number;
  kind: AlertKind;
  siteId: number;
  site: string;
  cellId: number | null;
  numero: number | null;
  demandeId: number | null;
  openedAt: Date;
  message: string;
  acquittee: boolean;
}

export interface DigestLine {
  accountId: number;
  email: string;
  nom: string;
  prenom: string | null;
  roles: string[];
  /** The line's oldest alert (lines are taken oldest first). */
  alerteId: number;
  kind: AlertKind;
  siteId: number;
  site: string;
  code: string;
  ville: string;
  /** How many of the person's new alerts the line stands for, and the oldest one's message. */
  nb: number;
  message: string;
  /** How many new alerts the person has in all, and the newest one's id. */
  total: number;
  maxId: number;
}

const DAY_MS = 24 * 3600 * 1000;

/** 'int[]' literal of whole numbers, sent as one text parameter (both drivers cast it). */
function intArray(ids: readonly number[]): string {
  return `{${ids.map((n) => String(Math.trunc(n))).join(',')}}`;
}

/** The French labels in alphabetical order, for sorting the list by kind. */
const KIND_ORDER = sql.raw(
  `CASE a.kind ${[...ALERT_KINDS]
    .sort((x, y) => ALERT_LABELS[x].localeCompare(ALERT_LABELS[y], 'fr'))
    .map((k, i) => `WHEN '${k}' THEN ${i}`)
    .join(' ')} END`,
);

function scopeCondition(scope: AlertScope): RawBuilder<SqlBool> {
  if (scope.all) return sql<SqlBool>`true`;
  const parts: RawBuilder<SqlBool>[] = [];
  if (scope.requests) parts.push(sql<SqlBool>`a.kind IN (${sql.join(REQUEST_ALERT_KINDS)})`);
  if (scope.referentId !== null) parts.push(sql<SqlBool>`a.site_id IN (SELECT site_id FROM site_referent WHERE account_id = ${scope.referentId})`);
  if (parts.length === 0) return sql<SqlBool>`false`;
  return sql<SqlBool>`(${sql.join(parts, sql` OR `)})`;
}

export function createAlertsRepository(db: Db) {
  return {
    transaction<T>(fn: (tx: Db) => Promise<T>) {
      return db.transaction().execute(fn);
    },

    async settings(): Promise<AlertSettings & { createdAt: Date }> {
      const r = await db.selectFrom('alerte_seuils').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
      return {
        temperatureMin: Number(r.temperature_min),
        temperatureMax: Number(r.temperature_max),
        joursSansReleve: r.jours_sans_releve,
        joursSansIntervention: r.jours_sans_intervention,
        pourcentageApport: r.pourcentage_apport,
        limiteHebdoKg: r.limite_hebdo_kg,
        densiteKgParLitre: Number(r.densite_kg_par_litre),
        kgParSeau: Number(r.kg_par_seau),
        createdAt: new Date(r.created_at),
      };
    },

    async saveSettings(s: AlertSettingsInput, accountId: number, now: Date) {
      await db
        .updateTable('alerte_seuils')
        .set({
          temperature_min: s.temperatureMin,
          temperature_max: s.temperatureMax,
          jours_sans_releve: s.joursSansReleve,
          jours_sans_intervention: s.joursSansIntervention,
          pourcentage_apport: s.pourcentageApport,
          limite_hebdo_kg: s.limiteHebdoKg,
          densite_kg_par_litre: s.densiteKgParLitre,
          ...(s.kgParSeau === undefined ? {} : { kg_par_seau: s.kgParSeau }),
          updated_at: now,
          updated_by: accountId,
        })
        .where('id', '=', 1)
        .execute();
    },

    /** Takes the job's lock for the current transaction; false when another process holds it. */
    async tryLock(): Promise<boolean> {
      const r = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(${sql.lit(ALERTS_LOCK)}) AS ok`.execute(db);
      return r.rows[0].ok;
    },

    /** Whether a run started at or after this instant (compared in SQL, at full precision). */
    async ranSince(at: Date): Promise<boolean> {
      const r = await db.selectFrom('alerte_run').select('id').where('started_at', '>=', at).limit(1).executeTakeFirst();
      return r !== undefined;
    },

    async startRun(trigger: 'schedule' | 'manual' | 'cli', now: Date): Promise<number> {
      const r = await db.insertInto('alerte_run').values({ trigger, started_at: now }).returning('id').executeTakeFirstOrThrow();
      return r.id;
    },

    async updateRun(id: number, counts: { ouvertes?: number; fermees?: number; mails?: number; finishedAt?: Date }) {
      await db
        .updateTable('alerte_run')
        .set({
          ...(counts.ouvertes === undefined ? {} : { ouvertes: counts.ouvertes }),
          ...(counts.fermees === undefined ? {} : { fermees: counts.fermees }),
          ...(counts.mails === undefined ? {} : { mails: counts.mails }),
          ...(counts.finishedAt === undefined ? {} : { finished_at: counts.finishedAt }),
        })
        .where('id', '=', id)
        .execute();
    },

    /** Pending requests (3, 4) due before now + DUE_SOON_DAYS. */
    async pendingRequests(now: Date): Promise<PendingRequestRow[]> {
      const until = new Date(now.getTime() + DUE_SOON_DAYS * DAY_MS);
      const r = await sql<PendingRequestRow>`
        SELECT d.id, d.site_id AS "siteId", d.site_composteur_id AS "cellId", sc.numero, ta.libelle AS action, d.date_echeance AS "dateEcheance"
          FROM demande_intervention d
          JOIN site_composteur sc ON sc.id = d.site_composteur_id
          JOIN type_action ta ON ta.id = d.type_action_programmee_id
         WHERE d.statut_id IN (${PENDING}) AND d.date_echeance < ${until}`.execute(db);
      return r.rows.map((x) => ({ ...x, dateEcheance: new Date(x.dateEcheance) }));
    },

    /** Every active input or maturation cell of an active site, with its latest reading up to now. */
    async cellReadings(now: Date): Promise<CellReadingRow[]> {
      const r = await sql<CellReadingRow>`
        SELECT sc.id AS "cellId", sc.site_id AS "siteId", sc.numero, tb.libelle AS "typeBac",
               coalesce(s.date_implantation, s.created_at) AS "siteStart",
               greatest(s.created_at, s.date_implantation) AS "followedSince",
               last.date AS "lastDate", last.valeur::float8 AS "lastValue"
          FROM site_composteur sc
          JOIN site s ON s.id = sc.site_id
          JOIN type_bac tb ON tb.id = sc.type_bac_id
          LEFT JOIN LATERAL (
            SELECT i.date, i.valeur_nombre AS valeur FROM intervention i
             WHERE i.site_composteur_id = sc.id AND i.type_action_id = ${TEMPERATURE} AND i.date <= ${now}
             ORDER BY i.date DESC, i.id DESC LIMIT 1) last ON true
         WHERE sc.actif AND sc.type_bac_id IN (${READ_CELLS}) AND s.statut_id = ${ACTIF}`.execute(db);
      return r.rows.map((x) => ({
        ...x,
        siteStart: new Date(x.siteStart),
        followedSince: new Date(x.followedSince),
        lastDate: x.lastDate === null ? null : new Date(x.lastDate),
      }));
    },

    /** Every active site with the date of its latest intervention up to now. */
    async siteActivity(now: Date): Promise<SiteActivityRow[]> {
      const r = await sql<SiteActivityRow>`
        SELECT s.id AS "siteId", coalesce(s.date_implantation, s.created_at) AS "siteStart",
               (SELECT max(i.date) FROM intervention i WHERE i.site_id = s.id AND i.date <= ${now}) AS "lastDate"
          FROM site s WHERE s.statut_id = ${ACTIF}`.execute(db);
      return r.rows.map((x) => ({ ...x, siteStart: new Date(x.siteStart), lastDate: x.lastDate === null ? null : new Date(x.lastDate) }));
    },

    /**
     * Active sites whose estimated weekly intake (litres transferred out of their input bins
     * over the window, per week, times the density) is above `pct` % of the limit. Compared in
     * SQL numerics, so a figure exactly at the threshold is not above it.
     */
    async sitesOverIntake(now: Date, windowWeeks: number, s: AlertSettings): Promise<SiteIntakeRow[]> {
      const from = new Date(now.getTime() - windowWeeks * 7 * DAY_MS);
      const density = String(s.densiteKgParLitre);
      const r = await sql<SiteIntakeRow>`
        SELECT i.site_id AS "siteId", sum(i.valeur_nombre)::float8 AS litres,
               (sum(i.valeur_nombre) * ${density}::numeric / ${windowWeeks}::int)::float8 AS "kgParSemaine"
          FROM intervention i JOIN site s ON s.id = i.site_id AND s.statut_id = ${ACTIF}
         WHERE i.type_action_id = ${TRANSFER} AND i.date > ${from} AND i.date <= ${now}
         GROUP BY i.site_id
        HAVING sum(i.valeur_nombre) * ${density}::numeric / ${windowWeeks}::int * 100 > ${s.limiteHebdoKg}::int * ${s.pourcentageApport}::int`.execute(db);
      return r.rows;
    },

    /**
     * Active sites with at least `min` reports from their public page sent in the `days` days
     * up to now. Each report row counts once, whatever it holds.
     */
    async sitesWithReports(now: Date, days: number, min: number): Promise<SiteReportsRow[]> {
      const from = new Date(now.getTime() - days * DAY_MS);
      const r = await sql<SiteReportsRow>`
        SELECT r.site_id AS "siteId", count(*)::int AS nb
          FROM signalement_public r JOIN site s ON s.id = r.site_id AND s.statut_id = ${ACTIF}
         WHERE r.created_at > ${from} AND r.created_at <= ${now}
         GROUP BY r.site_id
        HAVING count(*) >= ${min}::int`.execute(db);
      return r.rows;
    },

    /** objet_id of the open alerts of a kind. */
    async openObjects(kind: AlertKind): Promise<Set<number>> {
      const rows = await db.selectFrom('alerte').select('objet_id').where('kind', '=', kind).where('closed_at', 'is', null).execute();
      return new Set(rows.map((r) => r.objet_id));
    },

    /** Closes the open alerts of a kind whose object is no longer a cause; returns how many. */
    async closeExcept(kind: AlertKind, causes: readonly number[], now: Date): Promise<number> {
      const r = await sql`
        UPDATE alerte SET closed_at = ${now}
         WHERE kind = ${kind} AND closed_at IS NULL
           AND NOT (objet_id = ANY(${intArray(causes)}::int[]))`.execute(db);
      return Number(r.numAffectedRows ?? 0);
    },

    async insertAlerts(rows: readonly NewAlert[], now: Date): Promise<void> {
      for (let i = 0; i < rows.length; i += 1000) {
        await db
          .insertInto('alerte')
          .values(
            rows.slice(i, i + 1000).map((a) => ({
              kind: a.kind,
              objet_id: a.objetId,
              site_id: a.siteId,
              site_composteur_id: a.cellId,
              demande_id: a.demandeId,
              message: a.message,
              opened_at: now,
            })),
          )
          .execute();
      }
    },

    /** A page of the open alerts the scope lets the person see. */
    async list(q: AlertListQuery, scope: AlertScope): Promise<{ count: number; rows: AlertListRow[] }> {
      const where: RawBuilder<SqlBool>[] = [sql<SqlBool>`a.closed_at IS NULL`, scopeCondition(scope)];
      if (q.filter.kind !== undefined) where.push(sql<SqlBool>`a.kind = ${q.filter.kind}`);
      if (q.filter.site !== undefined) where.push(sql<SqlBool>`a.site_id = ${q.filter.site}`);
      if (q.filter.acquittee !== undefined) where.push(q.filter.acquittee === 1 ? sql<SqlBool>`a.acknowledged_at IS NOT NULL` : sql<SqlBool>`a.acknowledged_at IS NULL`);
      const term = q.search.trim();
      if (term) where.push(sql<SqlBool>`(${ilikeUnaccent(sql`coalesce(s.nom, '') || ' ' || s.code`, term)} OR ${ilikeUnaccent(sql`a.message`, term)})`);
      const cond = sql.join(where, sql` AND `);
      const dir = sql.raw(q.sort.direction === 'desc' ? 'DESC' : 'ASC');
      const order =
        q.sort.name === 'kind'
          ? sql`${KIND_ORDER} ${dir}, a.opened_at DESC, a.id DESC`
          : q.sort.name === 'site'
            ? sql`lower(coalesce(s.nom, s.code)) ${dir}, a.opened_at DESC, a.id DESC`
            : sql`a.opened_at ${dir}, a.id ${dir}`;
      const { limit, offset } = pageOf(q);
      const count = await sql<{ n: number }>`SELECT count(*)::int AS n FROM alerte a JOIN site s ON s.id = a.site_id WHERE ${cond}`.execute(db);
      const rows = await sql<AlertListRow>`
        SELECT a.id, a.kind, a.site_id AS "siteId", coalesce(s.nom, s.code) AS site, a.site_composteur_id AS "cellId", sc.numero,
               a.demande_id AS "demandeId", a.opened_at AS "openedAt", a.message, a.acknowledged_at IS NOT NULL AS acquittee
          FROM alerte a JOIN site s ON s.id = a.site_id LEFT JOIN site_composteur sc ON sc.id = a.site_composteur_id
         WHERE ${cond}
         ORDER BY ${order}
         LIMIT ${limit} OFFSET ${offset}`.execute(db);
      return { count: count.rows[0].n, rows: rows.rows };
    },

    async findAlert(id: number) {
      return db.selectFrom('alerte').select(['id', 'closed_at', 'acknowledged_at']).where('id', '=', id).executeTakeFirst();
    },

    async acknowledge(id: number, accountId: number, now: Date) {
      await db.updateTable('alerte').set({ acknowledged_at: now, acknowledged_by: accountId }).where('id', '=', id).where('acknowledged_at', 'is', null).execute();
    },

    async optedOut(accountId: number): Promise<AlertKind[]> {
      const rows = await db.selectFrom('alerte_preference').select('kind').where('account_id', '=', accountId).orderBy('kind').execute();
      return rows.map((r) => r.kind);
    },

    async setOptedOut(accountId: number, kinds: readonly AlertKind[]) {
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('alerte_preference').where('account_id', '=', accountId).execute();
        if (kinds.length > 0) await tx.insertInto('alerte_preference').values(kinds.map((kind) => ({ account_id: accountId, kind }))).execute();
      });
    },

    /**
     * For each active person who gets no digest yet on `jour`: the open alerts they have not been
     * told about (newer than their last digest's last alert), within what their roles give them
     * (administrators: all; providers: requests; referents: their sites), less the kinds they
     * turned off, as one line per site and kind with its count. At most `perPerson` lines each,
     * the oldest first; `total` and `maxId` count all.
     * Administrators and providers are read one by one (each a short walk of the open alerts);
     * referents as one set, from their sites' alerts, never by pairing every person with every
     * alert.
     */
    async digestLines(jour: string, perPerson: number): Promise<DigestLine[]> {
      const hasRole = (code: string) => sql`EXISTS (SELECT 1 FROM account_role ar JOIN role r ON r.id = ar.role_id WHERE ar.account_id = a.id AND r.code = ${code})`;
      const people = (who: 'admin' | 'provider' | 'referent') => sql`
        SELECT a.id, a.email, a.nom, a.prenom,
               ARRAY(SELECT r.code FROM account_role ar JOIN role r ON r.id = ar.role_id WHERE ar.account_id = a.id ORDER BY r.id) AS roles,
               ARRAY(SELECT ap.kind FROM alerte_preference ap WHERE ap.account_id = a.id ORDER BY ap.kind) AS off,
               coalesce((SELECT max(d.last_alerte_id) FROM alerte_digest d WHERE d.account_id = a.id), 0) AS seen
          FROM account a
         WHERE a.actif
           AND ${
             who === 'admin'
               ? hasRole('ROLE_ADMIN')
               : who === 'provider'
                 ? sql`${hasRole('ROLE_PRESTATAIRE')} AND NOT ${hasRole('ROLE_USER')} AND NOT ${hasRole('ROLE_ADMIN')}`
                 : sql`${hasRole('ROLE_USER')} AND NOT ${hasRole('ROLE_ADMIN')}`
           }
           AND NOT EXISTS (SELECT 1 FROM alerte_digest d WHERE d.account_id = a.id AND d.jour = ${jour})`;

      // Administrators (all alerts) and providers (request alerts): the count and first lines of
      // each group of people told up to the same alert and with the same kinds turned off (most
      // share both), walking the open alerts in id order once per group.
      const walk = async (who: 'admin' | 'provider') => {
        const kinds = who === 'admin' ? sql`` : sql`AND al.kind IN (${sql.join(REQUEST_ALERT_KINDS)})`;
        const r = await sql<DigestLine>`
          WITH people AS MATERIALIZED (${people(who)}),
          groups AS (SELECT DISTINCT seen, off FROM people),
          lines AS (
            SELECT g.seen, g.off, c.total, c."maxId", l.* FROM groups g
              CROSS JOIN LATERAL (
                SELECT count(*)::int AS total, max(al.id) AS "maxId" FROM alerte al
                 WHERE al.closed_at IS NULL AND al.id > g.seen AND al.kind <> ALL(g.off) ${kinds}) c
              CROSS JOIN LATERAL (
                SELECT min(al.id) AS id, al.kind, al.site_id, count(*)::int AS nb, (array_agg(al.message ORDER BY al.id))[1] AS message
                  FROM alerte al
                 WHERE al.closed_at IS NULL AND al.id > g.seen AND al.kind <> ALL(g.off) ${kinds}
                 GROUP BY al.site_id, al.kind
                 ORDER BY min(al.id) LIMIT ${perPerson}) l
          )
          SELECT p.id AS "accountId", p.email, p.nom, p.prenom, p.roles, l.total, l."maxId",
                 l.id AS "alerteId", l.kind, l.site_id AS "siteId", coalesce(s.nom, s.code) AS site, s.code, s.ville, l.nb, l.message
            FROM people p JOIN lines l ON l.seen = p.seen AND l.off = p.off JOIN site s ON s.id = l.site_id
           ORDER BY p.id, l.id`.execute(db);
        return r.rows;
      };

      // Referents (their sites' alerts, and the request alerts too for one who is also a
      // provider): one set, from their sites through the alerts' site index.
      const referents = await sql<DigestLine>`
        WITH people AS MATERIALIZED (${people('referent')}),
        pairs AS (
          SELECT p.id AS account_id, al.id AS alerte_id
            FROM people p JOIN site_referent sr ON sr.account_id = p.id
            JOIN alerte al ON al.site_id = sr.site_id AND al.closed_at IS NULL AND al.id > p.seen
          UNION
          SELECT p.id, al.id
            FROM people p JOIN alerte al ON al.closed_at IS NULL AND al.kind IN (${sql.join(REQUEST_ALERT_KINDS)}) AND al.id > p.seen
           WHERE 'ROLE_PRESTATAIRE' = ANY(p.roles)
        ), grouped AS (
          SELECT t.account_id, al.site_id, al.kind, count(*)::int AS nb, min(al.id) AS first_id, max(al.id) AS last_id,
                 (array_agg(al.message ORDER BY al.id))[1] AS message
            FROM pairs t JOIN people p ON p.id = t.account_id JOIN alerte al ON al.id = t.alerte_id
           WHERE al.kind <> ALL(p.off)
           GROUP BY t.account_id, al.site_id, al.kind
        ), ranked AS (
          SELECT g.*, sum(g.nb) OVER w AS total, max(g.last_id) OVER w AS "maxId",
                 row_number() OVER (PARTITION BY g.account_id ORDER BY g.first_id) AS rn
            FROM grouped g
          WINDOW w AS (PARTITION BY g.account_id)
        )
        SELECT p.id AS "accountId", p.email, p.nom, p.prenom, p.roles, r.first_id AS "alerteId", r.kind, r.site_id AS "siteId",
               coalesce(s.nom, s.code) AS site, s.code, s.ville, r.nb, r.message, r.total::int AS total, r."maxId"
          FROM ranked r JOIN people p ON p.id = r.account_id JOIN site s ON s.id = r.site_id
         WHERE r.rn <= ${perPerson}
         ORDER BY "accountId", "alerteId"`.execute(db);
      return [...(await walk('admin')), ...(await walk('provider')), ...referents.rows];
    },

    /** Fresh planner statistics after a run that changed many alerts (the digests query them next). */
    async analyze() {
      await sql`ANALYZE alerte`.execute(db);
    },

    /**
     * Claims the day's digest of each person in one statement; returns those claimed. A person
     * whose digest was already claimed (another run, another process) is left out.
     */
    async claimDigests(jour: string, claims: readonly { accountId: number; lastAlerteId: number; nb: number }[], now: Date): Promise<Set<number>> {
      if (claims.length === 0) return new Set();
      const r = await sql<{ account_id: number }>`
        INSERT INTO alerte_digest (account_id, jour, last_alerte_id, nb, sent_at)
        SELECT u.a, ${jour}, u.l, u.n, ${now}
          FROM unnest(${intArray(claims.map((c) => c.accountId))}::int[], ${intArray(claims.map((c) => c.lastAlerteId))}::int[], ${intArray(claims.map((c) => c.nb))}::int[]) AS u(a, l, n)
        ON CONFLICT (account_id, jour) DO NOTHING
        RETURNING account_id`.execute(db);
      return new Set(r.rows.map((x) => x.account_id));
    },

    /** The key the unsubscribe links are signed with (migration 027). */
    async unsubscribeKey(): Promise<string> {
      const r = await sql<{ secret: string }>`SELECT secret FROM alerte_cle WHERE id = 1`.execute(db);
      return r.rows[0].secret;
    },

    /** Whether an account exists (an unsubscribe link may outlive its account). */
    async accountExists(id: number): Promise<boolean> {
      return (await db.selectFrom('account').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
    },

    /** Gives a claim back when its e-mail could not leave, so that the next run tries again. */
    async releaseDigest(accountId: number, jour: string) {
      await db.deleteFrom('alerte_digest').where('account_id', '=', accountId).where('jour', '=', jour).execute();
    },
  };
}

export type AlertsRepository = ReturnType<typeof createAlertsRepository>;
