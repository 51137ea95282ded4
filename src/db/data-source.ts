import fs from 'node:fs';
import path from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { SnakeNamingStrategy } from './naming';
import { CountingLogger } from './query-counter';
import { traceQueries } from './traced-queries';

/** What a database holds: the entity classes and the migrations that build their tables (listed in src/app/database.ts). */
export interface DataModel {
  entities: NonNullable<DataSourceOptions['entities']>;
  migrations: NonNullable<DataSourceOptions['migrations']>;
}

export type DbKind = 'sqlite' | 'mysql';

export function dbKind(url: string): DbKind {
  return url.startsWith('mysql://') ? 'mysql' : 'sqlite';
}

/** Builds TypeORM options from DATABASE_URL: `sqlite:<path>`, `sqlite::memory:` or `mysql://…/db`. */
export function dataSourceOptions(url: string, model: DataModel, onDbError?: (msg: string) => void, flavor: 'mysql' | 'mariadb' = 'mysql'): DataSourceOptions {
  const common = {
    entities: model.entities,
    migrations: model.migrations,
    namingStrategy: new SnakeNamingStrategy(),
    logging: ['query', 'error', 'warn'] as ('query' | 'error' | 'warn')[],
    logger: new CountingLogger(onDbError),
    synchronize: false,
    migrationsRun: false,
  };
  if (dbKind(url) === 'mysql') {
    return {
      ...common,
      // TypeORM reads MariaDB's catalog differently from MySQL's (column defaults), so say which it is.
      type: flavor,
      url,
      timezone: 'Z',
      charset: 'utf8mb4_unicode_ci',
      supportBigNumbers: true,
      bigNumberStrings: false,
      extra: { connectionLimit: 10 },
    };
  }
  const file = url.slice('sqlite:'.length);
  const database = file === ':memory:' ? ':memory:' : path.resolve(file);
  if (database !== ':memory:') fs.mkdirSync(path.dirname(database), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database,
    // WAL lets readers proceed while a writer commits; busy_timeout rides out short write locks.
    prepareDatabase: (db: { pragma(s: string): unknown; prepare(sql: string): unknown }) => {
      db.pragma('journal_mode = WAL');
      // In WAL mode NORMAL syncs at checkpoints, not at every commit: a commit survives a crash of the
      // process (the dispatcher's SIGKILL test), only a power loss may undo the last few. FULL's sync
      // per commit blocked the event loop for milliseconds per transaction (webhook README, Throughput).
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      if (database !== ':memory:') writeTransactionsUpFront(db);
    },
  };
}

/**
 * Another process may write the same file (WEB_CONCURRENCY workers, `cli dispatch`). A transaction
 * that read first and then writes cannot take the write lock once another process has committed
 * since its read began (SQLITE_BUSY_SNAPSHOT, which busy_timeout does not wait out), so TypeORM's
 * `BEGIN TRANSACTION` becomes `BEGIN IMMEDIATE`: the write lock is taken (waiting up to busy_timeout)
 * before the first read. Within one process transactions are already queued (src/db/transaction.ts).
 */
function writeTransactionsUpFront(db: { prepare(sql: string): unknown }): void {
  const prepare = db.prepare.bind(db);
  db.prepare = (sql: string) => prepare(sql === 'BEGIN TRANSACTION' ? 'BEGIN IMMEDIATE TRANSACTION' : sql);
}

/**
 * For MySQL, creates the database named in the URL when it does not exist yet, and tells whether the
 * server is MySQL or MariaDB.
 */
export async function ensureDatabaseExists(url: string): Promise<'mysql' | 'mariadb'> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  u.pathname = '/';
  const admin = new DataSource({ type: 'mysql', url: u.toString() });
  await admin.initialize();
  try {
    await admin.query(
      `CREATE DATABASE IF NOT EXISTS \`${name.replace(/`/g, '')}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
    const [{ v }] = await admin.query('SELECT VERSION() AS v');
    return String(v).toLowerCase().includes('mariadb') ? 'mariadb' : 'mysql';
  } finally {
    await admin.destroy();
  }
}

export async function openDatabase(url: string, model: DataModel, onDbError?: (msg: string) => void): Promise<DataSource> {
  const flavor = dbKind(url) === 'mysql' ? await ensureDatabaseExists(url) : undefined;
  const ds = new DataSource(dataSourceOptions(url, model, onDbError, flavor));
  await ds.initialize();
  traceQueries(ds);
  return ds;
}
