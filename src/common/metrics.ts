import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (served at GET /metrics, src/metrics/metrics.routes.ts). One
 * registry per process, as Prometheus scrapes processes: code anywhere increments these directly
 * (`metrics.rateLimited.inc({ door: 'http' })`). Values read from the database (outbox, pool) are set
 * at scrape time by src/metrics/collect.ts.
 *
 * Labels never carry raw URLs, ids or tokens: routes are patterns, GraphQL operation names are capped
 * (boundedLabel), so a client cannot grow the series without bound.
 */
export const registry = new Registry();

collectDefaultMetrics({ register: registry, prefix: 'lms_' });

/** Seconds; from a cached lookup to a slow list or an upload. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const metrics = {
  httpRequestDuration: new Histogram({
    name: 'lms_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  }),
  graphqlOperations: new Counter({
    name: 'lms_graphql_operations_total',
    help: 'GraphQL operations over HTTP by operation name, type and result (ok or error).',
    labelNames: ['operation', 'type', 'result'] as const,
    registers: [registry],
  }),
  graphqlDuration: new Histogram({
    name: 'lms_graphql_operation_duration_seconds',
    help: 'GraphQL operation duration over HTTP, from request to response, by operation name and type.',
    labelNames: ['operation', 'type'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  }),
  wsConnections: new Gauge({
    name: 'lms_graphql_ws_connections',
    help: 'Open graphql-ws sockets.',
    registers: [registry],
  }),
  wsSubscriptions: new Gauge({
    name: 'lms_graphql_ws_subscriptions',
    help: 'Active GraphQL subscriptions over graphql-ws.',
    registers: [registry],
  }),
  // In no registry until a MySQL/MariaDB pool is first read (registerPoolMetrics): a gauge without
  // labels is exported as 0 from the start, which on SQLite would report a pool that is not there.
  dbPoolConnections: new Gauge({
    name: 'lms_db_pool_connections',
    help: 'MySQL/MariaDB pool connections by state (active: in use, idle: free); absent on SQLite.',
    labelNames: ['state'] as const,
    registers: [],
  }),
  dbPoolWaiting: new Gauge({
    name: 'lms_db_pool_waiting_requests',
    help: 'Requests waiting for a MySQL/MariaDB pool connection; absent on SQLite.',
    registers: [],
  }),
  outboxPending: new Gauge({
    name: 'lms_outbox_pending_messages',
    help: 'Outbox messages not yet delivered (pending or being delivered).',
    registers: [registry],
  }),
  outboxOldestAge: new Gauge({
    name: 'lms_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest outbox message not yet delivered (0 when there is none).',
    registers: [registry],
  }),
  webhookDeliveries: new Counter({
    name: 'lms_webhook_deliveries_total',
    help: 'Webhook delivery outcomes: delivered, failed (will retry), dead (dead-lettered) or cancelled.',
    labelNames: ['result'] as const,
    registers: [registry],
  }),
  rateLimited: new Counter({
    name: 'lms_rate_limited_total',
    help: 'Requests and graphql-ws operations refused by the throttle, by door (http or graphql-ws).',
    labelNames: ['door'] as const,
    registers: [registry],
  }),
};

/**
 * Every known label value starts at 0, so a scrape shows a series before its first event: a rate()
 * or an alert on a counter that has never moved has something to read, and a missing series means a
 * missing process rather than a quiet one.
 */
for (const result of ['delivered', 'failed', 'dead', 'cancelled'] as const) metrics.webhookDeliveries.inc({ result }, 0);
for (const door of ['http', 'graphql-ws'] as const) metrics.rateLimited.inc({ door }, 0);

/** Adds the pool gauges to the registry, once, when the database has a pool (MySQL/MariaDB). */
export function registerPoolMetrics(): void {
  const gauges: [string, Gauge<string>][] = [
    ['lms_db_pool_connections', metrics.dbPoolConnections],
    ['lms_db_pool_waiting_requests', metrics.dbPoolWaiting],
  ];
  for (const [name, gauge] of gauges) if (!registry.getSingleMetric(name)) registry.registerMetric(gauge);
}

/** At most this many distinct values per label source; later ones are counted as `other`. */
const MAX_LABEL_VALUES = 200;
const seen = new Map<string, Set<string>>();

/** Client-chosen names (GraphQL operation names) as label values, bounded per source. */
export function boundedLabel(source: string, value: string): string {
  let values = seen.get(source);
  if (!values) seen.set(source, (values = new Set()));
  if (values.has(value)) return value;
  if (values.size >= MAX_LABEL_VALUES) return 'other';
  values.add(value);
  return value;
}

/**
 * Counts a graphql-ws subscription while it is live: the source stream wrapped in an iterator whose
 * end (done, error, or return() when the client completes or the socket closes) lowers the gauge
 * once. A plain iterator, not an async generator: graphql-ws calls return() while next() is pending,
 * which a generator would queue until the next event.
 */
export function countSubscription<T>(result: T): T {
  const source = result as unknown as AsyncIterable<unknown>;
  if (!source || typeof source[Symbol.asyncIterator] !== 'function') return result;
  const inner = source[Symbol.asyncIterator]();
  let open = true;
  const end = () => {
    if (!open) return;
    open = false;
    metrics.wsSubscriptions.dec();
  };
  metrics.wsSubscriptions.inc();
  const wrapped: AsyncIterableIterator<unknown> = {
    [Symbol.asyncIterator]() {
      return wrapped;
    },
    async next() {
      try {
        const step = await inner.next();
        if (step.done) end();
        return step;
      } catch (e) {
        end();
        throw e;
      }
    },
    async return(value?: unknown) {
      end();
      return inner.return ? inner.return(value) : { done: true, value };
    },
    async throw(err?: unknown) {
      end();
      if (inner.throw) return inner.throw(err);
      throw err;
    },
  };
  return wrapped as unknown as T;
}

/** Counts graphql-ws sockets while they are open. */
export function countWsConnections(wss: { on(event: 'connection', fn: (socket: { once(event: 'close', fn: () => void): unknown }) => void): unknown }): void {
  wss.on('connection', (socket) => {
    metrics.wsConnections.inc();
    socket.once('close', () => metrics.wsConnections.dec());
  });
}
