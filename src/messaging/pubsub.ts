import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub } from '@graphql-yoga/subscription';
import { Redis } from 'ioredis';
import type { PubSub } from 'type-graphql';
import { withSpan } from '../tracing/tracing';
import { primaryRelay, type WorkerRelay } from './worker-relay';

/**
 * Fan-out for GraphQL subscriptions. In-process by default; with REDIS_URL every instance publishes
 * to and listens on Redis channels, so an event committed on one instance reaches subscribers
 * connected to any other.
 *
 * Topics are routed by an id: `publish(topic, id, payload)` reaches `subscribe(topic, id)`.
 * Resolvers subscribe through the context (`context.app.pubsub`) with the `subscribe` option of
 * `@Subscription`, e.g.
 *
 *   @Subscription(() => T, { subscribe: ({ context }) => context.app.pubsub.subscribe('topic', id) })
 *
 * so each server uses the pubsub of its own configuration (tests run several in one process).
 */
export interface AppPubSub extends PubSub {
  /** `publish(topic, id, payload)` for routed topics, `publish(topic, payload)` for broadcast ones. */
  publish(topic: string, ...args: unknown[]): void;
  subscribe(topic: string, id?: unknown): AsyncIterable<unknown>;
  /** Which backend carries the messages (`cluster`: a WEB_CONCURRENCY primary relays them between its workers). */
  readonly kind: 'memory' | 'redis' | 'cluster';
  /** Round trip to Redis (for /health/ready); resolves at once in memory. */
  ping(): Promise<void>;
  /**
   * Resolves once every publish made so far has been accepted by Redis (at once in memory and through
   * the cluster relay, which writes synchronously); never rejects, and gives up after `limitMs`.
   */
  accepted(limitMs?: number): Promise<void>;
  /**
   * Resolves once every subscription made so far (a stream whose first message has been asked for,
   * this turn included) is in place at Redis (its SUBSCRIBE answered): a message published after that
   * reaches it. At once in memory and through the cluster relay; never
   * rejects, and gives up after `limitMs`.
   */
  subscribed(limitMs?: number): Promise<void>;
  close(): Promise<void>;
}

type Inner = { publish(topic: string, ...args: unknown[]): void; subscribe(topic: string, id?: unknown): AsyncIterable<unknown> };

function wrap(
  inner: Inner,
  kind: AppPubSub['kind'],
  close: () => Promise<void>,
  ping: () => Promise<void> = async () => undefined,
  accepted: AppPubSub['accepted'] = async () => undefined,
  subscribed: AppPubSub['subscribed'] = async () => undefined,
): AppPubSub {
  return {
    kind,
    ping,
    accepted,
    subscribed,
    // A producer span per publish inside a traced operation (the topic only: routing ids name tools and users).
    publish: (topic, ...args) =>
      withSpan(`publish ${topic}`, { kind: 'producer', requireParent: true, attributes: { 'messaging.system': kind, 'messaging.destination.name': topic, 'messaging.operation.type': 'send' } }, () =>
        inner.publish(topic, ...args),
      ),
    subscribe: (topic, id) => (id === undefined ? inner.subscribe(topic) : inner.subscribe(topic, id)),
    close,
  };
}

/**
 * A client whose commands never reject unhandled: while Redis is unreachable a publish is lost (live
 * subscriptions are best effort) instead of crashing the process; ioredis reconnects and resubscribes.
 */
function tolerant(client: Redis, pending?: Set<Promise<unknown>>): Redis {
  client.on('error', () => undefined);
  // Connect once, before the first command: two SUBSCRIBEs racing a lazy connect can leave one
  // behind the connection's switch to subscriber mode, and that subscription never reaches Redis.
  let connecting: Promise<unknown> | undefined;
  const ready = () => (connecting ??= client.status === 'wait' ? client.connect().catch(() => undefined) : Promise.resolve());
  return {
    // The round trip to Redis, under the publish's span when tracing is on.
    publish: (channel: string, message: string) => {
      const sent = withSpan('redis PUBLISH', { kind: 'client', requireParent: true, attributes: { 'db.system.name': 'redis', 'db.operation.name': 'PUBLISH' } }, () =>
        ready().then(() => client.publish(channel, message)),
      ).catch(() => 0);
      if (pending) {
        pending.add(sent);
        void sent.finally(() => pending.delete(sent));
      }
      return sent;
    },
    subscribe: (channel: string) => {
      const done = ready()
        .then(() => client.subscribe(channel))
        .catch(() => 0);
      if (pending) {
        pending.add(done);
        void done.finally(() => pending.delete(done));
      }
      return done;
    },
    unsubscribe: (channel: string) => client.unsubscribe(channel).catch(() => 0),
    on: (event: string, fn: (...args: unknown[]) => void) => client.on(event, fn),
  } as unknown as Redis;
}

/**
 * A cluster worker without Redis (WEB_CONCURRENCY > 1, no REDIS_URL): events go through the primary,
 * which relays each to every worker, so the Redis event target serves with the relay as its "clients".
 */
function relayedPubSub(relay: WorkerRelay): AppPubSub {
  const publishClient = { publish: (channel: string, message: string) => relay.publish(channel, message) };
  const subscribeClient = {
    subscribe: () => undefined,
    unsubscribe: () => undefined,
    on: (event: string, fn: (channel: string, message: string) => void) => event === 'message' && relay.onPubsubMessage(fn),
  };
  const inner = createPubSub({ eventTarget: createRedisEventTarget({ publishClient, subscribeClient } as never) }) as unknown as Inner;
  return wrap(inner, 'cluster', async () => undefined);
}

export function createAppPubSub(redisUrl?: string): AppPubSub {
  const relay = redisUrl ? undefined : primaryRelay();
  if (relay) return relayedPubSub(relay);
  if (!redisUrl) return wrap(createPubSub() as unknown as Inner, 'memory', async () => undefined);
  // One connection publishes, one listens (a subscribed Redis connection can do nothing else).
  // Lazy: a CLI session or an instance nobody subscribes to opens no connection.
  const options = { lazyConnect: true, maxRetriesPerRequest: 3 };
  const publishClient = new Redis(redisUrl, options);
  const subscribeClient = new Redis(redisUrl, options);
  // Publishes and subscriptions Redis has not answered yet (accepted() and subscribed() wait for them).
  const pending = new Set<Promise<unknown>>();
  const pendingSubscriptions = new Set<Promise<unknown>>();
  const inner = createPubSub({
    eventTarget: createRedisEventTarget({ publishClient: tolerant(publishClient, pending), subscribeClient: tolerant(subscribeClient, pendingSubscriptions) }),
  }) as unknown as Inner;
  const settled = async (set: Set<Promise<unknown>>, limitMs: number) => {
    if (!set.size) return;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs).unref()));
    await Promise.race([Promise.allSettled([...set]), limit]);
    clearTimeout(timer);
  };
  return wrap(
    inner,
    'redis',
    async () => {
      await Promise.allSettled([publishClient, subscribeClient].map((c) => (c.status === 'ready' ? c.quit() : Promise.resolve(c.disconnect()))));
    },
    // Through the publishing connection (opening it if nothing has yet): a failed connect still
    // queues the PING, which then fails after ioredis's retries.
    async () => {
      if (publishClient.status === 'wait') await publishClient.connect().catch(() => undefined);
      await publishClient.ping();
    },
    (limitMs = 1000) => settled(pending, limitMs),
    // A stream whose first message was asked for in this turn sends its SUBSCRIBE only once the event
    // target has set it up, after the turn's promise jobs: wait one turn of the loop so it counts as made.
    (limitMs = 5000) => new Promise<void>((resolve) => setImmediate(resolve)).then(() => settled(pendingSubscriptions, limitMs)),
  );
}

/**
 * The pubsub type-graphql is built with (it requires one once any resolver declares a
 * subscription). Resolvers using `topics` publish and listen through the pubsub of the most recently
 * started app of this process; prefer the `subscribe` option with `context.app.pubsub`.
 */
let processDefault: AppPubSub | undefined;

export function setProcessPubSub(pubsub: AppPubSub): void {
  processDefault = pubsub;
}

export const schemaPubSub: PubSub = {
  publish: (routingKey, ...args) => (processDefault ??= createAppPubSub()).publish(routingKey, ...args),
  subscribe: (routingKey, dynamicId) => (processDefault ??= createAppPubSub()).subscribe(routingKey, dynamicId),
};
