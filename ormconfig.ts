import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config';
import { dataSourceOptions } from './src/db/data-source';

/** The DataSource for the TypeORM CLI (`npm run typeorm -- migration:run`), configured by DATABASE_URL. */
export default new DataSource(dataSourceOptions(loadConfig().DATABASE_URL));
