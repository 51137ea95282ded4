import { createHash } from 'node:crypto';
import type { DataSource, EntitySubscriberInterface, InsertEvent, RemoveEvent, SoftRemoveEvent, TransactionCommitEvent, UpdateEvent } from 'typeorm';
import type { AppServices } from '../app-services';
import { User } from '../users/user.entity';
import { AccessToken } from './access-token.entity';

/**
 * A short-lived, per-process memory of token → (token row, owner row) for HTTP requests, so a busy
 * client's every request does not pay the token lookup (issue 11). Only usable tokens are kept (an
 * unknown, revoked or expired one is looked up every time), expiry is re-checked on every hit, and
 * every hit hands out fresh entity copies, so no request can change what another one sees.
 *
 * Invalidation is wholesale and immediate: any write through TypeORM to access_tokens or users (a
 * revoke, a regenerate, a user's change or deletion) empties the cache of this process at once — and
 * again when its transaction commits, so a lookup that raced the write cannot keep the old row —
 * and tells the other instances through the app's pubsub (Redis with REDIS_URL, the primary's relay
 * under WEB_CONCURRENCY). A write that bypasses TypeORM (raw SQL by an operator) is seen after at most
 * TOKEN_CACHE_MS. graphql-ws re-reads its token per operation (reauthenticate) and does not use this.
 */
export interface CachedAuth {
  token: AccessToken;
  user: User;
}

interface Entry {
  at: number;
  token: Record<string, unknown>;
  user: Record<string, unknown>;
}

/** Bounded so a flood of distinct valid tokens cannot grow the heap without limit. */
const MAX_ENTRIES = 10_000;

export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every flush: a lookup that started before it must not store what it read. */
  private generation = 0;
  private readonly topic: string;

  constructor(
    private readonly ttlMs: number,
    private readonly app: AppServices,
  ) {
    // Instances of one deployment share the token key, so they share the channel; others never flush us.
    this.topic = `TOKEN_CACHE_FLUSH_${createHash('sha256').update(app.tokenKey).digest('hex').slice(0, 16)}`;
  }

  /** Starts listening for other instances' flushes. */
  listen(): void {
    const stream = this.app.pubsub.subscribe(this.topic);
    void (async () => {
      try {
        for await (const _ of stream) this.clear();
      } catch {
        // The pubsub closed (shutdown): nothing more to hear.
      }
    })();
  }

  /** The generation a lookup starts in; pass it to set(). */
  get stamp(): number {
    return this.generation;
  }

  get(crypted: string, now = Date.now()): CachedAuth | null {
    const e = this.entries.get(crypted);
    if (!e) return null;
    if (now - e.at >= this.ttlMs) {
      this.entries.delete(crypted);
      return null;
    }
    return { token: Object.assign(new AccessToken(), e.token), user: Object.assign(new User(), e.user) };
  }

  set(crypted: string, auth: CachedAuth, stamp: number, now = Date.now()): void {
    if (stamp !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(crypted, { at: now, token: { ...auth.token }, user: { ...auth.user } });
  }

  /** Empties this process's cache. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Empties this cache and every other instance's. */
  invalidate(): void {
    this.clear();
    this.app.pubsub.publish(this.topic, { at: Date.now() });
  }
}

const caches = new WeakMap<DataSource, TokenCache | null>();
const FLUSH_ON_COMMIT = 'lmsTokenCacheFlush';

/** Empties the caches on writes to tokens and users (see TokenCache). */
class TokenCacheSubscriber implements EntitySubscriberInterface {
  constructor(private readonly cache: TokenCache) {}

  private touched(event: { metadata?: { target: unknown }; queryRunner?: { isTransactionActive: boolean; data: Record<string, unknown> } }): void {
    const target = event.metadata?.target;
    if (target !== AccessToken && target !== User) return;
    this.cache.invalidate();
    if (event.queryRunner?.isTransactionActive) event.queryRunner.data[FLUSH_ON_COMMIT] = true;
  }

  afterInsert(event: InsertEvent<unknown>): void {
    this.touched(event);
  }
  afterUpdate(event: UpdateEvent<unknown>): void {
    this.touched(event);
  }
  afterRemove(event: RemoveEvent<unknown>): void {
    this.touched(event);
  }
  afterSoftRemove(event: SoftRemoveEvent<unknown>): void {
    this.touched(event);
  }
  afterTransactionCommit(event: TransactionCommitEvent): void {
    const data = event.queryRunner.data as Record<string, unknown>;
    if (!data[FLUSH_ON_COMMIT]) return;
    delete data[FLUSH_ON_COMMIT];
    this.cache.invalidate();
  }
}

/** The app's token cache, created on first use; null when TOKEN_CACHE_MS is 0. */
export function tokenCacheOf(app: AppServices): TokenCache | null {
  let cache = caches.get(app.ds);
  if (cache !== undefined) return cache;
  const ttl = app.config.TOKEN_CACHE_MS;
  cache = ttl > 0 ? new TokenCache(ttl, app) : null;
  if (cache) {
    app.ds.subscribers.push(new TokenCacheSubscriber(cache));
    cache.listen();
  }
  caches.set(app.ds, cache);
  return cache;
}
