import type { GatewayExecutor, GatewayGraphQLRequestContext, GatewayInterface } from '@apollo/server-gateway-interface';
import { DocumentNode, execute, ExecutionResult, getNamedType, GraphQLError, GraphQLSchema, isAbstractType, printSchema, TypeInfo, visit, visitWithTypeInfo } from 'graphql';
import { compileQuery, CompiledQuery, isCompiledQuery } from 'graphql-jit';
import { budgetOf } from './budget';

type PromiseOrValue<T> = T | Promise<T>;

/**
 * HTTP GraphQL executes documents as compiled plans (graphql-jit), as the REST rows already do (the
 * interpreter's per-field work was most of GraphQL's time on list pages). Apollo still parses,
 * validates and applies our limits (src/graphql/limits.ts) and keeps parsed, validated documents in its
 * own cache, so each document is checked once; this executor keeps the compiled plan of each (document
 * text, operation name) in a bounded LRU and runs it. Documents graphql-jit does not compile, and
 * introspection (answered by graphql-js as before), take the reference executor, as do documents that
 * select an interface or union: type-graphql resolves abstract types asynchronously, which graphql-jit
 * does not support.
 *
 * Wired through Apollo's gateway interface, whose only job here is to hand Apollo our schema and
 * this executor; nothing is fetched from anywhere.
 */
const MAX_PLANS = 500;

export class CompiledPlans {
  private readonly plans = new Map<string, CompiledQuery | null>();
  /**
   * The same plans by document object: Apollo hands every request of a cached query text the same
   * parsed document, so a hit costs a WeakMap read instead of building and hashing a key of the whole
   * text. Bounded by the documents Apollo keeps; a plan dropped from the LRU above may live on here
   * while its document does, and goes with it.
   */
  private readonly byDocument = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly max = MAX_PLANS,
  ) {}

  /** The compiled plan of a document (null: run it with graphql-js). */
  plan(source: string, document: DocumentNode, operationName: string | null): CompiledQuery | null {
    let ofDocument = this.byDocument.get(document);
    const known = ofDocument?.get(operationName ?? '');
    if (known !== undefined) return known;
    if (!ofDocument) this.byDocument.set(document, (ofDocument = new Map()));
    const found = this.planOfText(source, document, operationName);
    ofDocument.set(operationName ?? '', found);
    return found;
  }

  private planOfText(source: string, document: DocumentNode, operationName: string | null): CompiledQuery | null {
    const key = `${operationName ?? ''}\n${source}`;
    const hit = this.plans.get(key);
    if (hit !== undefined) {
      // Most recently used last: the oldest entry is the first to go.
      this.plans.delete(key);
      this.plans.set(key, hit);
      return hit;
    }
    let plan: CompiledQuery | null = null;
    if (!/__schema|__type\b/.test(source) && !selectsAbstractType(this.schema, document)) {
      const compiled = compileQuery(this.schema, document, operationName ?? undefined);
      plan = isCompiledQuery(compiled) ? compiled : null;
    }
    if (this.plans.size >= this.max) this.plans.delete(this.plans.keys().next().value!);
    this.plans.set(key, plan);
    return plan;
  }

  get size(): number {
    return this.plans.size;
  }
}

function selectsAbstractType(schema: GraphQLSchema, document: DocumentNode): boolean {
  const info = new TypeInfo(schema);
  let found = false;
  visit(
    document,
    visitWithTypeInfo(info, {
      Field() {
        const t = info.getType();
        if (t && isAbstractType(getNamedType(t))) found = true;
      },
    }),
  );
  return found;
}

/**
 * graphql-jit's errors may lack `extensions`, which Apollo's error formatting reads (it then masks the
 * error as "Internal server error", hiding e.g. SERVICE_UNAVAILABLE): re-issue them as graphql-js errors.
 */
function asGraphqlError(e: GraphQLError): GraphQLError {
  if (e instanceof GraphQLError && e.extensions) return e;
  return new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, path: e.path, originalError: e.originalError, extensions: e.extensions ?? {} });
}

/** The request fields the executor reads, in Apollo's gateway request context. */
export type OperationRequest = Pick<GatewayGraphQLRequestContext, 'source' | 'document' | 'operationName' | 'context'> & { request: Pick<GatewayGraphQLRequestContext['request'], 'variables'> };

/**
 * Runs an operation; the result comes back without a promise when nothing in it waited (the fast
 * path then pays no promise for it: fast-path.ts). Apollo's executor below is the same, made async.
 */
export type OperationRunner = (rc: OperationRequest) => PromiseOrValue<ExecutionResult>;

const isPromise = <T>(v: PromiseOrValue<T>): v is Promise<T> => typeof (v as Promise<T> | null)?.then === 'function';
const then = <T, U>(v: PromiseOrValue<T>, f: (t: T) => U | Promise<U>): PromiseOrValue<U> => (isPromise(v) ? v.then(f) : f(v));

export function jitRunner(schema: GraphQLSchema, plans = new CompiledPlans(schema)): OperationRunner {
  const reference = (rc: OperationRequest) =>
    execute({ schema, document: rc.document, contextValue: rc.context, variableValues: rc.request.variables, operationName: rc.operationName });
  // An operation stopped by its execution budget answers that alone: no partial data, and not one
  // error per field the budget refused after the first.
  const settle = (rc: OperationRequest, result: ExecutionResult): ExecutionResult => {
    const exceeded = budgetOf(rc.context)?.exceeded;
    return exceeded ? { data: null, errors: [exceeded] } : result;
  };
  return (rc) => {
    const plan = plans.plan(rc.source, rc.document, rc.operationName);
    if (!plan) return then(reference(rc), (r) => settle(rc, r));
    return then(plan.query(undefined, rc.context, rc.request.variables ?? {}), (result) => {
      // No data at all: the variables were refused before anything ran. graphql-js refuses them again
      // (still running nothing) so clients get the reference messages (e.g. the scalar's own).
      if (!('data' in result) || result.data === undefined) return then(reference(rc), (r) => settle(rc, r));
      return settle(rc, result.errors?.length ? { ...result, errors: result.errors.map(asGraphqlError) } : result);
    });
  };
}

/** Apollo's gateway executor: the runner, always async. */
export function jitExecutor(run: OperationRunner): GatewayExecutor {
  return async (rc) => run(rc);
}

/** Apollo's gateway interface, serving our own schema with the compiled-plan executor (shared with the fast path). */
export function jitGateway(schema: GraphQLSchema, executor: GatewayExecutor = jitExecutor(jitRunner(schema))): GatewayInterface {
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    async load() {
      return { executor };
    },
    async stop() {},
  };
}
