import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config';
import { appDataSourceOptions } from './src/app/database';

/** The DataSource for the TypeORM CLI (`npm run typeorm -- migration:run`), configured by DATABASE_URL. */
export default new DataSource(appDataSourceOptions(loadConfig().DATABASE_URL));
