import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import type { Runtime } from '../request/runtime';
import { User } from '../users/user.entity';
import { AccessToken } from './access-token.entity';
import { tokenFlushOf, type FlushKey } from './token-flush';

/**
 * A short-lived, per-process memory of token → (token row, owner row) for HTTP requests, so a busy
 * client's every request does not pay the token lookup (it showed in read-path profiles). Only usable
 * tokens are kept (an unknown, revoked or expired one is looked up every time), expiry is re-checked on
 * every hit, and every hit hands out fresh entity copies, so no request can change what another one
 * sees.
 *
 * Invalidation is by key and immediate: a write through TypeORM to access_tokens or users (a revoke,
 * a regenerate, a user's change or deletion) drops the entries of that token or that user, in this
 * process at once and again when its transaction commits (so a lookup that raced the write cannot
 * keep the old row), and on every other instance through token-flush.ts (Redis with REDIS_URL, the
 * primary's relay under WEB_CONCURRENCY). Other users' entries stay. A bulk write TypeORM cannot
 * attribute empties the cache; one that bypasses TypeORM (raw SQL by an operator) is seen after at
 * most TOKEN_CACHE_MS. graphql-ws re-reads its token per operation (reauthenticate) and does not use this.
 */
export interface CachedAuth {
  token: AccessToken;
  user: User;
}

interface Entry {
  token: Record<string, unknown>;
  user: Record<string, unknown>;
}

/** Bounded so a flood of distinct valid tokens cannot grow the heap without limit. */
const MAX_ENTRIES = 10_000;

export class TokenCache {
  /** Full, it drops the least recently used entry; an entry older than the TTL is never handed out. */
  private readonly entries: LRUCache<string, Entry>;
  /** Bumped by every flush: a lookup that started before it must not store what it read. */
  private generation = 0;

  constructor(ttlMs: number) {
    this.entries = new LRUCache<string, Entry>({ max: MAX_ENTRIES, ttl: ttlMs });
  }

  /** The generation a lookup starts in; pass it to set(). */
  get stamp(): number {
    return this.generation;
  }

  get(crypted: string): CachedAuth | null {
    const e = this.entries.get(crypted);
    if (!e) return null;
    return { token: Object.assign(new AccessToken(), e.token), user: Object.assign(new User(), e.user) };
  }

  set(crypted: string, auth: CachedAuth, stamp: number): void {
    if (stamp !== this.generation) return;
    this.entries.set(crypted, { token: { ...auth.token }, user: { ...auth.user } });
  }

  /** A usable token was just written back with a new last_used_at: its entry says so too (no flush needed). */
  touch(crypted: string, lastUsedAt: Date): void {
    // peek: neither a use (the LRU order) nor a reason to extend its life.
    const e = this.entries.peek(crypted);
    if (e) e.token.lastUsedAt = lastUsedAt;
  }

  /**
   * Drops the entries of the named tokens and users (every entry for `all`). Any flush also stops
   * lookups already under way from storing what they read: they may have read the old row.
   */
  drop(keys: FlushKey[]): void {
    this.generation++;
    if (keys.some((k) => 'all' in k)) return this.entries.clear();
    const tokens = new Set(keys.flatMap((k) => ('token' in k ? [k.token] : [])));
    const users = new Set(keys.flatMap((k) => ('user' in k ? [k.user] : [])));
    const dropped = [...this.entries.entries()].filter(([, e]) => tokens.has(e.token.id as number) || users.has(e.user.id as number));
    for (const [crypted] of dropped) this.entries.delete(crypted);
  }

  get size(): number {
    return this.entries.size;
  }
}

const caches = new WeakMap<DataSource, TokenCache | null>();

/** The app's token cache, created on first use; null when TOKEN_CACHE_MS is 0. */
export function tokenCacheOf(app: Runtime): TokenCache | null {
  let cache = caches.get(app.ds);
  if (cache !== undefined) return cache;
  const ttl = app.config.TOKEN_CACHE_MS;
  cache = ttl > 0 ? new TokenCache(ttl) : null;
  if (cache) {
    const c = cache;
    tokenFlushOf(app).on((keys) => c.drop(keys));
  }
  caches.set(app.ds, cache);
  return cache;
}
