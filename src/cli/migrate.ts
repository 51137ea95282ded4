import type { Config } from '../config';
import { DataModel, openDatabase } from '../db/data-source';
import { CliOutput, describeDatabase, println } from './common';

/** Runs pending migrations on DATABASE_URL (creating a MySQL database if needed); returns the names that ran. */
export async function migrate(config: Config, out: CliOutput, model: DataModel): Promise<string[]> {
  const ds = await openDatabase(config.DATABASE_URL, model);
  try {
    const ran = await ds.runMigrations({ transaction: 'each' });
    if (ran.length === 0) println(out, `No pending migrations (${describeDatabase(config.DATABASE_URL)}).`);
    else {
      println(out, `Ran ${ran.length} migration(s) on ${describeDatabase(config.DATABASE_URL)}:`);
      for (const m of ran) println(out, `  ${m.name}`);
    }
    return ran.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
