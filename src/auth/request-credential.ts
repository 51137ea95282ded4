import type { FastifyRequest } from 'fastify';
import { bearerToken } from './authenticate';

/**
 * Which access token a route authenticates with, declared once on the route (Fastify route config)
 * and read both by the route and by the throttle, so that a request is charged to the credential that
 * really authenticates it. (The throttle once read the query string while REST authenticated with
 * the body's access_token, so a random decoy in the query gave every request a fresh bucket.)
 */
export interface RouteCredential {
  /** The token the route authenticates with, or null (none: anonymous). Called once the body is parsed. */
  token(req: FastifyRequest): string | null;
  /**
   * token() may read the body: without a Bearer header (which wins wherever it is accepted) the
   * throttle waits for the body to be parsed before naming the bucket.
   */
  readsBody: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    credential?: RouteCredential;
  }
}

/** What a route that declares nothing authenticates with (GraphQL over HTTP, 404s): the Authorization header only. */
export const HEADER_CREDENTIAL: RouteCredential = { readsBody: false, token: (req) => bearerToken(req.headers.authorization) };

/** Header, else the query string's access_token (downloads, whose links carry the token). */
export const HEADER_OR_QUERY_CREDENTIAL: RouteCredential = {
  readsBody: false,
  token: (req) => bearerToken(req.headers.authorization, (req.query as Record<string, unknown> | undefined)?.access_token),
};

export function routeCredential(req: FastifyRequest): RouteCredential {
  return (req.routeOptions.config as { credential?: RouteCredential } | undefined)?.credential ?? HEADER_CREDENTIAL;
}
