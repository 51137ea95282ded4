import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import type { Runtime } from '../request/runtime';
import { ensureInstallation, Installation, tokenKeyOf } from '../auth/installation';
import type { Config } from '../config';
import { openAppDatabase } from './database';
import { installPlugins } from './plugins';
import { buildAppSchema } from './schema';
import { createAppPubSub, setProcessPubSub } from '../messaging/pubsub';
import { startTracing } from './tracing';
import { traceFieldResolvers } from '../graphql/tracing';

export interface StartedApp {
  app: Runtime;
  installation: Installation;
}

/**
 * The database with its pending migrations run, the token key and the installation rows: what a
 * cluster's primary does once before forking its workers (src/app/cluster-primary.ts).
 */
export async function setUpDatabase(config: Config, onDbError?: (msg: string) => void): Promise<{ ds: DataSource; tokenKey: string; installation: Installation }> {
  installPlugins();
  // Before the database opens: its statements are traced from the start (OTEL_EXPORTER_OTLP_ENDPOINT).
  startTracing(config);
  const ds = await openAppDatabase(config.DATABASE_URL, onDbError);
  try {
    await ds.runMigrations({ transaction: 'each' });
    const tokenKey = await tokenKeyOf(config, ds);
    return { ds, tokenKey, installation: await ensureInstallation(ds, tokenKey, config.LMS_ADMIN_TOKEN) };
  } catch (e) {
    await ds.destroy().catch(() => undefined);
    throw e;
  }
}

function runtime(config: Config, ds: DataSource, tokenKey: string): Runtime {
  const pubsub = createAppPubSub(config.REDIS_URL);
  setProcessPubSub(pubsub);
  const schema = buildAppSchema();
  traceFieldResolvers(schema);
  return { config, ds, tokenKey, schema, pubsub };
}

/** Database, pending migrations, installation rows and the schema: everything but the HTTP server. */
export async function prepareApp(config: Config, onDbError?: (msg: string) => void): Promise<StartedApp> {
  const { ds, tokenKey, installation } = await setUpDatabase(config, onDbError);
  return { app: runtime(config, ds, tokenKey), installation };
}

/** A cluster worker's app: its primary has already migrated the database and set up the installation. */
export async function joinApp(config: Config): Promise<Runtime> {
  installPlugins();
  startTracing(config);
  const ds = await openAppDatabase(config.DATABASE_URL);
  return runtime(config, ds, await tokenKeyOf(config, ds));
}
