import type { FastifyBaseLogger } from 'fastify';
import type { IncomingMessage, Server } from 'node:http';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Runtime } from '../request/runtime';
import { execute, getOperationAST, GraphQLError, subscribe, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { WebSocket } from 'ws';
import { bearerToken } from '../auth/authenticate';
import { LiveSockets, type LiveSocket } from '../auth/live-sockets';
import { SocketAuth } from '../auth/socket-auth';
import { originSettings, requestOrigin } from '../common/origin';
import { User } from '../users/user.entity';
import { AccessToken } from '../auth/access-token.entity';
import type { ToolProxy } from '../lti/tool-proxy.entity';
import { createContext } from '../auth/request-context';
import { formatResultErrors } from './format-error';
import type { Throttle } from '../http/throttle';
import { throttleGraphqlWs } from '../http/throttle-ws';
import { clientKey } from '../http/throttle-key';
import { chargeCost, graphqlLimits } from './limits';
import { coalescingKey, prepareWsOperation, tooManySubscriptions } from './ws-limits';
import { EventCharges, eventThrottled } from './ws-charges';
import { SubscriptionGroup } from './ws-groups';
import { startBudget } from './budget';
import { countSubscription } from '../common/metrics';
import { tracedWsRun } from './tracing';

interface ConnectionExtra {
  /**
   * The upgrade request until the socket is accepted; then a stand-in carrying only what is read
   * later (the key operation costs are registered under), so a long-lived socket does not hold the
   * request's headers and streams.
   */
  request: IncomingMessage;
  /** The origin (scheme://host) the socket connected to, read once from the upgrade request. */
  origin?: string;
  socket: WebSocket;
  /** The connection's credentials, re-checked before every operation (src/auth/socket-auth.ts). */
  auth?: SocketAuth;
  viewer?: User;
  token?: AccessToken;
  /** A tool that connected with its LTI JWT access token (instead of a user's token). */
  tool?: ToolProxy;
  /** This socket in the instance's registry, which closes it when its token is revoked (src/auth/live-sockets.ts). */
  live?: LiveSocket;
  /** Ids of the socket's live subscriptions (capped by GRAPHQL_WS_MAX_SUBSCRIPTIONS). */
  subscriptions?: Set<string>;
  /** What scopes this socket's subscription groups when it has no token of its own (a tool's socket). */
  serial?: number;
  /** The throttle bucket delivered events are charged to (the socket's token's, as for its operations). */
  bucket?: string;
}

/** Execution arguments of a subscription, with its socket, id and the group key it shares a source under. */
const coalescable = new WeakMap<ExecutionArgs, { extra: ConnectionExtra; id: string; key: string }>();
let serials = 0;

/**
 * graphql-ws on the same port and path as HTTP GraphQL. The token comes in connection_init
 * (`{"Authorization": "Bearer …"}`): a user's access token, or an LTI tool's JWT access token (from
 * /api/lti/…/authorize, for `webhookMessages`); a missing or bad one closes the socket with 4403.
 * With a throttle, connection_init, each operation and each delivered subscription event are charged
 * to the token's bucket. A token holds at most GRAPHQL_WS_MAX_SOCKETS_PER_TOKEN sockets on an instance
 * (one more closes with 1008) and a socket at most GRAPHQL_WS_MAX_SUBSCRIPTIONS subscriptions;
 * identical subscriptions of one token (on any of its sockets) share one source (ws-groups.ts).
 */
export function attachGraphqlWs(server: Server, app: Runtime, log: FastifyBaseLogger, throttle: Throttle | null = null) {
  const limits = graphqlLimits(app.config);
  const origin = originSettings(app.config);
  // A frame past maxPayload closes the socket with 1009 before it is buffered (the ws default is 100 MiB).
  const wss = new WebSocketServer({ server, path: '/graphql', maxPayload: app.config.GRAPHQL_WS_MAX_PAYLOAD_BYTES });
  const sockets = new LiveSockets(app, app.config.GRAPHQL_WS_REVERIFY_MS);
  const charges = throttle ? new EventCharges(throttle, app.config.GRAPHQL_WS_EVENT_COST) : null;
  const maxSubscriptions = app.config.GRAPHQL_WS_MAX_SUBSCRIPTIONS;
  const disposable = useServer<Record<string, unknown>, Partial<ConnectionExtra>>(
    throttleGraphqlWs({
      schema: app.schema,
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const header = (params.Authorization ?? params.authorization) as string | undefined;
        const base = requestOrigin(origin, ctx.extra.request);
        const host = new URL(base).host;
        const bearer = bearerToken(header);
        const bucket = throttle ? await clientKey(app.tokenKey, bearer, ctx.extra.request?.socket.remoteAddress ?? '') : undefined;
        const auth = await SocketAuth.connect(app, bearer, host);
        if (!auth) return false;
        const extra = ctx.extra as ConnectionExtra;
        const live: LiveSocket = { auth, revoke: () => refuse(extra) };
        // Counted and filed in one step (no await between), so concurrent connects cannot pass the cap together.
        if (sockets.count(live) >= app.config.GRAPHQL_WS_MAX_SOCKETS_PER_TOKEN) {
          extra.socket.close(1008, 'Too many sockets for this token');
          return false;
        }
        sockets.add(live);
        Object.assign(extra, { auth, live, bucket, origin: base, subscriptions: new Set(), serial: ++serials });
        extra.request = { socket: { remoteAddress: extra.request.socket?.remoteAddress } } as IncomingMessage;
        // The credentials were checked: the socket keeps no copy of its bearer token.
        const kept = ctx.connectionParams as Record<string, unknown> | undefined;
        if (kept) delete kept.Authorization, delete kept.authorization;
        refresh(extra);
        return true;
      },
      // Every operation gets HTTP GraphQL's limits (tokens, depth, aliases, directives, introspection, cost).
      onSubscribe: async (ctx, id, payload) => {
        const extra = ctx.extra as ConnectionExtra;
        // Re-authenticated per operation: a revoked token or deleted user ends the socket.
        if (!(await stillAuthorized(extra))) return [new GraphQLError('Invalid access token.', { extensions: { code: 'UNAUTHENTICATED' } })];
        const prepared = prepareWsOperation(app.schema, limits, payload, Boolean(extra.viewer || extra.tool));
        if ('errors' in prepared) return prepared.errors;
        // graphql-ws keeps the payload while the operation lives: hold the cached copy of its text instead.
        (payload as { query: string }).query = prepared.query;
        if (prepared.subscription) {
          const live = extra.subscriptions!;
          if (live.size >= maxSubscriptions) return [tooManySubscriptions(maxSubscriptions)];
          live.add(id);
          coalescable.set(prepared.args, { extra, id, key: groupKey(extra, payload) });
          // The group's first subscription builds the context (sharedSubscribe); the others need none.
          prepared.args.contextValue = undefined;
        }
        // Charged to the socket's upgrade request, where the graphql-ws throttle reads each operation's cost.
        chargeCost(extra.request, limits, prepared.cost);
        return prepared.args;
      },
      // A span per operation while tracing is on (src/graphql/tracing.ts); graphql-js's own execute otherwise.
      execute: tracedWsRun(execute),
      subscribe: tracedWsRun(sharedSubscribe),

      // A subscription's stream, counted while it is live (lms_graphql_ws_subscriptions).
      onOperation: (_ctx, _id, _payload, _args, result) => countSubscription(result),
      // No read per event: a revoked token's sockets are closed by the registry (src/auth/live-sockets.ts).
      // Subscription events are delivered (and charged) by their group (ws-groups.ts), not through here.
      // Errors are shaped as over HTTP: no driver message or stack reaches a socket.
      onNext: async (ctx, id, _payload, _args, result) => {
        const extra = ctx.extra as ConnectionExtra;
        if (charges && extra.bucket && extra.subscriptions?.has(id) && !charges.charge(extra.bucket)) throw eventThrottled();
        return formatResultErrors(result as { errors?: readonly GraphQLError[] }) as typeof result;
      },
      onError: (ctx, id) => void (ctx.extra as ConnectionExtra).subscriptions?.delete(id),
      onComplete: (ctx, id) => void (ctx.extra as ConnectionExtra).subscriptions?.delete(id),
      onClose: (ctx) => {
        const extra = ctx.extra as ConnectionExtra;
        if (extra.live) sockets.remove(extra.live);
      },
      // A fresh context (and loader cache) per operation: a connection lives far longer than a request.
      // Queries and mutations get the execution budget (src/graphql/budget.ts); a subscription's context
      // serves every one of its events, each bounded by the estimate of its selection.
      context: (ctx, _id, _payload, args) => {
        const context = contextOf(ctx.extra as ConnectionExtra);
        if (getOperationAST(args.document, args.operationName)?.operation !== 'subscription') startBudget(context, limits.budget);
        return context;
      },
    }, throttle, app.tokenKey),
    wss,
  );
  function contextOf(extra: ConnectionExtra) {
    return createContext({
      app,
      viewer: extra.viewer ?? null,
      token: extra.token ?? null,
      tool: extra.tool ?? null,
      baseUrl: extra.origin ?? requestOrigin(origin, extra.request),
      log,
    });
  }

  /** Groups being created (a promise) or live, by groupKey(). */
  const groups = new Map<string, Promise<SubscriptionGroup | null>>();
  const groupCharges = charges && { charge: (bucket: string, n: number) => charges.charge(bucket, n), refused: eventThrottled };

  /**
   * graphql-ws's subscribe: a subscription identical to a live one of the same token joins that one's
   * group (one pubsub listener, each event executed and serialised once); the first one of a key runs
   * graphql's subscribe with its socket's context and starts the group.
   */
  async function sharedSubscribe(args: ExecutionArgs): Promise<ExecutionResult | AsyncGenerator<ExecutionResult>> {
    const c = coalescable.get(args);
    if (!c) return subscribe(args);
    // Read once: graphql-ws holds the arguments for the subscription's life, the key need not be.
    coalescable.delete(args);
    const { extra, id, key } = c;
    const existing = await groups.get(key);
    if (existing?.open) return existing.join(extra.socket, id, extra.bucket);
    // Claimed before the first await, so an identical subscribe arriving meanwhile waits for this one.
    let settle!: (g: SubscriptionGroup | null) => void;
    const claim = new Promise<SubscriptionGroup | null>((resolve) => (settle = resolve));
    groups.set(key, claim);
    try {
      const result = await subscribe({ ...args, contextValue: contextOf(extra) });
      if (!(Symbol.asyncIterator in Object(result))) {
        settle(null);
        return result as ExecutionResult;
      }
      const source = (result as AsyncIterable<ExecutionResult>)[Symbol.asyncIterator]();
      const group = new SubscriptionGroup(source, groupCharges, () => groups.get(key) === claim && groups.delete(key));
      settle(group);
      return group.join(extra.socket, id, extra.bucket);
    } catch (e) {
      settle(null);
      throw e;
    } finally {
      if ((await claim) === null && groups.get(key) === claim) groups.delete(key);
    }
  }

  // ws re-emits the HTTP server's own errors here, and graphql-ws prints them to stderr with their
  // stack: on a busy port that came before the one clear line main.ts prints. listen() already rejects
  // with the same error, so whoever started the server reports it.
  wss.removeAllListeners('error');
  wss.on('error', () => undefined);
  // graphql-ws prints a socket's errors (such as a frame past maxPayload, which ws has already answered
  // with 1009) to stderr with their stack; log one line without it instead. This listener runs after
  // graphql-ws's own connection handler, so its error listener is there to be replaced.
  wss.on('connection', (socket) => {
    socket.removeAllListeners('error');
    socket.on('error', (err: Error & { code?: string }) => {
      log.warn({ err: { name: err.name, message: err.message, code: err.code } }, 'graphql-ws socket error');
      if (socket.readyState === socket.OPEN) socket.close(1011, 'Internal server error');
    });
  });
  return {
    wss,
    async close(): Promise<void> {
      sockets.close();
      charges?.close();
      for (const client of wss.clients) client.close(1001, 'Server shutting down');
      await disposable.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/**
 * What makes subscriptions share a group: the same document, operation and variables (coalescingKey),
 * the same origin (results may carry URLs), and the same token and user, so the same authority; a
 * tool's socket shares only with itself.
 */
function groupKey(extra: ConnectionExtra, payload: Parameters<typeof coalescingKey>[0]): string {
  const who = extra.token && extra.viewer ? `t${extra.token.id}:${extra.token.cryptedToken}:u${extra.viewer.id}` : `s${extra.serial}`;
  return `${who} ${extra.origin} ${coalescingKey(payload)}`;
}

/** Copies the socket's current credentials to the extra the context reads. */
function refresh(extra: ConnectionExtra): void {
  const auth = extra.auth;
  Object.assign(extra, { viewer: auth?.viewer ?? undefined, token: auth?.token ?? undefined, tool: auth?.tool ?? undefined });
}

/** Closes the socket with 4403 (as a refused connection_init does): a closing socket sends nothing more. */
function refuse(extra: ConnectionExtra): void {
  Object.assign(extra, { viewer: undefined, token: undefined, tool: undefined });
  extra.socket.close(4403, 'Forbidden');
}

/**
 * Re-checks the socket's credentials and refreshes who it acts as. When they no longer hold, the
 * socket closes with 4403 before anything is run or sent; closing ends every subscription on it.
 */
async function stillAuthorized(extra: ConnectionExtra): Promise<boolean> {
  if (extra.auth && (await extra.auth.recheck())) {
    refresh(extra);
    return true;
  }
  refuse(extra);
  return false;
}
