import fs from 'node:fs';
import path from 'node:path';
import { openAppDatabase as openDatabase } from '../src/app/database';
import { schemaSdl } from '../src/app/print-schema';
import { testDatabase } from './support/db';

describe('schema.graphql', () => {
  it('is the schema the code builds (run `npm run schema` after changing types)', () => {
    const committed = fs.readFileSync(path.join(__dirname, '..', 'schema.graphql'), 'utf8');
    expect(committed).toBe(schemaSdl());
  });
});

describe('migrations', () => {
  it('create exactly the schema the entities describe, so no further change is needed', async () => {
    const db = testDatabase();
    const ds = await openDatabase(db.url);
    try {
      const ran = await ds.runMigrations({ transaction: 'each' });
      expect(ran.length).toBeGreaterThan(0);
      const pending = await ds.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
      expect(await ds.showMigrations()).toBe(false);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });

  it('can be reverted and applied again', async () => {
    const db = testDatabase();
    const ds = await openDatabase(db.url);
    try {
      const ran = await ds.runMigrations({ transaction: 'each' });
      for (let i = 0; i < ran.length; i++) await ds.undoLastMigration({ transaction: 'each' });
      expect(await ds.showMigrations()).toBe(true);
      await ds.runMigrations({ transaction: 'each' });
      expect((await ds.driver.createSchemaBuilder().log()).upQueries).toEqual([]);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });
});
