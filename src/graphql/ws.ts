import type { FastifyBaseLogger } from 'fastify';
import type { IncomingMessage, Server } from 'node:http';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { AppServices } from '../app-services';
import { getOperationAST, GraphQLError } from 'graphql';
import type { WebSocket } from 'ws';
import { bearerToken } from '../auth/authenticate';
import { SocketAuth } from '../auth/socket-auth';
import { originSettings, requestOrigin } from '../common/origin';
import { User } from '../users/user.entity';
import { AccessToken } from '../auth/access-token.entity';
import type { ToolProxy } from '../lti/tool-proxy.entity';
import { createContext } from './context';
import { formatResultErrors } from './format-error';
import type { Throttle } from '../http/throttle';
import { throttleGraphqlWs } from '../http/throttle-ws';
import { chargeCost, graphqlLimits } from './limits';
import { prepareWsOperation } from './ws-limits';
import { startBudget } from './budget';
import { countSubscription } from '../metrics/metrics';

interface ConnectionExtra {
  request: IncomingMessage;
  socket: WebSocket;
  /** The connection's credentials, re-checked before every operation and event (src/auth/socket-auth.ts). */
  auth?: SocketAuth;
  viewer?: User;
  token?: AccessToken;
  /** A tool that connected with its LTI JWT access token (instead of a user's token). */
  tool?: ToolProxy;
}

/**
 * graphql-ws on the same port and path as HTTP GraphQL. The token comes in connection_init
 * (`{"Authorization": "Bearer …"}`): a user's access token, or an LTI tool's JWT access token (from
 * /api/lti/…/authorize, for `webhookMessages`); a missing or bad one closes the socket with 4403.
 * With a throttle, connection_init and each operation are charged to the token's bucket.
 */
export function attachGraphqlWs(server: Server, app: AppServices, log: FastifyBaseLogger, throttle: Throttle | null = null) {
  const limits = graphqlLimits(app.config);
  const origin = originSettings(app.config);
  // A frame past maxPayload closes the socket with 1009 before it is buffered (the ws default is 100 MiB).
  const wss = new WebSocketServer({ server, path: '/graphql', maxPayload: app.config.GRAPHQL_WS_MAX_PAYLOAD_BYTES });
  const disposable = useServer<Record<string, unknown>, Partial<ConnectionExtra>>(
    throttleGraphqlWs({
      schema: app.schema,
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const header = (params.Authorization ?? params.authorization) as string | undefined;
        const host = new URL(requestOrigin(origin, ctx.extra.request)).host;
        const auth = await SocketAuth.connect(app, bearerToken(header), host);
        if (!auth) return false;
        Object.assign(ctx.extra as object, { auth, viewer: auth.viewer ?? undefined, token: auth.token ?? undefined, tool: auth.tool ?? undefined });
        return true;
      },
      // Every operation gets HTTP GraphQL's limits (tokens, depth, aliases, directives, introspection, cost).
      onSubscribe: async (ctx, _id, payload) => {
        const extra = ctx.extra as ConnectionExtra;
        // Re-authenticated per operation: a revoked token or deleted user ends the socket.
        if (!(await stillAuthorized(extra))) return [new GraphQLError('Invalid access token.', { extensions: { code: 'UNAUTHENTICATED' } })];
        const prepared = prepareWsOperation(app.schema, limits, payload, Boolean(extra.viewer || extra.tool));
        if ('errors' in prepared) return prepared.errors;
        // Charged to the socket's upgrade request, where the graphql-ws throttle reads each operation's cost.
        chargeCost(extra.request, limits, prepared.cost);
        return prepared.args;
      },
      // A subscription's stream, counted while it is live (lms_graphql_ws_subscriptions).
      onOperation: (_ctx, _id, _payload, _args, result) => countSubscription(result),
      // And per subscription event: nothing more reaches a socket whose token was revoked meanwhile.
      // Errors are shaped as over HTTP: no driver message or stack reaches a socket.
      onNext: async (ctx, _id, _payload, args, result) => {
        if (getOperationAST(args.document, args.operationName)?.operation === 'subscription') await stillAuthorized(ctx.extra as ConnectionExtra);
        return formatResultErrors(result as { errors?: readonly GraphQLError[] }) as typeof result;
      },
      // A fresh context (and loader cache) per operation: a connection lives far longer than a request.
      // Queries and mutations get the execution budget (src/graphql/budget.ts); a subscription's context
      // serves every one of its events, each bounded by the estimate of its selection.
      context: (ctx, _id, _payload, args) => {
        const extra = ctx.extra as ConnectionExtra;
        const context = createContext({
          app,
          viewer: extra.viewer ?? null,
          token: extra.token ?? null,
          tool: extra.tool ?? null,
          baseUrl: requestOrigin(origin, extra.request),
          log,
        });
        if (getOperationAST(args.document, args.operationName)?.operation !== 'subscription') startBudget(context, limits.budget);
        return context;
      },
    }, throttle, app.tokenKey),
    wss,
  );
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
      for (const client of wss.clients) client.close(1001, 'Server shutting down');
      await disposable.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/**
 * Re-checks the socket's credentials and refreshes who it acts as. When they no longer hold, the
 * socket closes with 4403 (as a refused connection_init does) before anything is run or sent: a
 * closing socket sends nothing more, and closing ends every subscription on it.
 */
async function stillAuthorized(extra: ConnectionExtra): Promise<boolean> {
  const auth = extra.auth;
  if (auth && (await auth.recheck())) {
    Object.assign(extra, { viewer: auth.viewer ?? undefined, token: auth.token ?? undefined, tool: auth.tool ?? undefined });
    return true;
  }
  Object.assign(extra, { viewer: undefined, token: undefined, tool: undefined });
  extra.socket.close(4403, 'Forbidden');
  return false;
}
