import type { DataSource, DataSourceOptions } from 'typeorm';
import { migrations } from '../../migrations';
import { dataSourceOptions, DataModel, openDatabase } from '../db/data-source';
import { entities } from './entities';

/** The service's data model: every area's entities (src/app/entities.ts) and the migrations. */
export const dataModel: DataModel = { entities, migrations };

/** The service's database at DATABASE_URL (a MySQL database is created when missing). */
export function openAppDatabase(url: string, onDbError?: (msg: string) => void): Promise<DataSource> {
  return openDatabase(url, dataModel, onDbError);
}

/** TypeORM options for the service's database, for the TypeORM CLI (ormconfig.ts) and tests. */
export function appDataSourceOptions(url: string, onDbError?: (msg: string) => void, flavor?: 'mysql' | 'mariadb'): DataSourceOptions {
  return dataSourceOptions(url, dataModel, onDbError, flavor);
}
