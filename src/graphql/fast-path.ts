import {
  ApolloServerPlugin,
  BaseContext,
  GraphQLRequestContextDidResolveOperation,
  GraphQLRequestContextWillSendResponse,
  HeaderMap,
  HTTPGraphQLResponse,
} from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExecutionResult, FormattedExecutionResult, GraphQLError, GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { ensureGraphQLError, executionErrors, FormatError, formatErrors } from './apollo-errors';
import type { OperationRunner } from './jit-executor';
import { AcceptTypes, KnownOperation, KnownOperations } from './known-operations';

/**
 * HTTP GraphQL's common case without Apollo's request pipeline: a POST of `{query, variables?,
 * operationName?}` as JSON whose text Apollo has already parsed and validated once (known-operations.ts)
 * is run with its compiled plan directly, and answered byte for byte as Apollo would answer it. Apollo's
 * pipeline costs about 100 µs of CPU per request before any resolver runs (sha256 of the text, the
 * document store, seven awaited hook rounds, two Accept negotiations, the context clone), most of a
 * trivial operation's cost (docs/PERFORMANCE.md).
 *
 * What Apollo does for such a request, and how the fast path does the same:
 * - CSRF prevention: a Content-Type of application/json is one a browser must preflight, so the
 *   check passes; the fast path takes only that exact type (any other goes to Apollo).
 * - The context function (authentication) runs as Apollo would run it; when it fails, Apollo is handed
 *   the failure and answers it.
 * - Our request hooks (app/graphql-plugin.ts), which Apollo runs through our plugin, run at the same
 *   points: didResolveOperation (subscription refusal, limits, budget, throttle charge) and
 *   willSendResponse (503 on an unreachable database, metrics). A refusal there is handed to Apollo,
 *   which refuses it again the same way (the hooks charge nothing before refusing).
 * - Execution by the runner Apollo's gateway executor runs, then Apollo's error handling (apollo-errors.ts),
 *   status, Accept negotiation (learned from Apollo's own answers), field order and stringifyResult.
 * Anything else (GET, batches, extensions such as persisted queries, uploads, subscriptions, a text or
 * an Accept value not seen yet, other content types, a server stopping) is Apollo's, unchanged.
 * GRAPHQL_FAST_PATH=off turns it off; test/graphql.fast-path.test.ts compares both answers.
 */

type Handler<C> = (req: FastifyRequest, reply: FastifyReply, context?: () => Promise<C>) => Promise<unknown>;

/** What the service does in Apollo's pipeline, for Apollo's plugin and the fast path alike (app/graphql-plugin.ts). */
export interface RequestHooks<C extends BaseContext> {
  /** Throws to refuse the operation, before it has charged anything. */
  didResolveOperation(rc: GraphQLRequestContextDidResolveOperation<C>): void;
  /** `started`: the performance.now() of the request's start. */
  willSendResponse(rc: GraphQLRequestContextWillSendResponse<C>, started: number): void;
}

export interface FastPathOptions<C extends BaseContext> {
  schema: GraphQLSchema;
  /** What Apollo's gateway executor runs (jit-executor.ts). */
  run: OperationRunner;
  /** Filled by the hooks as Apollo resolves operations. */
  operations: KnownOperations;
  hooks: RequestHooks<C>;
  formatError: FormatError;
  stringifyResult: (value: FormattedExecutionResult) => string;
}

interface Match {
  known: KnownOperation;
  requestedName: string | undefined;
  variables: Record<string, unknown> | undefined;
  contentType: string;
}

/** The part of Apollo's request context the hooks and the runner read. */
interface FastRequestContext<C> {
  schema: GraphQLSchema;
  request: { query: string; operationName: string | undefined; variables: Record<string, unknown> | undefined };
  contextValue: C;
  context: C;
  source: string;
  document: KnownOperation['document'];
  operation: KnownOperation['operation'];
  operationName: string | null;
  errors: readonly GraphQLError[] | undefined;
  response: { http: { status: number | undefined; headers: HeaderMap }; body: unknown };
}

const isRecord = (o: unknown): o is Record<string, unknown> => !!o && typeof o === 'object' && !Buffer.isBuffer(o) && !Array.isArray(o);

export class GraphqlFastPath<C extends BaseContext> {
  private readonly accepts = new AcceptTypes();
  private on = true;

  constructor(private readonly opts: FastPathOptions<C>) {}

  /**
   * Installed in Apollo: the fast path stops when Apollo starts draining (Apollo then answers what it
   * answers while stopping), and stays off when Apollo reports to GraphOS (an API key installs usage
   * reporting, a plugin the fast path would bypass).
   */
  apolloPlugin(): ApolloServerPlugin<C> {
    return {
      serverWillStart: async ({ apollo }) => {
        if (apollo.key) this.on = false;
        return {
          drainServer: async () => void (this.on = false),
        };
      },
    };
  }

  /** The Fastify route handler: the fast path where it applies, `apollo` for the rest. */
  handler(apollo: Handler<C>, context: (req: FastifyRequest, reply: FastifyReply) => Promise<C>) {
    return async (req: FastifyRequest, reply: FastifyReply) => {
      const match = this.match(req);
      if (!match) return apollo(req, reply);
      let ctx: C;
      try {
        ctx = await context(req, reply);
      } catch (e) {
        return apollo(req, reply, () => Promise.reject(e));
      }
      let answered = this.answer(req, reply, match, ctx);
      if (typeof answered === 'object' && answered) answered = await answered;
      return answered ?? apollo(req, reply, async () => ctx);
    };
  }

  /** Learns the content type Apollo answered a POST's Accept header with. */
  observe(req: FastifyRequest, res: HTTPGraphQLResponse): void {
    if (req.method !== 'POST' || (res.status ?? 200) !== 200 || res.body.kind !== 'complete') return;
    const type = res.headers.get('content-type');
    if (type) this.accepts.learn(req.headers.accept || '', type);
  }

  private match(req: FastifyRequest): Match | undefined {
    if (!this.on || req.method !== 'POST') return undefined;
    const type = req.headers['content-type'];
    if (type !== 'application/json' && !type?.startsWith('application/json;')) return undefined;
    const body = req.body;
    if (!isRecord(body)) return undefined;
    const { query, variables, operationName, extensions } = body;
    if (typeof query !== 'string' || !query || extensions != null) return undefined;
    if (variables != null && !isRecord(variables)) return undefined;
    if (operationName != null && typeof operationName !== 'string') return undefined;
    const contentType = this.accepts.get(req.headers.accept || '');
    if (!contentType) return undefined;
    const requestedName = operationName ?? undefined;
    const known = this.opts.operations.find(query, requestedName);
    if (!known) return undefined;
    return { known, requestedName, variables: variables ?? undefined, contentType };
  }

  /**
   * Apollo's pipeline from didResolveOperation on: the body to send, or null when Apollo must answer
   * instead. Without a promise when the operation ran without waiting (each is a turn of the loop).
   */
  private answer(req: FastifyRequest, reply: FastifyReply, m: Match, ctx: C): string | null | Promise<string> {
    const { schema, run, hooks } = this.opts;
    const started = performance.now();
    const { known } = m;
    const http = { status: undefined as number | undefined, headers: new HeaderMap() };
    // The request context as the hooks and the runner read it (a subset of Apollo's).
    const rc: FastRequestContext<C> = {
      schema,
      request: { query: known.source, operationName: m.requestedName, variables: m.variables },
      contextValue: ctx,
      context: ctx,
      source: known.source,
      document: known.document,
      operation: known.operation,
      operationName: known.operationName,
      errors: undefined,
      response: { http, body: undefined },
    };
    try {
      hooks.didResolveOperation(rc as never);
    } catch {
      return null;
    }

    let out;
    try {
      out = run(rc);
    } catch (e) {
      return this.respond(reply, m, rc, started, null, e);
    }
    if (typeof (out as Promise<ExecutionResult>).then !== 'function') return this.respond(reply, m, rc, started, out as ExecutionResult);
    return (out as Promise<ExecutionResult>).then(
      (result) => this.respond(reply, m, rc, started, result),
      (e) => this.respond(reply, m, rc, started, null, e),
    );
  }

  /** The executed operation's answer, as Apollo makes it (`result` null: execution threw `thrown`). */
  private respond(reply: FastifyReply, m: Match, rc: FastRequestContext<C>, started: number, result: ExecutionResult | null, thrown?: unknown): string {
    const { hooks, formatError, stringifyResult } = this.opts;
    const { http } = rc.response;
    const errors = result ? executionErrors(result.errors) : [ensureGraphQLError(thrown)];
    let formatted: GraphQLFormattedError[] | undefined;
    if (errors) {
      rc.errors = errors;
      const f = formatErrors(errors, formatError);
      formatted = f.formattedErrors;
      if (f.head.status) http.status = f.head.status;
      for (const [name, value] of f.head.headers) http.headers.set(name, value);
      // Variables refused before anything ran: Apollo's status400ForVariableCoercionErrors.
      if (result && errors.length && result.data === undefined && !http.status) http.status = 400;
      if (!result && !http.status) http.status = 500;
    }
    const single = result ? { ...result, errors: formatted } : { errors: formatted };
    rc.response.body = { kind: 'single', singleResult: single };
    hooks.willSendResponse(rc as never, started);

    if (!http.headers.get('content-type')) http.headers.set('content-type', m.contentType);
    const string = stringifyResult({ errors: single.errors, data: 'data' in single ? single.data : undefined, extensions: 'extensions' in single ? single.extensions : undefined });
    for (const [name, value] of http.headers) void reply.header(name, value);
    void reply.code(http.status ?? 200);
    return string;
  }
}
