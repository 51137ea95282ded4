import { createHash, randomUUID } from 'node:crypto';
import type { DataSource, EntitySubscriberInterface, InsertEvent, RemoveEvent, SoftRemoveEvent, TransactionCommitEvent, TransactionRollbackEvent, UpdateEvent } from 'typeorm';
import type { Runtime } from '../request/runtime';
import { User } from '../users/user.entity';
import { AccessToken } from './access-token.entity';

/**
 * What a write to access_tokens or users touched: one token, one user, or (when TypeORM cannot say
 * which rows a bulk update or delete hit) everything. Listeners drop or re-check only what is named,
 * so one user's token write does not empty every instance's token cache (and make every busy client
 * pay its token lookup again).
 */
export type FlushKey = { token: number } | { user: number } | { all: true };

export type FlushListener = (keys: FlushKey[]) => void;

/** The wire form (it crosses Redis or the cluster relay): who sent it, so the sender does not hear it twice. */
interface FlushMessage {
  from: string;
  keys: FlushKey[];
}

const PENDING_ON_COMMIT = 'lmsTokenFlushKeys';

/**
 * Tells every instance which tokens and users were written. Installed once per app whatever
 * TOKEN_CACHE_MS says: the HTTP token cache (token-cache.ts) drops the named entries, and live
 * graphql-ws sockets (live-sockets.ts) re-check the named tokens and close the revoked ones.
 *
 * A write is told to everyone at once, and again when its transaction commits: a lookup (or socket
 * re-check) that raced the write and read the old row is corrected by the second message, while the
 * first has usually crossed Redis or the relay before the writer's response reaches its client. Writes that bypass TypeORM (raw SQL) are not seen:
 * the cache's TTL and the sockets' re-verify timer bound those.
 */
export class TokenFlush {
  private readonly listeners = new Set<FlushListener>();
  private readonly topic: string;
  private readonly self = randomUUID();

  constructor(private readonly app: Runtime) {
    // Instances of one deployment share the token key, so they share the channel; others never flush us.
    this.topic = `TOKEN_CACHE_FLUSH_${createHash('sha256').update(app.tokenKey).digest('hex').slice(0, 16)}`;
  }

  on(listener: FlushListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells this process's listeners only. */
  local(keys: FlushKey[]): void {
    if (!keys.length) return;
    for (const l of this.listeners) l(keys);
  }

  /**
   * Tells this process's listeners and every other instance's. Resolves once Redis has taken the
   * message (at most a second): the write that caused it is not finished before then, so a revoke's
   * response (or a write a caller awaits) is not seen before the other instances can hear of it.
   */
  publish(keys: FlushKey[]): Promise<void> {
    if (!keys.length) return Promise.resolve();
    this.local(keys);
    const message: FlushMessage = { from: this.self, keys };
    this.app.pubsub.publish(this.topic, message);
    return this.app.pubsub.accepted();
  }

  /**
   * Resolves once this instance hears other instances' flushes (its Redis subscription is in place):
   * the server waits for it before it takes requests, so a revoke made elsewhere while it started is
   * not missed (a token cached then would be served until TOKEN_CACHE_MS ran out).
   */
  ready: Promise<void> = Promise.resolve();

  /** Starts hearing other instances' flushes. */
  listen(): void {
    // The publishing connection is opened now (Redis connects lazily): a revoke must not wait for it,
    // or the others may answer the revoked token's next request before the flush reaches them.
    this.app.pubsub.ping().catch(() => undefined);
    const stream = this.app.pubsub.subscribe(this.topic);
    void (async () => {
      try {
        for await (const m of stream) {
          const message = m as Partial<FlushMessage>;
          if (message.from === this.self || !Array.isArray(message.keys)) continue;
          this.local(message.keys.filter(isFlushKey));
        }
      } catch {
        // The pubsub closed (shutdown): nothing more to hear.
      }
    })();
    // The loop above asked for its first message, which sends the SUBSCRIBE: wait for Redis's answer.
    this.ready = this.app.pubsub.subscribed();
  }
}

function isFlushKey(k: unknown): k is FlushKey {
  if (typeof k !== 'object' || k === null) return false;
  const o = k as Record<string, unknown>;
  return o.all === true || Number.isSafeInteger(o.token) || Number.isSafeInteger(o.user);
}

/**
 * The key a TypeORM write event names. A write through an entity (save, remove, softRemove) carries
 * its id; a query-builder update carries only the values it set and a delete nothing, so those flush
 * everything. A token's lastUsedAt alone changes nothing a cache or socket relies on (authenticate()
 * writes it, at most every ten minutes per token, and refreshes its own cache entry).
 */
function keyOf(target: unknown, entity: Record<string, unknown> | undefined, id: unknown): FlushKey | null {
  const n = Number(id ?? entity?.id);
  if (target === AccessToken) {
    if (entity && !('id' in entity) && Object.keys(entity).every((k) => k === 'lastUsedAt')) return null;
    return Number.isSafeInteger(n) ? { token: n } : { all: true };
  }
  if (target === User) return Number.isSafeInteger(n) ? { user: n } : { all: true };
  return null;
}

type WriteEvent = {
  metadata?: { target: unknown };
  entity?: unknown;
  databaseEntity?: unknown;
  entityId?: unknown;
  queryRunner?: { isTransactionActive: boolean; data: Record<string, unknown> };
};

/** Turns TypeORM's writes to tokens and users into flushes (see TokenFlush). */
class TokenFlushSubscriber implements EntitySubscriberInterface {
  constructor(private readonly flush: TokenFlush) {}

  // TypeORM awaits what a subscriber returns: the write resolves after the flush has reached Redis.
  private touched(event: WriteEvent): Promise<void> | undefined {
    const entity = (event.entity ?? event.databaseEntity) as Record<string, unknown> | undefined;
    const key = keyOf(event.metadata?.target, entity, event.entityId ?? (event.databaseEntity as { id?: unknown } | undefined)?.id);
    if (!key) return;
    const qr = event.queryRunner;
    if (qr?.isTransactionActive) {
      const pending = (qr.data[PENDING_ON_COMMIT] as FlushKey[] | undefined) ?? [];
      pending.push(key);
      qr.data[PENDING_ON_COMMIT] = pending;
    }
    return this.flush.publish([key]);
  }

  // An insert changes no row anyone has cached or authenticated with: nothing to flush.
  afterInsert(_event: InsertEvent<unknown>): void {}
  afterUpdate(event: UpdateEvent<unknown>): Promise<void> | undefined {
    return this.touched(event as WriteEvent);
  }
  afterRemove(event: RemoveEvent<unknown>): Promise<void> | undefined {
    return this.touched(event as WriteEvent);
  }
  afterSoftRemove(event: SoftRemoveEvent<unknown>): Promise<void> | undefined {
    return this.touched(event as WriteEvent);
  }
  afterTransactionCommit(event: TransactionCommitEvent): Promise<void> | undefined {
    const data = event.queryRunner.data as Record<string, unknown>;
    const keys = data[PENDING_ON_COMMIT] as FlushKey[] | undefined;
    if (!keys) return;
    delete data[PENDING_ON_COMMIT];
    return this.flush.publish(dedupe(keys));
  }
  afterTransactionRollback(event: TransactionRollbackEvent): void {
    delete (event.queryRunner.data as Record<string, unknown>)[PENDING_ON_COMMIT];
  }
}

function dedupe(keys: FlushKey[]): FlushKey[] {
  if (keys.some((k) => 'all' in k)) return [{ all: true }];
  const seen = new Map(keys.map((k) => [JSON.stringify(k), k]));
  return [...seen.values()];
}

const flushes = new WeakMap<DataSource, TokenFlush>();

/** The app's flush channel, created (and its subscriber installed) on first use. */
export function tokenFlushOf(app: Runtime): TokenFlush {
  let flush = flushes.get(app.ds);
  if (flush) return flush;
  flush = new TokenFlush(app);
  app.ds.subscribers.push(new TokenFlushSubscriber(flush));
  flush.listen();
  flushes.set(app.ds, flush);
  return flush;
}
