import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { migrations } from '../../migrations';
import { openAppDatabase } from '../../src/app/database';

/**
 * Each test file gets a fresh database: an in-memory SQLite one by default, or a uniquely named
 * MariaDB/MySQL database on the server DATABASE_URL points at (dropped again when the file ends).
 *
 * On MariaDB, running every migration for every server a test starts cost about 4 s (each ALTER and
 * index a round of DDL and information_schema reads), most of the suite's time on that engine.
 * `ready()` instead copies a migrated template (tables LIKE the template's, rows copied), made once
 * per set of migrations and kept on the server; the app then finds nothing pending. A caller that
 * does not await `ready()` (test/schema.test.ts, the CLI's migrate tests), or asks for { blank: true }
 * (processDatabases in test/support/process.ts), gets an empty database, which the app migrates itself
 * as in production.
 */
export interface TestDatabase {
  url: string;
  kind: 'sqlite' | 'mysql';
  /** Creates the database as a copy of the migrated template (MariaDB; nothing for SQLite or a blank one). */
  ready?(): Promise<void>;
  drop(): Promise<void>;
}

async function withServer<T>(base: string, fn: (ds: DataSource) => Promise<T>): Promise<T> {
  const admin = new URL(base);
  admin.pathname = '/';
  const ds = new DataSource({ type: 'mysql', url: admin.toString(), extra: { connectionLimit: 8 } });
  await ds.initialize();
  try {
    return await fn(ds);
  } finally {
    await ds.destroy();
  }
}

/**
 * The template's name follows the migrations' source (every file of migrations/, helpers included), so
 * a changed migration gets a new template.
 */
function templateName(): string {
  const hash = createHash('sha256');
  const dir = path.join(__dirname, '..', '..', 'migrations');
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.ts')).sort()) hash.update(`${f}\n${fs.readFileSync(path.join(dir, f), 'utf8')}\n`);
  return `lms_tpl_${hash.digest('hex').slice(0, 16)}`;
}

const tables = async (ds: DataSource, schema: string): Promise<string[]> =>
  ((await ds.query('SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [schema])) as { t: string }[]).map((r) => r.t);

/** The migrated template, built under a server-wide lock by the first test file that needs it. */
async function ensureTemplate(base: string, ds: DataSource, name: string): Promise<void> {
  const complete = async () => {
    if (!(await tables(ds, name)).includes('migrations')) return false;
    const [row] = await ds.query(`SELECT COUNT(*) AS n FROM \`${name}\`.migrations`);
    return Number(row.n) === migrations.length;
  };
  if (await complete()) return;
  const qr = ds.createQueryRunner();
  await qr.connect();
  try {
    await qr.query('SELECT GET_LOCK(?, 300)', [name]);
    if (await complete()) return;
    await qr.query(`DROP DATABASE IF EXISTS \`${name}\``);
    const u = new URL(base);
    u.pathname = `/${name}`;
    // The app's own opening creates the database with its character set; migrations run as at start-up.
    const app = await openAppDatabase(u.toString());
    try {
      await app.runMigrations({ transaction: 'each' });
    } finally {
      await app.destroy();
    }
  } finally {
    await qr.query('SELECT RELEASE_LOCK(?)', [name]).catch(() => undefined);
    await qr.release();
  }
}

export function testDatabase(opts: { blank?: boolean } = {}): TestDatabase {
  const base = process.env.DATABASE_URL;
  if (!base || !base.startsWith('mysql://')) return { url: 'sqlite::memory:', kind: 'sqlite', drop: async () => undefined };
  const u = new URL(base);
  const name = `lms_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    kind: 'mysql',
    async ready() {
      if (opts.blank) return;
      await withServer(base, async (ds) => {
        const tpl = templateName();
        await ensureTemplate(base, ds, tpl);
        await ds.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
        await Promise.all(
          (await tables(ds, tpl)).map(async (t) => {
            await ds.query(`CREATE TABLE \`${name}\`.\`${t}\` LIKE \`${tpl}\`.\`${t}\``);
            await ds.query(`INSERT INTO \`${name}\`.\`${t}\` SELECT * FROM \`${tpl}\`.\`${t}\``);
          }),
        );
      });
    },
    async drop() {
      await withServer(base, (ds) => ds.query(`DROP DATABASE IF EXISTS \`${name}\``));
    },
  };
}
