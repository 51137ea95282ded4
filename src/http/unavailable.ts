import type { BaseContext, GraphQLRequestContextWillSendResponse } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { isDbUnavailable, RETRY_AFTER_SECONDS, UNAVAILABLE_BODY, UNAVAILABLE_MESSAGE } from '../db/unavailable';

/**
 * The three places an unreachable database surfaces, answered alike: HTTP 503, `Retry-After`, and a
 * JSON body (REST: Canvas's error shape; GraphQL: extensions.code SERVICE_UNAVAILABLE). Nothing of the
 * driver's message reaches the client; the log gets its name and code only.
 */

export const SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE';

export function logUnavailable(req: FastifyRequest, err: unknown): void {
  const e = err as { name?: unknown; code?: unknown };
  req.log.warn({ err: { name: String(e?.name ?? 'Error'), code: typeof e?.code === 'string' ? e.code : undefined } }, 'database unavailable');
}

/** REST and plain routes (the router's unexpected-error path and the Fastify error handler). */
export function sendUnavailable(req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  logUnavailable(req, err);
  return reply.code(503).header('Retry-After', String(RETRY_AFTER_SECONDS)).type('application/json; charset=utf-8').send(UNAVAILABLE_BODY);
}

/** For a failure before execution (authenticating in the GraphQL context): Apollo answers it as given. */
export function unavailableGraphqlError(): GraphQLError {
  return new GraphQLError(UNAVAILABLE_MESSAGE, {
    extensions: { code: SERVICE_UNAVAILABLE, http: { status: 503, headers: new Map([['retry-after', String(RETRY_AFTER_SECONDS)]]) } },
  });
}

/** For the GraphQL context function: a connection-class failure becomes the 503 error, others go on. */
export function rethrowUnavailable(err: unknown): never {
  throw isDbUnavailable(err) ? unavailableGraphqlError() : err;
}

/** The public shape of a resolver's connection-class failure (formatError). */
export const unavailableFormatted = (path: readonly (string | number)[] | undefined) => ({
  message: UNAVAILABLE_MESSAGE,
  path,
  extensions: { code: SERVICE_UNAVAILABLE },
});

/** A resolver that hit an unreachable database turns the whole GraphQL response into a 503 (Apollo's willSendResponse). */
export function answerUnavailable({ errors, response }: Pick<GraphQLRequestContextWillSendResponse<BaseContext>, 'errors' | 'response'>): void {
  if (!errors?.some((e) => isDbUnavailable(e))) return;
  response.http.status = 503;
  response.http.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
}
