import { type ExecutionArgs, getOperationAST, GraphQLObjectType, type GraphQLSchema, isObjectType, responsePathAsArray } from 'graphql';
import { activeSpan, fieldSpansOn, tracingOn, withSpan } from '../tracing/tracing';

/** The document's own operation name (a GraphQL Name), never the request's free-form one. */
function operationOf(args: Pick<ExecutionArgs, 'document' | 'operationName'>): { type: string; name: string } {
  const op = getOperationAST(args.document, args.operationName);
  return { type: op?.operation ?? 'unknown', name: op?.name?.value ?? '(anonymous)' };
}

/**
 * HTTP GraphQL: the request's span (src/http/tracing-hooks.ts) is named `graphql <operationName>` once
 * the operation is known, with its type and name as attributes. Called for every resolved operation,
 * by Apollo's pipeline and the fast path alike (src/app/graphql-plugin.ts); nothing without a span.
 */
export function nameGraphqlSpan(args: Pick<ExecutionArgs, 'document' | 'operationName'>): void {
  const span = activeSpan();
  if (!span) return;
  const { type, name } = operationOf(args);
  span.updateName(`graphql ${name}`);
  span.setAttributes({ 'graphql.operation.type': type, 'graphql.operation.name': name });
}

/**
 * graphql-ws: a span per operation, `graphql-ws <operationName>`, around its execution (queries and
 * mutations) or its subscribe (a subscription's set-up; its events are the publishers' story). Each
 * starts its own trace: a socket outlives any request. Returns `run` itself without tracing.
 */
export function tracedWsRun<R>(run: (args: ExecutionArgs) => R): (args: ExecutionArgs) => R {
  if (!tracingOn()) return run;
  return (args) => {
    const { type, name } = operationOf(args);
    return withSpan(`graphql-ws ${name}`, { kind: 'server', parent: null, attributes: { 'graphql.operation.type': type, 'graphql.operation.name': name } }, () => run(args));
  };
}

const traced = new WeakSet<GraphQLSchema>();

/**
 * OTEL_GRAPHQL_FIELDS=on: a span per call of every field that has a resolver of its own (plain
 * property reads have none and stay untouched), `resolve Type.field` with its path. Off by default:
 * one wrapper per resolved field of every row is most of a list query's time.
 */
export function traceFieldResolvers(schema: GraphQLSchema): void {
  if (!fieldSpansOn() || traced.has(schema)) return;
  traced.add(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values((type as GraphQLObjectType).getFields())) {
      const resolve = field.resolve;
      if (!resolve) continue;
      const name = `resolve ${type.name}.${field.name}`;
      field.resolve = (source, args, context, info) =>
        withSpan(name, { requireParent: true, attributes: { 'graphql.field.name': field.name, 'graphql.field.path': responsePathAsArray(info.path).join('.') } }, () =>
          resolve(source, args, context, info),
        );
    }
  }
}
