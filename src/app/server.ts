import { randomUUID } from 'node:crypto';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import multipart from '@fastify/multipart';
import Fastify, { FastifyInstance, FastifyRequest, LogController } from 'fastify';
import { GraphQLError } from 'graphql';
import type { Runtime } from '../request/runtime';
import { HEADER_CREDENTIAL } from '../auth/request-credential';
import { isRestError, requestContext } from '../auth/request-auth';
import { tokenFlushOf } from '../auth/token-flush';
import { isHostValue, originSettings } from '../common/origin';
import { packageInfo } from '../common/package-info';
import { registerGraphiql } from '../graphiql/graphiql.routes';
import { registerHealth } from '../http/health';
import { registerLandingPage } from '../http/landing-page';
import { registerRequestTracing } from '../http/tracing-hooks';
import { countWsConnections } from '../common/metrics';
import { registerMetrics } from '../metrics/metrics.routes';
import { bindRawRequest, stringifyWithinLimit } from '../graphql/apollo-limits';
import { apolloFastifyHandler } from '../graphql/apollo-handler';
import { graphqlRequestHooks, graphqlRequestPlugin } from './graphql-plugin';
import type { RequestContext } from '../request/context';
import { graphqlLimits, limitRules, parseOptions } from '../graphql/limits';
import { attachGraphqlWs } from '../graphql/ws';
import { jitExecutor, jitGateway, jitRunner } from '../graphql/jit-executor';
import { GraphqlFastPath } from '../graphql/fast-path';
import { KnownOperations } from '../graphql/known-operations';
import { formatGraphqlError } from '../graphql/format-error';
import { isDbUnavailable } from '../db/unavailable';
import { Throttle } from '../http/throttle';
import { registerThrottle } from '../http/throttle-hooks';
import { rethrowUnavailable, sendUnavailable } from '../http/unavailable';
import { registerFileStorageRoutes } from '../files/file-storage.routes';
import { closeFileStore } from '../storage';
import { discardTempUploads, MULTIPART_LIMITS, readMultipartBody } from '../files/temp-uploads';
import { INTERNAL_BODY, NOT_FOUND_BODY } from '../api/rest/errors';
import { refuseGetSubscriptions } from '../graphql/http-subscriptions';
import { parsePairs } from '../api/rest/params';
import { baseUrl } from '../api/rest/request-meta';
import { registerRestRoutes } from '../rest/router';
import { restRoutes } from './routes';
import { openApiDocument } from '../rest/openapi';
import { registerEventCatalog } from '../event-catalog/catalog.routes';
import { requestMeta } from '../api/rest/request-meta';

export interface BuiltServer {
  fastify: FastifyInstance;
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export async function buildServer(app: Runtime): Promise<BuiltServer> {
  const fastify = Fastify({
    logger: {
      level: app.config.LOG_LEVEL,
      // Credentials never reach a log line, even if a future log call includes headers.
      redact: ['req.headers.authorization', 'headers.authorization', '*.access_token', '*.token', '*.password', '*.shared_secret'],
    },
    // One line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Forwarded headers count only from the proxies TRUST_PROXY names (none by default): a direct
    // client cannot choose the host of our links or the address it is throttled by.
    trustProxy: originSettings(app.config).trust,
    forceCloseConnections: 'idle',
    // While draining, requests already on open connections are still served in full.
    return503OnClosing: false,
  });
  // First of all hooks, so everything after runs inside the request's span (when tracing is on).
  registerRequestTracing(fastify);
  // Read by baseUrl(req): every absolute URL of a response comes from PUBLIC_URL or the trusted host.
  fastify.decorate('originSettings', originSettings(app.config));

  // Rails reads an empty body as no params whatever its declared type, and Canvas clients send
  // `Content-Type: application/json` on bodiless DELETEs and PUTs. A body that framing says is empty
  // (no Content-Length nor Transfer-Encoding, or Content-Length: 0) then skips content-type parsing,
  // which would refuse it (an empty JSON document, a multipart form without a boundary line, a type
  // with no parser); the route sees what it sees without a body.
  fastify.addHook('onRequest', async (req) => {
    const { headers } = req.raw;
    if (headers['content-type'] !== undefined && headers['transfer-encoding'] === undefined && (headers['content-length'] ?? '0') === '0') {
      delete headers['content-type'];
    }
  });
  // A chunked body is known to be empty only once read: for JSON too, empty means no params. Anything
  // else that is not JSON (whitespace included) stays the parser's 400.
  const jsonParser = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') return done(null, undefined);
    jsonParser(req, body as string, done);
  });
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 10 * 1024 * 1024 }, (_req, body, done) => {
    done(null, parsePairs(new URLSearchParams(body as string)));
  });
  await fastify.register(multipart, { limits: MULTIPART_LIMITS });
  // Multipart fields go through the same Rack parsing as forms; the one file part is streamed to a temp
  // file under FILES_DIR (req.uploadedFiles) for upload routes, and removed after the response.
  fastify.addHook('preValidation', async (req, reply) => {
    if (!req.isMultipart() || req.url.startsWith('/graphql')) return;
    // A refused body has been answered: returning the reply stops the route from running.
    if (!(await readMultipartBody(req, reply, app.config.FILES_DIR))) return reply;
  });
  fastify.addHook('onResponse', discardTempUploads);
  fastify.addHook('onRequestAbort', discardTempUploads);

  fastify.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
  // RFC 9112: a Host that is not a host name is a 400; no URL is ever built from it (Apollo's
  // integration would otherwise throw on it and answer 500).
  fastify.addHook('onRequest', async (req, reply) => {
    if (req.host && !isHostValue(req.host)) {
      return reply.code(400).type('application/json; charset=utf-8').send({ errors: [{ message: 'Invalid Host header' }] });
    }
  });
  // Other instances' token flushes are heard before the first request (token-flush.ts).
  await tokenFlushOf(app).ready;
  // Canvas's throttle (src/http/throttle.ts), before anything reads a body or the database.
  const throttle = Throttle.fromConfig(app.config, fastify.log);
  if (throttle) {
    await throttle.store.ready();
    registerThrottle(fastify, app, throttle);
  }
  fastify.addHook('onResponse', async (req, reply) => {
    req.log.info(
      { method: req.method, path: req.url.split('?')[0], status: reply.statusCode, durationMs: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    );
  });
  // Request durations by route pattern, and GET /metrics for scrapers holding METRICS_TOKEN.
  registerMetrics(fastify, app);

  fastify.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    if (isDbUnavailable(err)) return sendUnavailable(req, reply, err);
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) {
      req.log.error({ err: { name: err.name, message: err.message } }, 'unhandled error');
      return reply.code(500).type('application/json; charset=utf-8').send(INTERNAL_BODY);
    }
    return reply.code(status).type('application/json; charset=utf-8').send({ errors: [{ message: err.message }] });
  });
  fastify.setNotFoundHandler((_req, reply) =>
    reply.code(404).type('application/json; charset=utf-8').send(NOT_FOUND_BODY),
  );

  registerHealth(fastify, app);
  registerLandingPage(fastify);
  // GraphiQL from our own origin (Apollo's landing page, which loads from a CDN, is disabled below).
  const graphiqlForBrowsers = registerGraphiql(fastify, packageInfo().version);

  registerRestRoutes(fastify, app, restRoutes);
  // Built once from the route table's declared params; public, like Canvas's own API documentation.
  let openApi: unknown;
  fastify.get('/api/openapi.json', async (_req, reply) => {
    openApi ??= openApiDocument(restRoutes, { version: packageInfo().version });
    return reply.type('application/json; charset=utf-8').send(openApi);
  });
  // The event catalog (AsyncAPI): webhook events in both formats and transports, graphql-ws subscriptions.
  registerEventCatalog(fastify, () => ({ ...packageInfo(), graphqlSchema: app.schema, delivery: app.config }));
  registerFileStorageRoutes(fastify, app);

  // Client documents are bounded (src/graphql/limits.ts): tokens while parsing, depth/aliases/directives
  // in validation, introspection and cost before execution. Introspection is gated there, by caller.
  const limits = graphqlLimits(app.config);
  const run = jitRunner(app.schema);
  const stringifyResult = stringifyWithinLimit(limits);
  // Requests for documents Apollo has validated before, answered without its pipeline as it would
  // answer them (src/graphql/fast-path.ts); the request plugin tells it which documents those are.
  const operations = app.config.GRAPHQL_FAST_PATH === 'on' ? new KnownOperations() : undefined;
  const hooks = graphqlRequestHooks(limits, operations);
  const fast = operations ? new GraphqlFastPath<RequestContext>({ schema: app.schema, run, operations, hooks, formatError: formatGraphqlError, stringifyResult }) : null;
  const apollo = new ApolloServer<RequestContext>({
    // Our own schema, executed as cached compiled plans (src/graphql/jit-executor.ts).
    gateway: jitGateway(app.schema, jitExecutor(run)),
    introspection: true,
    includeStacktraceInErrorResponses: false,
    formatError: formatGraphqlError,
    // At most GRAPHQL_MAX_RESPONSE_BYTES of JSON per operation (src/graphql/apollo-limits.ts).
    stringifyResult,
    parseOptions: parseOptions(limits),
    validationRules: limitRules(limits),
    // Cache control and inline traces are Apollo's defaults; each hooks willResolveField, which makes
    // Apollo wrap every field of the schema in its instrumentation: a third of GraphQL's CPU on a page of
    // 1,000 module items, and no compiled property reads. We send no cache hints or traces. Our own
    // per-request work is one plugin (graphql-plugin.ts): Apollo awaits each plugin at each hook.
    plugins: [
      fastifyApolloDrainPlugin(fastify),
      graphqlRequestPlugin(hooks),
      ...(fast ? [fast.apolloPlugin()] : []),
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
    ],
  });
  await apollo.start();
  // The request's context: who authenticated (a user's token or an LTI tool's JWT), for both paths.
  const graphqlContext = async (req: FastifyRequest): Promise<RequestContext> => {
    const ctx = await requestContext(app, {
      token: HEADER_CREDENTIAL.token(req),
      requireUser: false,
      baseUrl: baseUrl(req),
      log: req.log,
      allowTool: true,
    }).catch(rethrowUnavailable);
    if (isRestError(ctx)) {
      throw new GraphQLError('Invalid access token.', { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
    }
    ctx.request = requestMeta(req);
    bindRawRequest(ctx, req.raw);
    return ctx;
  };
  const handler = fast ? fast.handler(apolloFastifyHandler(apollo, graphqlContext, (req, res) => fast.observe(req, res)), graphqlContext) : apolloFastifyHandler(apollo, graphqlContext);
  // Registered as a route (not the integration's plugin) so the body limit can be set; a larger body is a 413.
  fastify.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    bodyLimit: app.config.GRAPHQL_MAX_BODY_BYTES,
    onRequest: graphiqlForBrowsers,
    preHandler: refuseGetSubscriptions(parseOptions(limits)),
    // The Authorization header only (no access_token param): the throttle charges the same credential.
    config: { credential: HEADER_CREDENTIAL },
    handler,
  });

  const ws = attachGraphqlWs(fastify.server, app, fastify.log, throttle);
  countWsConnections(ws.wss);

  return {
    fastify,
    async close() {
      await ws.close();
      await fastify.close();
      await throttle?.close();
      closeFileStore(app.config);
    },
  };
}
