// Sessions kept in memory, so that an authenticated request usually costs no round trip to
// the database. Never stale beyond what the database can tell this process:
//  - every change to sessions, accounts or roles empties the cache (db/auth-changes.ts: this
//    process's own writes as they commit, other processes' through PostgreSQL notifications);
//  - a read that started before such a change is not stored (generation check), so a lookup
//    racing with a logout cannot put the old session back;
//  - while the feed is not live (the LISTEN connection is down), nothing is read from or
//    stored in the cache: every request reads the database, as without a cache;
//  - an entry past its expiry is never used.
import type { AuthChangeFeed } from '../db/auth-changes.js';

/** The account behind a request's session, as routes read it (request.user). */
export interface CurrentUser {
  id: number;
  kind: 'user' | 'agent';
  username: string;
  nom: string;
  prenom: string | null;
  roles: string[];
}

export interface CachedSession {
  /** The session's key in the database (the cookie value's hash). */
  idHash: string;
  user: CurrentUser;
  lastSeenAt: number;
  expiresAt: number;
}

/** Enough for every session active at once in a large programme; the oldest entries go first. */
export const SESSION_CACHE_MAX = 20_000;

export class SessionCache {
  private readonly entries = new Map<string, CachedSession>();
  private gen = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly feed: AuthChangeFeed,
    private readonly max = SESSION_CACHE_MAX,
  ) {
    this.unsubscribe = feed.subscribe(() => this.invalidate());
  }

  /** Increases on every change: a read started under an older generation is not stored. */
  get generation() {
    return this.gen;
  }

  get size() {
    return this.entries.size;
  }

  get(token: string): CachedSession | undefined {
    if (!this.feed.live) return undefined;
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return entry;
  }

  /** `token`: the cookie's value (kept in memory only, like every request's cookie). */
  set(token: string, entry: CachedSession, readAt: number) {
    if (!this.feed.live || readAt !== this.gen) return;
    if (this.entries.size >= this.max && !this.entries.has(token)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(token, entry);
  }

  invalidate() {
    this.gen++;
    this.entries.clear();
  }

  close() {
    this.unsubscribe();
    this.invalidate();
  }
}
