import type { GraphQLSchema } from 'graphql';
import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { AppPubSub } from '../messaging/pubsub';

/** Process-wide state shared by every request: the database, the schema and the secrets. */
export interface Runtime {
  config: Config;
  ds: DataSource;
  schema: GraphQLSchema;
  /** Key for the access-token HMAC (LMS_SECRET_KEY, or one generated and kept in the database). */
  tokenKey: string;
  /** GraphQL subscription fan-out: in-process, or Redis with REDIS_URL (src/messaging/pubsub.ts). */
  pubsub: AppPubSub;
}
