import type { FastifyBaseLogger } from 'fastify';
import type { DataSource } from 'typeorm';
import { Authz } from '../auth/authz';
import type { AccessToken } from '../auth/access-token.entity';
import type { User } from '../users/user.entity';
import type { AppServices } from './runtime';
import type { ToolProxy } from '../lti/tool-proxy.entity';
import { Loaders } from '../db/loaders';
import { Services } from '../services';

/** Everything a resolver needs for one request, whichever door (REST, GraphQL, graphql-ws) it came through. */
export interface RequestContext {
  ds: DataSource;
  app: AppServices;
  /** The user the request acts as (the masqueraded user when as_user_id is used). */
  viewer: User | null;
  /** The user who authenticated; differs from viewer while masquerading. */
  realUser: User | null;
  token: AccessToken | null;
  /** The LTI tool proxy a tool's JWT access token authenticated (viewer is then null). */
  tool: ToolProxy | null;
  loaders: Loaders;
  authz: Authz;
  services: Services;
  /** Absolute base URL the client used, for Link headers and html_url fields. */
  baseUrl: string;
  log: FastifyBaseLogger;
  /** The HTTP request behind this context (REST and HTTP GraphQL), without credentials; absent for graphql-ws and the CLI. */
  request?: RequestMeta;
}

/** What services may know of an HTTP request: no Authorization header, cookies or secret query values. */
export interface RequestMeta {
  id: string;
  method: string;
  path: string;
  /** The query string with access_token and other secrets replaced by [FILTERED]. */
  query: string;
  ip: string;
  protocol: string;
  host: string;
  httpVersion: string;
  /** Allow-listed headers only (accept*, host, referer, user-agent, content-type, x-forwarded-*). */
  headers: Record<string, string>;
}

export function createContext(args: {
  app: AppServices;
  viewer: User | null;
  realUser?: User | null;
  token?: AccessToken | null;
  tool?: ToolProxy | null;
  baseUrl: string;
  log: FastifyBaseLogger;
}): RequestContext {
  const { app } = args;
  const loaders = new Loaders(app.ds);
  const ctx = {
    ds: app.ds,
    app,
    viewer: args.viewer,
    realUser: args.realUser ?? args.viewer,
    token: args.token ?? null,
    tool: args.tool ?? null,
    loaders,
    authz: new Authz(app.ds, args.viewer, loaders),
    baseUrl: args.baseUrl,
    log: args.log,
  } as RequestContext;
  ctx.services = new Services(ctx);
  return ctx;
}
