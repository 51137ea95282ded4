import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { prepareApp } from '../../src/app/bootstrap';
import { loadConfig } from '../../src/config';
import { dbKind } from '../../src/db/data-source';
import type { CountingLogger } from '../../src/db/query-counter';
import { buildServer, BuiltServer } from '../../src/app/server';
import { stopTracing } from '../../src/app/tracing';
import type { Runtime } from '../../src/request/runtime';
import { Dispatcher } from '../../src/webhooks/dispatcher';
import { Api } from './api';
import { testDatabase, TestDatabase } from './db';
import { checkResponseSchemas } from './response-schemas';

export interface TestServer {
  url: string;
  app: Runtime;
  adminToken: string;
  admin: Api;
  /** An API client with the given token (or none). */
  as(token?: string | null): Api;
  /** SQL statements run so far (tests measure one request at a time). */
  queryCount(): number;
  close(): Promise<void>;
  db: TestDatabase;
  /** The in-process webhook dispatcher (running unless WEBHOOK_DISPATCHER=off was given). */
  dispatcher: Dispatcher;
}

/**
 * Boots the real server on a free port against a fresh database, or against env.DATABASE_URL when given:
 * a database the caller made (a file or database several servers or processes share), and drops.
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const db = env.DATABASE_URL ? callersDatabase(env.DATABASE_URL) : testDatabase();
  await db.ready?.();
  const adminToken = `test-admin-${randomBytes(12).toString('hex')}`;
  // The webhook dispatcher runs as in production, woken by commits that write outbox messages; it
  // polls only hourly unless a test asks otherwise, so idle polls never land in SQL statement counts.
  // The throttle is off unless a test turns it on (test/throttle.rest.test.ts): tests send hundreds of
  // concurrent requests per token, which Canvas's limits would rightly refuse.
  const config = loadConfig({
    DATABASE_URL: db.url,
    LMS_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'silent',
    PORT: '0',
    WEBHOOK_POLL_MS: '3600000',
    RATE_LIMIT: 'off',
    // Statement-count tests compare requests by different tokens, so authentication must cost the same
    // every time; the token cache has its own tests (test/token-cache.rest.test.ts), which turn it on.
    TOKEN_CACHE_MS: '0',
    // Statement counts compare requests by their DataLoader batches; a yield of the event loop (every
    // 50 ms by default) on a loaded machine can split one batch into two statements, so tests that do
    // not ask for it run each operation without yielding.
    GRAPHQL_YIELD_MS: '60000',
    ...env,
  });
  const { app } = await prepareApp(config);
  let server: BuiltServer;
  try {
    server = await buildServer(app);
    if (process.env.RESPONSE_SCHEMAS !== 'off') checkResponseSchemas(server.fastify);
    await server.fastify.listen({ port: 0, host: '127.0.0.1' });
  } catch (e) {
    await app.ds.destroy();
    await db.drop();
    throw e;
  }
  const port = (server.fastify.server.address() as AddressInfo).port;
  const dispatcher = new Dispatcher({ ds: app.ds, config, tokenKey: app.tokenKey });
  if (config.WEBHOOK_DISPATCHER === 'on') dispatcher.start();
  const url = `http://127.0.0.1:${port}`;
  const logger = app.ds.logger as CountingLogger;
  return {
    url,
    app,
    adminToken,
    db,
    admin: new Api(url, adminToken),
    as: (token) => new Api(url, token ?? null),
    queryCount: () => logger.total,
    dispatcher,
    async close() {
      await server.close();
      await dispatcher.stop();
      await app.pubsub.close();
      await app.ds.destroy();
      await db.drop();
      // A server started with OTEL_EXPORTER_OTLP_ENDPOINT sends its last spans and stops the SDK.
      await stopTracing();
    },
  };
}

/** A database the caller owns: not copied, nor dropped when the server closes. */
function callersDatabase(url: string): TestDatabase {
  return { url, kind: dbKind(url), drop: async () => undefined };
}
