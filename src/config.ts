import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { DEFAULT_IFRAME_HOSTS, parseIframeHosts } from './common/iframe-hosts';
import { isPublicUrlValue, isTrustProxyValue } from './common/origin';
import { tracingSettings } from './tracing/settings';

/**
 * All configuration comes from the environment, validated once at start so a bad value stops the
 * process with a message naming the variable instead of failing later in a request.
 */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * Server processes sharing PORT on this machine (node:cluster, src/process/): a count, or `auto` for
   * one per core. Above 1 the primary migrates the database once, then forks the workers; without
   * REDIS_URL it relays subscription events and keeps the throttle's buckets for them.
   */
  WEB_CONCURRENCY: z
    .string()
    .default('1')
    .refine((v) => v === 'auto' || (/^\d{1,3}$/.test(v) && Number(v) >= 1 && Number(v) <= 256), { message: 'must be a number of processes (1-256) or auto' })
    .transform((v) => (v === 'auto' ? availableParallelism() : Number(v))),
  DATABASE_URL: z
    .string()
    .default('sqlite:./data/lms.sqlite')
    .refine((v) => /^sqlite:.+/.test(v) || /^mysql:\/\/[^/]+\/[A-Za-z0-9_$]+(\?.*)?$/.test(v), {
      message: 'must be sqlite:<path>, sqlite::memory: or mysql://user:pass@host:port/database',
    }),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  // ---- public origin and proxies (src/common/origin.ts) ----
  /** The origin every absolute URL uses (Link headers, html_url, file URLs, the LTI aud), e.g. https://lms.example.edu; unset: the request's host. */
  PUBLIC_URL: z
    .string()
    .refine(isPublicUrlValue, { message: 'must be an http(s) origin such as https://lms.example.edu (no path, query or credentials)' })
    .optional(),
  /** Proxies whose X-Forwarded-For/-Host/-Proto are believed: comma-separated IPs, CIDRs, loopback/linklocal/uniquelocal, or a hop count; unset: none. */
  TRUST_PROXY: z
    .string()
    .refine(isTrustProxyValue, { message: 'must be comma-separated IP addresses, CIDR ranges or loopback/linklocal/uniquelocal, or a hop count 1-32' })
    .optional(),
  LMS_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  LMS_SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * How long a process may reuse a usable access token's lookup (with its owner) for HTTP requests,
   * in ms; 0 turns the cache off. Writes through the service (revoke, regenerate, user changes) empty
   * it at once on every instance (src/auth/token-cache.ts); raw SQL writes are seen within this time.
   */
  TOKEN_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  /** Bearer token Prometheus scrapers send to GET /metrics (src/metrics/); unset: /metrics answers 404. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  FILES_DIR: z.string().min(1).default('./data/files'),
  // ---- file bytes (src/storage/): FILES_DIR keeps them (local) or holds only temp uploads (s3) ----
  /** `local`: bytes under FILES_DIR (one machine); `s3`: an S3-compatible bucket every instance shares. */
  FILES_STORAGE: z.enum(['local', 's3']).default('local'),
  S3_BUCKET: z.string().min(1).optional(),
  /** Prepended to every object key as given, e.g. `lms/`. */
  S3_PREFIX: z
    .string()
    .default('')
    .refine((v) => !v.startsWith('/') && v.length <= 512, { message: 'must not start with / (e.g. lms/)' }),
  /** An S3-compatible server's URL (MinIO, Ceph …); unset: AWS S3 for S3_REGION. */
  S3_ENDPOINT: z.string().url().optional(),
  /** The endpoint clients reach for presigned uploads and download redirects, when not S3_ENDPOINT. */
  S3_PUBLIC_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** Static credentials (together); unset: the AWS default chain (environment, profile, instance role). */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** `true` for servers without virtual-host bucket addressing (MinIO, s3rver). */
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('false'),
  /** Step 2 of uploads: through the service (`proxy`) or straight to the bucket with a presigned POST. */
  S3_UPLOAD: z.enum(['proxy', 'presigned']).default('proxy'),
  /** Downloads: streamed by the service (`proxy`) or a redirect to a presigned GET URL. */
  S3_DOWNLOAD: z.enum(['proxy', 'redirect']).default('proxy'),
  /** Lifetime of presigned download URLs, in seconds. */
  S3_URL_TTL_SECONDS: z.coerce.number().int().min(1).max(604_800).default(300),
  /**
   * S3_UPLOAD=presigned: how long a preflight's presigned POST lasts, in seconds (Canvas: 30 minutes). An
   * upload not confirmed by then is refused at create_success, and the service deletes its bytes from the bucket.
   */
  S3_UPLOAD_EXPIRY_SECONDS: z.coerce.number().int().min(60).max(604_800).default(1_800),
  /** S3_UPLOAD=presigned: unconfirmed preflights one user may have outstanding in one course, group or user's files. */
  S3_UPLOAD_MAX_PENDING: z.coerce.number().int().min(1).max(1_000).default(10),
  // ---- GraphQL limits for HTTP and graphql-ws clients (src/graphql/limits.ts; REST routes' own operations are exempt) ----
  /** Deepest field nesting one operation may select (Canvas: 15). */
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).default(15),
  /** Extra selections of a field under another alias in one document (Canvas: 20); renaming a field once is free. */
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(20),
  /** Directive uses (@include, @skip …) in one document (Canvas: 5). */
  GRAPHQL_MAX_DIRECTIVES: z.coerce.number().int().min(0).default(5),
  /** Lexical tokens in one document, enforced while parsing (Canvas: 5,000). */
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).default(5_000),
  /**
   * Estimated cost of one operation: 1 per field, times each connection's `first` (100 when absent) or each other
   * list's declared maximum; see src/graphql/cost.ts. A full introspection query costs about 52,000.
   */
  GRAPHQL_MAX_COMPLEXITY: z.coerce.number().int().min(1).default(250_000),
  /** Root fields of one mutation operation (every mutation runs its own transaction and side effects). */
  GRAPHQL_MAX_MUTATION_FIELDS: z.coerce.number().int().min(1).default(5),
  /** Resolver calls (fields that load objects or lists) one client operation may make before it is stopped. */
  GRAPHQL_MAX_RESOLVER_CALLS: z.coerce.number().int().min(1).default(25_000),
  /** Largest JSON response of one HTTP GraphQL operation; a bigger one is replaced by an error. */
  GRAPHQL_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1024).default(8 * 1024 * 1024),
  /** Longest time one operation runs before it yields the event loop to other requests. */
  GRAPHQL_YIELD_MS: z.coerce.number().int().min(1).max(60_000).default(50),
  /** Who may query __schema/__type: `authenticated` callers only (default), everyone (`on`) or nobody (`off`). */
  GRAPHQL_INTROSPECTION: z.enum(['authenticated', 'on', 'off']).default('authenticated'),
  /**
   * How much GraphQL cost the rate limiter counts as one unit (one second of request time): an operation
   * adds cost / this to its request's throttle cost, so the dearest allowed query adds about 6 units.
   */
  GRAPHQL_COST_PER_RATE_LIMIT_UNIT: z.coerce.number().positive().default(10_000),
  /**
   * `on`: a POST /graphql whose document text Apollo has already parsed and validated is run directly with its
   * compiled plan, answered exactly as Apollo would (src/graphql/fast-path.ts); `off`: every request goes through
   * Apollo's pipeline.
   */
  GRAPHQL_FAST_PATH: z.enum(['on', 'off']).default('on'),
  /** Largest HTTP GraphQL request body (JSON) in bytes. */
  GRAPHQL_MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** Largest graphql-ws frame in bytes; a bigger one closes the socket with 1009 (the ws default is 100 MiB). */
  GRAPHQL_WS_MAX_PAYLOAD_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** Live subscriptions one graphql-ws socket may hold; one more is refused with TOO_MANY_SUBSCRIPTIONS. */
  GRAPHQL_WS_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).max(10_000).default(50),
  /** Open graphql-ws sockets per access token (or LTI tool) on one instance; one more is closed with 1008. */
  GRAPHQL_WS_MAX_SOCKETS_PER_TOKEN: z.coerce.number().int().min(1).max(100_000).default(20),
  /** Throttle units charged to the subscriber's bucket per subscription event delivered (0: none). */
  GRAPHQL_WS_EVENT_COST: z.coerce.number().min(0).max(100).default(0.05),
  /**
   * How often every graphql-ws socket's token is re-read (ms): the backstop for what no flush announces
   * (raw SQL edits). Revocations through the service close sockets at once (src/auth/live-sockets.ts).
   */
  GRAPHQL_WS_REVERIFY_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
  /** Hosts user HTML may embed in iframes: exact host names, comma-separated, or `none` (src/common/iframe-hosts.ts). */
  HTML_IFRAME_HOSTS: z
    .string()
    .default(DEFAULT_IFRAME_HOSTS)
    .refine((v) => parseIframeHosts(v) !== null, { message: 'must be comma-separated host names (e.g. www.youtube.com,player.vimeo.com) or none' }),
  // ---- throttle (src/http/throttle.ts): Canvas's leaky bucket per token, LTI tool or anonymous IP ----
  /** `off` turns the throttle off (no X-Request-Cost / X-Rate-Limit-Remaining headers, never a 429). */
  RATE_LIMIT: z.enum(['on', 'off']).default('on'),
  /** High-water mark: a bucket at or above it refuses requests with Canvas's 429 (Rate Limit Exceeded). */
  RATE_LIMIT_HWM: z.coerce.number().positive().default(600),
  /** A bucket never holds more than this, so a flood is forgiven after (MAX - HWM) / OUTFLOW seconds. */
  RATE_LIMIT_MAX: z.coerce.number().positive().default(800),
  /** Units a bucket leaks per second (one unit is about one second of request time). */
  RATE_LIMIT_OUTFLOW: z.coerce.number().positive().default(10),
  /** Reserved while a request runs and refunded when it ends, so concurrent requests count at once. */
  RATE_LIMIT_UP_FRONT: z.coerce.number().min(0).default(50),
  /** Charged on top of the time for anonymous or expensive routes (error reports, LTI authorize, upload preflights). */
  RATE_LIMIT_EXPENSIVE_COST: z.coerce.number().min(0).default(10),
  /**
   * The status of a throttled request: `429` (Canvas since October 2025, with Retry-After and the body
   * `429 Too Many Requests (Rate Limit Exceeded)`) or `403` (Canvas's older answer, for clients that still expect it).
   */
  RATE_LIMIT_STATUS: z.enum(['429', '403']).default('429'),
  // ---- webhook delivery (src/webhooks/README.md) ----
  /** Run the outbox dispatcher inside the server process (turn off when `cli dispatch` workers do it). */
  WEBHOOK_DISPATCHER: z.enum(['on', 'off']).default('on'),
  /** Comma-separated IPs/CIDRs that deliveries may reach although private, loopback or link-local. */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z
    .string()
    .refine((v) => v.split(',').every((e) => isNetwork(e.trim())), { message: 'must be comma-separated IP addresses or CIDR ranges, e.g. 127.0.0.0/8,::1/128' })
    .optional(),
  /** PEM file of extra CA certificates trusted for HTTPS deliveries (e.g. a test or internal CA). */
  WEBHOOK_CA_FILE: z.string().min(1).optional(),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Full-jitter exponential backoff: a random delay up to min(MAX, BASE * 2^attempt). */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(10_000),
  WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(1).default(3_600_000),
  /** How long a message is retried before it is dead-lettered (24 hours; at most 72 hours, as Stripe's 3 days). */
  WEBHOOK_RETRY_WINDOW_MS: z.coerce.number().int().min(0).max(259_200_000).default(86_400_000),
  /** How long a claim lasts; a dispatcher that died is relieved of its messages after it. */
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(100).default(60_000),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).default(1_000),
  /** Messages per claim and deliveries in flight per dispatcher (bench:webhooks: larger batches mean fewer commits per message). */
  WEBHOOK_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(100),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(64),
  /**
   * Deliveries in flight to one destination (HTTPS origin) per dispatcher, at most; halved on each
   * 429/503 and regained on successes (src/webhooks/destination-limiter.ts). Unset: WEBHOOK_CONCURRENCY.
   */
  WEBHOOK_DESTINATION_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
  /** After a subscription's secret is rotated, the previous one still signs (v1) for this long. */
  WEBHOOK_SECRET_GRACE_MS: z.coerce.number().int().min(0).max(604_800_000).default(86_400_000),
  /** A subscription is deactivated after this many failed attempts in a row … */
  WEBHOOK_DEACTIVATE_FAILURES: z.coerce.number().int().min(1).default(50),
  /** … once its endpoint has been failing (no success) for at least this long. */
  WEBHOOK_DEACTIVATE_WINDOW_MS: z.coerce.number().int().min(0).default(86_400_000),
  /** Delivered and cancelled messages and their attempt logs are purged after this many days (dead ones are kept). */
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  /** SQS transport: endpoint override (a local SQS-compatible server), region and static credentials. */
  SQS_ENDPOINT: z.string().url().optional(),
  SQS_REGION: z.string().min(1).default('us-east-1'),
  SQS_ACCESS_KEY_ID: z.string().min(1).optional(),
  SQS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /**
   * The AWS accounts (12-digit ids, comma-separated) whose queues subscriptions may name. Every queue is
   * written with the service's own credentials, so without this list any queue those credentials can
   * reach (the operator's own, or another account's that trusts them) was a tool's to fill. Unset: no
   * SQS queue is accepted or sent to. The credentials' own account is refused like any other unless listed.
   */
  SQS_ALLOWED_ACCOUNT_IDS: z
    .string()
    .regex(/^\s*\d{12}\s*(,\s*\d{12}\s*)*$/, 'must be a comma-separated list of 12-digit AWS account ids')
    .optional(),
}).merge(tracingSettings);

export type Config = z.infer<typeof schema>;

/** An IP address or a CIDR range (v4 or v6). */
function isNetwork(entry: string): boolean {
  const [addr, bits, extra] = entry.split('/');
  const family = isIP(addr ?? '');
  if (!family || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset" so `PORT= npm start` behaves like no PORT at all.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (parsed.success && Boolean(parsed.data.SQS_ACCESS_KEY_ID) !== Boolean(parsed.data.SQS_SECRET_ACCESS_KEY)) {
    throw new ConfigError('Invalid configuration:\n  SQS_ACCESS_KEY_ID: SQS_ACCESS_KEY_ID and SQS_SECRET_ACCESS_KEY go together');
  }
  if (parsed.success && Boolean(parsed.data.S3_ACCESS_KEY_ID) !== Boolean(parsed.data.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError('Invalid configuration:\n  S3_ACCESS_KEY_ID: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
  }
  if (parsed.success && parsed.data.FILES_STORAGE === 's3' && !parsed.data.S3_BUCKET) {
    throw new ConfigError('Invalid configuration:\n  S3_BUCKET: required when FILES_STORAGE=s3');
  }
  if (parsed.success && parsed.data.WEB_CONCURRENCY > 1 && parsed.data.DATABASE_URL === 'sqlite::memory:') {
    throw new ConfigError('Invalid configuration:\n  WEB_CONCURRENCY: above 1 needs a database file or MySQL (an in-memory SQLite database is private to one process)');
  }
  if (parsed.success && parsed.data.RATE_LIMIT_MAX < parsed.data.RATE_LIMIT_HWM) {
    throw new ConfigError('Invalid configuration:\n  RATE_LIMIT_MAX: must be at least RATE_LIMIT_HWM');
  }
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
