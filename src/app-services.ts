import type { GraphQLSchema } from 'graphql';
import type { DataSource } from 'typeorm';
import type { Config } from './config';

/** Process-wide state shared by every request: the database, the schema and the secrets. */
export interface AppServices {
  config: Config;
  ds: DataSource;
  schema: GraphQLSchema;
  /** Key for the access-token HMAC (LMS_SECRET_KEY, or one generated and kept in the database). */
  tokenKey: string;
}
