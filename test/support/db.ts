import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';

/**
 * Each test file gets a fresh database: an in-memory SQLite one by default, or a uniquely named
 * MariaDB/MySQL database on the server DATABASE_URL points at (dropped again when the file ends).
 */
export interface TestDatabase {
  url: string;
  kind: 'sqlite' | 'mysql';
  drop(): Promise<void>;
}

export function testDatabase(): TestDatabase {
  const base = process.env.DATABASE_URL;
  if (!base || !base.startsWith('mysql://')) return { url: 'sqlite::memory:', kind: 'sqlite', drop: async () => undefined };
  const u = new URL(base);
  const name = `lms_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    kind: 'mysql',
    async drop() {
      const admin = new URL(base);
      admin.pathname = '/';
      const ds = new DataSource({ type: 'mysql', url: admin.toString() });
      await ds.initialize();
      try {
        await ds.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await ds.destroy();
      }
    },
  };
}
