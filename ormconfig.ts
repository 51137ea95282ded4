import 'reflect-metadata';
import { AbstractLogger, DataSource, LogLevel, LogMessage } from 'typeorm';
import { loadConfig } from './src/config';
import { appDataSourceOptions } from './src/app/database';
import { dbKind, ensureDatabaseExists } from './src/db/data-source';

/**
 * The service's logger prints nothing of schema building, which is where TypeORM's CLI writes what it
 * has to say (`migration:show`'s `[X]`/`[ ]` lines), so the CLI gets one that prints schema and
 * migration messages, and errors, but never a statement's parameters (they may hold personal data or
 * token hashes) and no statements at all.
 */
class CliLogger extends AbstractLogger {
  constructor() {
    super(['schema', 'error', 'warn', 'info', 'log', 'migration']);
  }
  protected writeLog(level: LogLevel, message: LogMessage | LogMessage[]): void {
    for (const m of Array.isArray(message) ? message : [message]) {
      if (m.type === 'query') continue;
      // A failed statement's error arrives as an Error, whatever the type says.
      const body: unknown = m.message;
      const text = `${m.prefix ? `${m.prefix}: ` : ''}${body instanceof Error ? body.message : String(body)}`;
      if (level === 'warn' || level === 'error') console.error(text);
      else console.log(text);
    }
  }
}

/**
 * The DataSource for the TypeORM CLI (`npm run typeorm -- migration:show`), configured by DATABASE_URL.
 * The script loads the compiled dist/ormconfig.js, so the CLI needs no TypeScript loader. A promise
 * (the CLI awaits it) because, as at start-up, a MySQL database is created when it does not exist yet
 * and the server says whether it is MariaDB, whose catalog TypeORM reads differently.
 */
export default (async () => {
  const url = loadConfig().DATABASE_URL;
  const flavor = dbKind(url) === 'mysql' ? await ensureDatabaseExists(url) : undefined;
  return new DataSource({ ...appDataSourceOptions(url, undefined, flavor), logger: new CliLogger() });
})();
