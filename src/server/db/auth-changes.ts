// What lets a process keep sessions in memory without ever serving a stale one: a signal
// raised whenever the sessions, accounts, roles or role grants change.
//
// Two sources feed it:
//  - this process's own writes, seen on the database connection itself: a statement that
//    changes one of those tables raises the signal as soon as it is committed (at COMMIT for
//    a transaction, when it returns otherwise), before the code that issued it goes on, so
//    the answer to a logout or a role change is never sent while the old state is cached;
//  - the other processes' writes (PostgreSQL only): triggers (migration 011) NOTIFY the
//    channel below on commit, and a dedicated LISTEN connection raises the signal here. While
//    that connection is down, the feed is not 'live' and the cache is not used at all.
// Embedded PGlite is opened by one process only, so its own writes are all there is.

export const AUTH_CHANNEL = 'compost_auth';

export type AuthFeedEvent = 'change' | 'live' | 'down';

export interface AuthChangeFeed {
  /** Whether a change made anywhere is known to reach this process. */
  readonly live: boolean;
  /** Called on every change and on every change of liveness; returns the unsubscribe function. */
  subscribe(listener: (event: AuthFeedEvent) => void): () => void;
}

export class AuthChanges implements AuthChangeFeed {
  private readonly listeners = new Set<(event: AuthFeedEvent) => void>();
  private isLive: boolean;

  /**
   * @param live whether changes from elsewhere are known to arrive (PGlite: always).
   * @param onFirstSubscriber starts what makes the feed live (the LISTEN connection).
   */
  constructor(live: boolean, private readonly onFirstSubscriber?: () => void) {
    this.isLive = live;
  }

  get live() {
    return this.isLive;
  }

  subscribe(listener: (event: AuthFeedEvent) => void) {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.onFirstSubscriber?.();
    return () => {
      this.listeners.delete(listener);
    };
  }

  get subscribed() {
    return this.listeners.size > 0;
  }

  changed() {
    this.emit('change');
  }

  setLive(live: boolean) {
    if (live === this.isLive) return;
    this.isLive = live;
    this.emit(live ? 'live' : 'down');
  }

  private emit(event: AuthFeedEvent) {
    for (const listener of this.listeners) listener(event);
  }
}

// `update "account"`, `delete from "session"`, `insert into "account_role"`, `truncate role`...
// as Kysely and hand-written SQL spell them, with or without quotes and schema.
const WRITE = /\b(update|delete\s+from|insert\s+into|truncate(?:\s+table)?)\s+(?:only\s+)?(?:"?public"?\.)?"?(account_role|account|role|session)"?(?=[\s(;,]|$)/gi;

/**
 * Marks a statement that writes to those tables without changing any session a cache could
 * hold: the removal of sessions that are expired, or that a read has just found unusable.
 */
export const AUTH_NEUTRAL = '/* auth-neutral */';

/**
 * Whether a statement may change who is logged in or what they may do. Creating a session
 * (login) or pushing its expiry (the hourly touch) does not: a cached session is never one
 * that the statement could make wrong. Creating an account neither (it has no session yet).
 */
export function changesAuth(text: string): boolean {
  // Most statements are reads: skip the pattern for them.
  if (!/\b(update|delete|insert|truncate)\b/i.test(text)) return false;
  if (text.includes(AUTH_NEUTRAL)) return false;
  for (const m of text.matchAll(WRITE)) {
    const verb = m[1]!.toLowerCase();
    const table = m[2]!.toLowerCase();
    if (table === 'session' && (verb.startsWith('insert') || verb === 'update')) continue;
    if (table === 'account' && verb.startsWith('insert')) continue;
    return true;
  }
  return false;
}

/**
 * Follows the statements sent on one connection and says when a change to the auth tables
 * has become visible to others: at once outside a transaction, at COMMIT inside one, never
 * for a transaction rolled back.
 */
export class ConnectionWatcher {
  private inTransaction = false;
  private pending = false;

  constructor(private readonly feed: AuthChanges) {}

  /** Call after a statement succeeded. */
  afterStatement(text: string) {
    const head = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase();
    if (head === 'begin' || (head === 'start' && /^\s*start\s+transaction/i.test(text))) {
      this.inTransaction = true;
      return;
    }
    if (head === 'commit' || head === 'end') {
      this.inTransaction = false;
      if (this.pending) {
        this.pending = false;
        this.feed.changed();
      }
      return;
    }
    if (head === 'rollback' && !/^\s*rollback\s+to\b/i.test(text)) {
      this.inTransaction = false;
      this.pending = false;
      return;
    }
    if (!changesAuth(text)) return;
    if (this.inTransaction) this.pending = true;
    else this.feed.changed();
  }

  /** The connection goes back to the pool or is lost: a pending change counts (it may have committed). */
  released() {
    if (this.pending) this.feed.changed();
    this.pending = false;
    this.inTransaction = false;
  }
}
