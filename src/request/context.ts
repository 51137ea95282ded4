import type { FastifyBaseLogger } from 'fastify';
import type { DataSource } from 'typeorm';
import { Loaders } from '../db/loaders';
import type { Runtime } from './runtime';

/**
 * The request kernel: everything one request carries, whichever door (REST, GraphQL, graphql-ws, CLI) it
 * came through. It knows nothing of areas or doors; who is asking (viewer, token, authz) is added by
 * src/auth/request-context.ts, which declares those fields on this interface.
 */
export interface RequestContext {
  ds: DataSource;
  app: Runtime;
  loaders: Loaders;
  /** Absolute base URL the client used, for Link headers and html_url fields. */
  baseUrl: string;
  log: FastifyBaseLogger;
  /** The HTTP request behind this context (REST and HTTP GraphQL), without credentials; absent for graphql-ws and the CLI. */
  request?: RequestMeta;
  /**
   * The request's instance of a service class, made on first use. A service names what it calls with a
   * real import (`ctx.use(CourseService)`), so readers and the dependency rule see every dependency;
   * one instance per request keeps the per-request caches services hold.
   */
  use<T>(service: new (ctx: RequestContext) => T): T;
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

/** The kernel part of a context; src/auth/request-context.ts adds who is asking. */
export function createBaseContext(args: { app: Runtime; baseUrl: string; log: FastifyBaseLogger }): RequestContext {
  const made = new Map<Function, unknown>();
  const ctx = {
    ds: args.app.ds,
    app: args.app,
    loaders: new Loaders(args.app.ds),
    baseUrl: args.baseUrl,
    log: args.log,
    use<T>(service: new (c: RequestContext) => T): T {
      let s = made.get(service) as T | undefined;
      if (s === undefined) {
        s = new service(ctx);
        made.set(service, s);
      }
      return s;
    },
  } as RequestContext;
  return ctx;
}
