import type { Config } from '../config';
import { DataModel, openDatabase } from '../db/data-source';
import { MigrationExecutor } from 'typeorm';
import { CliOutput, describeDatabase, println } from './common';
import { progress } from './progress';

/** Runs pending migrations on DATABASE_URL (creating a MySQL database if needed); returns the names that ran. */
export async function migrate(config: Config, out: CliOutput, model: DataModel): Promise<string[]> {
  const ds = await openDatabase(config.DATABASE_URL, model);
  try {
    const pending = (await new MigrationExecutor(ds).getPendingMigrations()).length;
    const bar = progress(out, 'Migrating:');
    // TypeORM reports each migration it finished through the logger; count them for the progress line.
    const logSchemaBuild = ds.logger.logSchemaBuild.bind(ds.logger);
    let done = 0;
    ds.logger.logSchemaBuild = (message, runner) => {
      const m = /^Migration (\S+) has been/.exec(message);
      if (m) bar.update(++done, pending, m[1]);
      return logSchemaBuild(message, runner);
    };
    if (pending) bar.update(0, pending);
    let ran;
    try {
      ran = await ds.runMigrations({ transaction: 'each' });
    } finally {
      bar.end();
      ds.logger.logSchemaBuild = logSchemaBuild;
    }
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
