import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import type { Context } from 'graphql-ws';
import type { ServerOptions } from 'graphql-ws';
import { bearerToken } from '../auth/authenticate';
import { requestCost } from '../common/request-cost';
import { metrics } from '../common/metrics';
import { clientKey } from './throttle-key';
import { Reservation, Throttle } from './throttle';

/**
 * The HTTP throttle for graphql-ws: a socket is charged to the same bucket as its token's HTTP
 * requests. connection_init and every operation (subscribe message) reserve and settle like an HTTP
 * request; a full bucket refuses the connection (4403) or the operation (an error message for that
 * operation id; the socket stays open).
 */

const THROTTLED = 'Rate Limit Exceeded';

interface Pending {
  reservation: Reservation;
  started: number;
  /** The socket's registered cost when the operation began (the GraphQL layer adds to it per operation). */
  registeredBefore: number;
}

interface SocketState {
  key: Promise<string>;
  pending: Map<string, Pending>;
}

/** The socket's upgrade request: its address, and the key the GraphQL layer registers costs under. */
const upgradeRequest = (ctx: Context<any, any>): IncomingMessage | undefined => (ctx.extra as { request?: IncomingMessage } | undefined)?.request;

const registeredCost = (ctx: Context<any, any>): number => {
  const req = upgradeRequest(ctx);
  return req ? requestCost(req) : 0;
};

export function throttleGraphqlWs<P extends Record<string, unknown> | undefined, E>(
  options: ServerOptions<P, E>,
  throttle: Throttle | null,
  tokenKey: string,
): ServerOptions<P, E> {
  if (!throttle) return options;
  const sockets = new WeakMap<object, SocketState>();

  const state = (ctx: Context<P, E>): SocketState => {
    let s = sockets.get(ctx);
    if (!s) {
      const params = (ctx.connectionParams ?? {}) as Record<string, unknown>;
      const header = (params.Authorization ?? params.authorization) as unknown;
      const token = bearerToken(typeof header === 'string' ? header : undefined);
      const ip = upgradeRequest(ctx)?.socket.remoteAddress ?? '';
      // An unknown or revoked token is charged to the IP, as over HTTP.
      s = { key: throttle.bucketOf ? throttle.bucketOf(token, ip) : clientKey(tokenKey, token, ip), pending: new Map() };
      sockets.set(ctx, s);
    }
    return s;
  };

  const settle = async (ctx: Context<P, E>, id: string) => {
    const s = sockets.get(ctx);
    const p = s?.pending.get(id);
    if (!s || !p) return;
    s.pending.delete(id);
    const registered = registeredCost(ctx) - p.registeredBefore;
    await throttle.settle(p.reservation, (performance.now() - p.started) / 1000, Math.max(registered, 0));
  };

  return {
    ...options,
    onConnect: async (ctx) => {
      const started = performance.now();
      const result = await throttle.reserve(await state(ctx).key);
      if (!result.allowed) {
        metrics.rateLimited.inc({ door: 'graphql-ws' });
        return false;
      }
      try {
        return await options.onConnect?.(ctx);
      } finally {
        await throttle.settle(result.reservation, (performance.now() - started) / 1000, 0);
      }
    },
    onSubscribe: async (ctx, id, payload) => {
      const s = state(ctx);
      const result = await throttle.reserve(await s.key);
      if (!result.allowed) {
        metrics.rateLimited.inc({ door: 'graphql-ws' });
        // Retry-After's seconds, as over HTTP (RATE_LIMIT_STATUS=403 keeps the older error as it was).
        const extensions = throttle.status === 429 ? { code: 'RATE_LIMIT_EXCEEDED', retryAfter: result.retryAfter } : { code: 'RATE_LIMIT_EXCEEDED' };
        return [new GraphQLError(THROTTLED, { extensions })];
      }
      s.pending.set(id, { reservation: result.reservation, started: performance.now(), registeredBefore: registeredCost(ctx) });
      try {
        const out = await options.onSubscribe?.(ctx, id, payload);
        // Refused by a later check: what was done so far is the cost.
        if (Array.isArray(out)) await settle(ctx, id);
        return out;
      } catch (e) {
        await settle(ctx, id);
        throw e;
      }
    },
    // Queries and mutations have run by now; a subscription has been set up (its events cost nothing).
    onOperation: async (ctx, id, payload, args, result) => {
      await settle(ctx, id);
      return options.onOperation?.(ctx, id, payload, args, result);
    },
    onError: async (ctx, id, payload, errors) => {
      await settle(ctx, id);
      return options.onError?.(ctx, id, payload, errors);
    },
    onComplete: async (ctx, id, payload) => {
      await settle(ctx, id);
      return options.onComplete?.(ctx, id, payload);
    },
    onClose: async (ctx, code, reason) => {
      const s = sockets.get(ctx);
      if (s) await Promise.all([...s.pending.keys()].map((id) => settle(ctx, id)));
      return options.onClose?.(ctx, code, reason);
    },
  };
}
