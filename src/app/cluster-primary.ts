import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { setUpDatabase } from './bootstrap';
import { stopTracing } from './tracing';
import type { Config } from '../config';
import { dbKind } from '../db/data-source';
import { createAppPubSub } from '../messaging/pubsub';
import { Dispatcher } from '../webhooks/dispatcher';
import { announceInstallation } from './installation-notes';
import { primaryRelay } from '../messaging/primary-relay';
import { MemoryBucketStore } from '../http/throttle-store';
import { OUTBOX_WRITTEN_NOTICE, outboxSignal } from '../webhooks/outbox-signal';

/** A worker that dies after start-up is replaced after this pause (so a crash loop cannot spin). */
const RESTART_DELAY_MS = 1_000;

/** `http://host:port` of a worker's listening socket, as node:cluster reports it. */
function addressUrl(a: Pick<AddressInfo, 'address' | 'port'>): string {
  return `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`;
}

/**
 * WEB_CONCURRENCY > 1: this process serves no request itself. It migrates the database and sets up
 * the installation once, then forks WEB_CONCURRENCY workers (each runs src/app/main.ts as a server) that
 * share PORT through node:cluster. It also:
 * - runs the webhook dispatcher (WEBHOOK_DISPATCHER=on), once for the machine rather than once per
 *   worker; workers' commits wake it through the relay;
 * - relays pubsub events and keeps the throttle's buckets when there is no REDIS_URL (primary-relay.ts);
 * - replaces a worker that dies after start-up; a worker that fails to start stops the whole service;
 * - on SIGTERM/SIGINT, has every worker drain (each finishes its in-flight requests and closes its
 *   sockets), stops the dispatcher, and exits 0 when every worker stopped cleanly.
 */
export async function runPrimary(config: Config): Promise<void> {
  const count = config.WEB_CONCURRENCY;
  const log = pino({ level: config.LOG_LEVEL }).child({ role: 'primary' });
  const { ds, tokenKey, installation } = await setUpDatabase(config);
  // With REDIS_URL the dispatcher also hears commits made on other machines' instances (the relay
  // brings this machine's workers' commits); without it, those are found by polling.
  const pubsub = config.WEBHOOK_DISPATCHER === 'on' && config.REDIS_URL ? createAppPubSub(config.REDIS_URL) : undefined;
  const dispatcher = config.WEBHOOK_DISPATCHER === 'on' ? new Dispatcher({ ds, config, tokenKey, log: log.child({ component: 'webhooks' }), pubsub }) : null;
  if (!dispatcher) await ds.destroy();
  cluster.on(
    'message',
    primaryRelay({
      buckets: () => new MemoryBucketStore({ outflow: config.RATE_LIMIT_OUTFLOW, maximum: config.RATE_LIMIT_MAX }),
      onNotice: (name, value) => {
        if (name === OUTBOX_WRITTEN_NOTICE) outboxSignal.emit('written', value);
      },
    }),
  );

  let closing = false;
  let stopped: Promise<boolean> | undefined;
  /** Stops every worker (SIGTERM: each drains), then the dispatcher; true when all stopped cleanly. */
  const stopAll = () =>
    (stopped ??= (async () => {
      closing = true;
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      const exits = workers.map(
        (w) =>
          new Promise<boolean>((resolve) => {
            if (w.process.exitCode !== null || w.process.signalCode !== null) return resolve(w.process.exitCode === 0);
            // Killed by our SIGTERM before it could handle it (still starting): nothing was being served.
            w.once('exit', (code, signal) => resolve(code === 0 || signal === 'SIGTERM'));
          }),
      );
      for (const w of workers) w.process.kill('SIGTERM');
      const clean = (await Promise.all(exits)).every(Boolean);
      // In-flight deliveries finish (bounded by their timeout) and are recorded before the database closes.
      await dispatcher?.stop();
      await pubsub?.close();
      if (dispatcher) await ds.destroy();
      await stopTracing();
      return clean;
    })());

  const shutdown = async (signal: string) => {
    if (closing) return;
    log.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, 'stopping workers: each drains its in-flight requests and websocket connections');
    try {
      const clean = await stopAll();
      log.info({ clean }, 'stopped');
      process.exit(clean ? 0 : 1);
    } catch (e) {
      log.error({ err: { message: (e as Error).message } }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  let listening = 0;
  const started = new Promise<string>((resolve, reject) => {
    cluster.on('listening', (_w, address) => {
      if (++listening === count) resolve(addressUrl(address));
    });
    cluster.on('exit', (w, code, signal) => {
      if (closing) return;
      // The worker has printed why (configuration, database …); starting it again would fail the same way.
      if (listening < count) return reject(new Error(`a server worker exited while starting (code ${code ?? signal})`));
      log.error({ workerPid: w.process.pid, code, signal }, 'server worker exited unexpectedly; starting another');
      setTimeout(() => closing || cluster.fork(), RESTART_DELAY_MS);
    });
  });
  for (let i = 0; i < count; i++) cluster.fork();
  let address: string;
  try {
    address = await started;
  } catch (e) {
    await stopAll();
    throw e;
  }
  log.info({ address, workers: count, database: dbKind(config.DATABASE_URL), webhookDispatcher: dispatcher ? 'primary' : 'off' }, 'listening');
  dispatcher?.start();
  announceInstallation(log, installation, address);
}
