/**
 * Failures that mean "the database cannot be reached right now" rather than "this request is wrong" or
 * "our code is wrong": the server answers them with 503 and Retry-After instead of 500, and keeps no
 * state about them, so requests recover by themselves when the database is back (the drivers reconnect;
 * TypeORM's MySQL pool opens fresh connections, SQLite's lock is released).
 */

/** Seconds a client is asked to wait before retrying. */
export const RETRY_AFTER_SECONDS = 5;

export const UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable. Try again shortly.';

/** Canvas's error shape (error_code is the status phrase, snake-cased). */
export const UNAVAILABLE_BODY = { errors: [{ message: UNAVAILABLE_MESSAGE, error_code: 'service_unavailable' }] };

const CODES = new Set([
  // Sockets: the server is down, restarting, unreachable or dropped us.
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  // mysql2: the connection died under a query, or the protocol stalled.
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  // MySQL/MariaDB server states: too many connections, shutting down, connection killed, read-only
  // failover, and the client-side "server has gone away" family.
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_QUERY_INTERRUPTED',
  'ER_OPTION_PREVENTS_STATEMENT',
  'ER_LOCK_WAIT_TIMEOUT',
  // A deadlock still lost after every retry of db/transaction.ts: contention, not a wrong request.
  'ER_LOCK_DEADLOCK',
  'CR_SERVER_GONE_ERROR',
  'CR_SERVER_LOST',
  'CR_CONNECTION_ERROR',
  'CR_CONN_HOST_ERROR',
  // SQLite: another process holds the lock past busy_timeout.
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_RECOVERY',
  'SQLITE_BUSY_TIMEOUT',
  'SQLITE_LOCKED',
  'SQLITE_LOCKED_SHAREDCACHE',
]);

/** Driver messages that carry no code (pool and client states). */
const MESSAGES = [
  /^Pool is closed/i,
  /Timeout acquiring a connection/i,
  /Queue limit reached/i,
  /Can't add new command when connection is in closed state/i,
  /Connection lost: The server closed the connection/i,
  /^connect ETIMEDOUT/i,
  /Driver not Connected/i,
  /The database connection is not open/i,
];

/**
 * Whether an error (or anything it wraps: TypeORM's driverError, GraphQL's originalError, a cause)
 * is a connection-class failure.
 */
export function isDbUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let queue: unknown[] = [error];
  while (queue.length) {
    const next: unknown[] = [];
    for (const e of queue) {
      if (!e || typeof e !== 'object' || seen.has(e)) continue;
      seen.add(e);
      const o = e as { code?: unknown; message?: unknown; driverError?: unknown; originalError?: unknown; cause?: unknown; thrownValue?: unknown; errors?: unknown; dependencyUnavailable?: unknown };
      if (typeof o.code === 'string' && CODES.has(o.code)) return true;
      // Another backing service that marks its outages the same way (e.g. the file store).
      if (o.dependencyUnavailable === true) return true;
      if (typeof o.message === 'string' && MESSAGES.some((re) => re.test(o.message as string))) return true;
      // thrownValue: graphql-js wraps a thrown value that is not an Error of its realm (NonErrorThrown).
      next.push(o.driverError, o.originalError, o.cause, o.thrownValue);
      // AggregateError (e.g. a connect that tried IPv4 and IPv6).
      if (Array.isArray(o.errors)) next.push(...o.errors);
    }
    queue = next;
  }
  return false;
}
