import 'reflect-metadata';
import cluster from 'node:cluster';
import type { Installation } from '../auth/installation';
import { joinApp, prepareApp } from './bootstrap';
import { Config, ConfigError, loadConfig } from '../config';
import { dbKind } from '../db/data-source';
import { announceInstallation } from './installation-notes';
import { runPrimary } from './cluster-primary';
import { joinPrimaryRelay } from '../messaging/worker-relay';
import { OUTBOX_WRITTEN_NOTICE, outboxSignal } from '../webhooks/outbox-signal';
import { buildServer } from './server';
import { stopTracing } from './tracing';
import { Dispatcher } from '../webhooks/dispatcher';

/**
 * One server process: on its own (WEB_CONCURRENCY=1, the default), or one of a cluster's workers,
 * whose primary (src/app/cluster-primary.ts) has already migrated the database, runs the webhook
 * dispatcher and, without REDIS_URL, relays pubsub events and throttle buckets between workers.
 */
async function serve(config: Config, role: 'single' | 'worker'): Promise<void> {
  let app;
  let installation: Installation | undefined;
  if (role === 'worker') {
    // A worker's committed outbox messages wake the primary's dispatcher at once.
    joinPrimaryRelay().forward(outboxSignal, 'written', OUTBOX_WRITTEN_NOTICE);
    app = await joinApp(config);
  } else {
    ({ app, installation } = await prepareApp(config));
  }
  const server = await buildServer(app);
  const log = server.fastify.log;
  // Webhook deliveries from this process, unless dedicated `cli dispatch` workers (or a cluster's primary) do them.
  const dispatcher =
    role === 'single' && config.WEBHOOK_DISPATCHER === 'on'
      ? new Dispatcher({ ds: app.ds, config, tokenKey: app.tokenKey, log: log.child({ component: 'webhooks' }), pubsub: app.pubsub })
      : null;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'draining in-flight requests and closing websocket connections');
    try {
      await server.close();
      // In-flight deliveries finish (bounded by their timeout) and are recorded before the database closes.
      await dispatcher?.stop();
      await app.pubsub.close();
      await app.ds.destroy();
      // The last spans are sent before the process ends.
      await stopTracing();
      log.info('stopped');
      process.exit(0);
    } catch (e) {
      log.error({ err: { message: (e as Error).message } }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // A worker whose primary has gone (killed, crashed) drains and exits rather than serve on alone.
  if (role === 'worker') process.on('disconnect', () => void shutdown('primary gone'));

  const address = await server.fastify.listen({ port: config.PORT, host: config.HOST });
  dispatcher?.start();
  log.info({ address, database: dbKind(config.DATABASE_URL) }, 'listening');
  if (installation) announceInstallation(log, installation, address);
}

async function main(): Promise<void> {
  const config = loadConfig();
  if (cluster.isWorker) return serve(config, 'worker');
  if (config.WEB_CONCURRENCY > 1) return runPrimary(config);
  return serve(config, 'single');
}

/** The one line a failed start prints (never a stack: the cause is the operator's to fix, not ours). */
function startFailure(e: Error & { code?: string; syscall?: string; port?: number; address?: string }): string {
  if (e.code === 'EADDRINUSE') {
    return `Failed to start: port ${e.port} on ${e.address} is already in use (another instance of this service, or another program); stop it or set PORT to a free port.`;
  }
  if (e.code === 'EACCES' && e.syscall === 'listen') return `Failed to start: not allowed to listen on port ${e.port} (ports below 1024 need privileges); set PORT to 1024 or above.`;
  return `Failed to start: ${e.message}`;
}

main().catch((e) => {
  if (e instanceof ConfigError) console.error(e.message);
  else console.error(startFailure(e as Error));
  process.exit(1);
});
