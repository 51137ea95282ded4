import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, parse, validate } from 'graphql';
import { compileQuery, isCompiledQuery, CompiledQuery } from 'graphql-jit';
import type { Runtime } from '../request/runtime';
import { bearerToken } from '../auth/authenticate';
import { isRestError, requestContext, toolRequestContext } from '../auth/request-auth';
import type { RequestContext } from '../request/context';
import { DomainError, NotFoundError } from '../common/errors';
import { domainToRest, graphqlErrorToRest, INTERNAL_BODY, RestError, sendRestError, validationBody } from '../api/rest/errors';
import { bookmarkLinkHeader, connectionArgs, decodeBookmark, linkHeader, pageRequest, PageRequest } from '../api/rest/pagination';
import { commonParams, parseParams } from '../api/rest/input';
import { mergeParams, ParamTree, parseQueryString, str } from '../api/rest/params';
import { stringifyIds } from '../api/rest/present';
import { baseUrl, requestMeta } from '../api/rest/request-meta';
import { isDbUnavailable } from '../db/unavailable';
import { sendUnavailable } from '../http/unavailable';
import { RestInput, RestRoute, RestVariant, withFragments } from '../api/rest/route';

const STRING_IDS = 'application/json+canvas-string-ids';

interface CompiledRoute {
  route: RestRoute;
  compiled: CompiledQuery;
  variants: { variant: RestVariant; route: RestRoute; compiled: CompiledQuery }[];
}

/** Compiles an operation once, failing at start-up if it does not validate against the schema. */
function compileOperation(app: Runtime, route: RestRoute, operation: string): CompiledQuery {
  const doc = parse(withFragments(operation));
  const errors = validate(app.schema, doc);
  if (errors.length) throw new Error(`REST route ${route.method} ${route.path}: ${errors.map((e) => e.message).join('; ')}`);
  const compiled = compileQuery(app.schema, doc);
  if (!isCompiledQuery(compiled)) throw new Error(`REST route ${route.method} ${route.path} did not compile`);
  return compiled;
}

function compileRoute(app: Runtime, route: RestRoute): CompiledRoute {
  const variants = (route.variants ?? []).map((variant) => ({
    variant,
    // The row with the variant's operation, root, variables and presenter.
    route: { ...route, operation: variant.operation, root: variant.root, variables: variant.variables, present: variant.present ?? route.present, list: variant.list ?? route.list },
    compiled: compileOperation(app, route, variant.operation),
  }));
  return { route, compiled: compileOperation(app, route, route.operation), variants };
}

const dig = (data: unknown, path: string): any => path.split('.').reduce((v: any, k) => (v == null ? v : v[k]), data);

/**
 * Absent params are left out of the variables: graphql-jit would read an explicit undefined as
 * null, which for an update means "clear this field".
 */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = withoutUndefined(v);
    return out;
  }
  return value;
}

export function requestParams(req: FastifyRequest): ParamTree {
  const rawQuery = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
  let params = parseQueryString(rawQuery);
  const body = req.body as unknown;
  if (body && typeof body === 'object') params = mergeParams(params, body);
  // Path params win over anything in the query or body.
  return mergeParams(params, req.params);
}

export function registerRestRoutes(fastify: FastifyInstance, app: Runtime, routes: RestRoute[]): void {
  for (const route of routes) {
    const compiled = compileRoute(app, route);
    fastify.route({
      method: route.method,
      url: route.path,
      // The throttle charges the token this route authenticates with (src/auth/request-credential.ts).
      config: { credential: { readsBody: route.auth !== 'none', token: (req: FastifyRequest) => routeToken(route, req, requestParams(req)) } },
      handler: (req, reply) => handle(app, compiled, req, reply),
    });
  }
}

/** The token a REST route authenticates with: the Authorization header, else access_token (body over query string). */
function routeToken(route: RestRoute, req: FastifyRequest, params: ParamTree): string | null {
  return route.auth === 'none' ? null : bearerToken(req.headers.authorization, params.access_token);
}

/** The request's context, authenticated as the route says (see RestRoute.auth). */
function routeContext(app: Runtime, route: RestRoute, req: FastifyRequest, params: ParamTree): Promise<RequestContext | RestError> {
  const token = routeToken(route, req, params);
  const common = { baseUrl: baseUrl(req), log: req.log };
  if (route.auth === 'lti') return toolRequestContext(app, { token, ...common });
  if (route.auth === 'none') return requestContext(app, { token: null, requireUser: false, ...common });
  return requestContext(app, { token, asUserId: str(params.as_user_id) ?? null, requireUser: !route.anonymous, ...common });
}

async function handle(app: Runtime, row: CompiledRoute, req: FastifyRequest, reply: FastifyReply) {
  let { route, compiled } = row;
  reply.type('application/json; charset=utf-8');
  const params = requestParams(req);
  const ctx = await routeContext(app, route, req, params);
  if (isRestError(ctx)) return sendRestError(reply, ctx);
  ctx.request = requestMeta(req);
  // Declared input first: nothing hostile reaches a variable builder, a service or the database.
  const common = parseParams(commonParams, params);
  const declared = common.errors ? common : parseParams(route.accepts, params);
  const invalid = common.errors ?? declared.errors;
  if (invalid) {
    // A malformed id in the path names no object: Canvas answers 404 (api_find), not 400.
    const pathKeys = Object.keys((req.params as object) ?? {});
    if (invalid.some((f) => pathKeys.includes(f.attribute))) return sendRestError(reply, domainToRest(new NotFoundError()));
    return reply.code(400).send(validationBody(invalid));
  }
  const variant = row.variants.find((v) => v.variant.when(declared.values ?? {}));
  if (variant) ({ route, compiled } = variant);

  const listOpts = typeof route.list === 'object' ? route.list : {};
  let page: PageRequest | null = null;
  let pageArgs: Record<string, unknown> = {};
  try {
    if (route.list) {
      if (listOpts.bookmark) {
        const perPage = pageRequest({ per_page: params.per_page }, listOpts.defaultPerPage, listOpts.maxPerPage).perPage;
        const n = listOpts.numbered && typeof params.page === 'string' && /^\d{1,9}$/.test(params.page) ? Number(params.page) : 1;
        // A page number is read as Canvas's numbered page (an offset); the links then carry bookmarks.
        const after = n > 1 ? connectionArgs({ page: n, perPage }).after : decodeBookmark(params.page);
        page = { page: 1, perPage };
        pageArgs = { first: perPage, after };
      } else {
        page = pageRequest(params, listOpts.defaultPerPage, listOpts.maxPerPage);
        pageArgs = connectionArgs(page);
      }
    }
  } catch (e) {
    if (e instanceof DomainError) return sendRestError(reply, domainToRest(e));
    throw e;
  }

  const input: RestInput = { values: { ...common.values, ...declared.values }, params, ctx, page, headers: req.headers };
  let variables: Record<string, unknown>;
  try {
    variables = withoutUndefined({ ...(route.variables?.(input) ?? {}), ...pageArgs }) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof DomainError) return sendRestError(reply, domainToRest(e));
    throw e;
  }
  const result = await compiled.query(undefined, ctx, variables);
  if (result.errors?.length) {
    // An unreachable database is a 503 to retry, whichever field ran into it first.
    const down = result.errors.find((e) => isDbUnavailable(e));
    if (down) return sendUnavailable(req, reply, down.originalError ?? down);
    const mapped = graphqlErrorToRest(result.errors[0] as GraphQLError);
    if (mapped) return sendRestError(reply, mapped);
    logUnexpected(req, result.errors[0] as GraphQLError);
    return reply.code(500).send(INTERNAL_BODY);
  }

  let value = dig(result.data, route.root);
  // Mutation payloads carry validation problems in `errors`: nothing was stored, so 400.
  if (!route.list && Array.isArray(value?.errors) && value.errors.length) {
    return reply.code(400).send(route.validationBody ? route.validationBody(value.errors) : validationBody(value.errors));
  }
  if (route.payloadKey) value = value?.[route.payloadKey];
  if (route.redirect) {
    const target = route.redirect(value, input);
    if (target) return reply.redirect(target, 302);
  }
  let body: unknown;
  if (route.list) {
    const nodes: unknown[] = value?.nodes ?? [];
    body = nodes.map((n) => (route.present ? route.present(n, input) : n));
    if (listOpts.envelope) body = { [listOpts.envelope]: body };
    const path = req.url.split('?')[0];
    const rawQuery = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
    if (listOpts.bookmark) reply.header('Link', bookmarkLinkHeader(baseUrl(req), path, rawQuery, page!.perPage, pageArgs.after as string | null, value?.pageInfo));
    else reply.header('Link', linkHeader(baseUrl(req), path, rawQuery, page!, value?.totalCount ?? null, value?.pageInfo?.hasNextPage));
  } else {
    body = route.present ? route.present(value, input) : value;
  }
  if (String(req.headers.accept ?? '').includes(STRING_IDS)) body = stringifyIds(body);
  if (route.headers) for (const [k, v] of Object.entries(route.headers(value, input))) reply.header(k, v);
  if (route.status === 204) return reply.code(204).send();
  return reply.code(route.status ?? 200).send(body);
}

function logUnexpected(req: FastifyRequest, err: GraphQLError): void {
  // Message and location only: no stack, no variables (they can carry personal data).
  req.log.error({ err: { name: err.originalError?.name ?? 'GraphQLError', message: err.originalError?.message ?? err.message }, path: err.path }, 'unexpected error in REST route');
}

