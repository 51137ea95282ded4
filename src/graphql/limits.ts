import {
  ASTVisitor,
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLError,
  GraphQLSchema,
  Kind,
  NoSchemaIntrospectionCustomRule,
  OperationDefinitionNode,
  SelectionSetNode,
  ValidationContext,
  ValidationRule,
  validate,
} from 'graphql';
import type { IncomingMessage } from 'node:http';
import { addRequestCost } from '../common/request-cost';
import type { Config } from '../config';
import type { BudgetLimits } from './budget';
import { operationCost } from './cost';
import { DocumentCounts } from './document-counts';

/**
 * Bounds on what one GraphQL operation may ask for, applied alike to HTTP GraphQL (an Apollo plugin,
 * see apollo-limits.ts) and to every graphql-ws operation (ws.ts), so a single request cannot make the
 * server build megabytes of response or walk the schema for an anonymous caller. The REST router's own
 * fixed operations are trusted and do not pass through here (test/graphql.limits.test.ts proves they
 * would). Defaults follow Canvas: depth 15, aliases 20, directives 5, tokens 5,000.
 */
export interface GraphqlLimits {
  maxDepth: number;
  maxAliases: number;
  maxDirectives: number;
  /** Lexical tokens in the document; enforced while parsing (graphql's parse option maxTokens). */
  maxTokens: number;
  maxComplexity: number;
  /** Root fields of one mutation operation. */
  maxMutationFields: number;
  /** What one operation may do while it runs, whatever its estimate (budget.ts). */
  budget: BudgetLimits;
  /** Who may query `__schema` / `__type`: everyone, authenticated callers only, or nobody. */
  introspection: 'on' | 'authenticated' | 'off';
  /** Cost that counts as one unit (a second of request time) of the rate limiter's bucket. */
  costPerRateLimitUnit: number;
  /** Throttle units charged per root field that is the twin of an expensive REST route (RATE_LIMIT_EXPENSIVE_COST). */
  expensiveCost: number;
}

/**
 * Mutations that do what the throttle's expensive REST routes do (src/http/throttle-hooks.ts: error
 * reports, LTI authorize, upload preflights), so they pay the same surcharge through GraphQL, once per
 * root field. test/graphql.mutation-limits.test.ts derives this set from the REST route table.
 */
export const EXPENSIVE_MUTATIONS: ReadonlySet<string> = new Set(['createErrorReport', 'ltiAuthorize', 'createFileUpload']);

export function graphqlLimits(config: Config): GraphqlLimits {
  return {
    maxDepth: config.GRAPHQL_MAX_DEPTH,
    maxAliases: config.GRAPHQL_MAX_ALIASES,
    maxDirectives: config.GRAPHQL_MAX_DIRECTIVES,
    maxTokens: config.GRAPHQL_MAX_TOKENS,
    maxComplexity: config.GRAPHQL_MAX_COMPLEXITY,
    maxMutationFields: config.GRAPHQL_MAX_MUTATION_FIELDS,
    budget: { maxResolverCalls: config.GRAPHQL_MAX_RESOLVER_CALLS, maxResponseBytes: config.GRAPHQL_MAX_RESPONSE_BYTES, yieldMs: config.GRAPHQL_YIELD_MS },
    introspection: config.GRAPHQL_INTROSPECTION,
    costPerRateLimitUnit: config.GRAPHQL_COST_PER_RATE_LIMIT_UNIT,
    expensiveCost: config.RATE_LIMIT_EXPENSIVE_COST,
  };
}

const VALIDATION_FAILED = 'GRAPHQL_VALIDATION_FAILED';
export const QUERY_TOO_COMPLEX = 'QUERY_TOO_COMPLEX';

function limitError(message: string, limit: string, max: number, actual: number, code = VALIDATION_FAILED): GraphQLError {
  return new GraphQLError(message, { extensions: { code, limit, max, actual, http: { status: 400 } } });
}

/** The document-shape rules (depth, aliases, directives, mutation fields), run with graphql's standard validation. */
export function limitRules(limits: GraphqlLimits): ValidationRule[] {
  return [depthRule(limits.maxDepth), aliasRule(limits.maxAliases), directiveRule(limits.maxDirectives), mutationFieldsRule(limits.maxMutationFields)];
}

/** Fields nested deeper than `max` in any operation (root fields are depth 1; fragments are expanded). */
function depthRule(max: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = fragmentMap(context.getDocument());
    const memo = new Map<string, number>();
    return {
      OperationDefinition(node) {
        const depth = selectionDepth(node.selectionSet, fragments, memo, new Set());
        if (depth > max) context.reportError(limitError(`Query depth ${depth} exceeds the maximum of ${max}.`, 'depth', max, depth));
      },
    };
  };
}

function selectionDepth(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, memo: Map<string, number>, active: Set<string>): number {
  let deepest = 0;
  for (const sel of set.selections) {
    let depth = 0;
    if (sel.kind === Kind.FIELD) depth = 1 + (sel.selectionSet ? selectionDepth(sel.selectionSet, fragments, memo, active) : 0);
    else if (sel.kind === Kind.INLINE_FRAGMENT) depth = selectionDepth(sel.selectionSet, fragments, memo, active);
    else {
      const name = sel.name.value;
      const frag = fragments.get(name);
      // Unknown and cyclic fragments are reported by graphql's own rules; they add nothing here.
      if (!frag || active.has(name)) continue;
      if (!memo.has(name)) {
        active.add(name);
        memo.set(name, selectionDepth(frag.selectionSet, fragments, memo, active));
        active.delete(name);
      }
      depth = memo.get(name)!;
    }
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

/**
 * Aliases that select a field again under another name. Renaming a field once (`course_code:
 * courseCode`, as Canvas-shaped clients do) is free; what is bounded is asking for one field many
 * times in one place (`a1: course(...) a2: course(...) …`), which multiplies work without depth.
 * Counted document-wide with fragments expanded: repeats spread over inline or named fragments
 * (`... on Mutation { a1: f } ... on Mutation { a2: f }`) are repeats in the same place, or
 * fragments would be a way around the bound.
 */
function aliasRule(max: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    Document: {
      leave(doc) {
        const operations = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
        const count = new DocumentCounts(doc).repeatedAliases(operations);
        if (count > max) context.reportError(limitError(`The document repeats fields under ${count} aliases; the maximum is ${max}.`, 'aliases', max, count));
      },
    },
  });
}

/**
 * Root fields of a mutation operation, fragments expanded: each runs its own transaction and side
 * effects (an error report, an upload, a token), so one request may ask for a few, not hundreds.
 * Reported when the document is left, after the alias count (which a flood of mutations also passes).
 */
function mutationFieldsRule(max: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    Document: {
      leave(doc) {
        const counts = new DocumentCounts(doc);
        for (const def of doc.definitions) {
          if (def.kind !== Kind.OPERATION_DEFINITION || def.operation !== 'mutation') continue;
          const count = counts.rootFields(def);
          if (count > max) context.reportError(limitError(`The mutation selects ${count} root fields; the maximum is ${max}.`, 'mutationFields', max, count));
        }
      },
    },
  });
}

/** Directive uses anywhere in the document (`@include`, `@skip`, …). */
function directiveRule(max: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    let count = 0;
    return {
      Directive() {
        count++;
      },
      Document: {
        leave() {
          if (count > max) context.reportError(limitError(`The document uses ${count} directives; the maximum is ${max}.`, 'directives', max, count));
        },
      },
    };
  };
}

function fragmentMap(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const map = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) map.set(def.name.value, def);
  return map;
}

/** graphql's parse options for client documents: bounded before an AST is built. */
export function parseOptions(limits: GraphqlLimits): { maxTokens: number } {
  return { maxTokens: limits.maxTokens };
}

export interface OperationCheck {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  /** A user or an LTI tool authenticated the request. */
  authenticated: boolean;
}

/**
 * The checks that need the caller or the variables, run on a document that already passed validation:
 * introspection by who asks, then the operation's cost. Returns the cost, or the error to answer with.
 */
export function checkOperation(limits: GraphqlLimits, op: OperationCheck): { cost: number } | { error: GraphQLError } {
  if (limits.introspection === 'off' || (limits.introspection === 'authenticated' && !op.authenticated)) {
    if (validate(op.schema, op.document, [NoSchemaIntrospectionCustomRule]).length) {
      const message =
        limits.introspection === 'off'
          ? 'GraphQL introspection is disabled on this server.'
          : 'GraphQL introspection is available to authenticated callers only.';
      return { error: new GraphQLError(message, { extensions: { code: VALIDATION_FAILED, limit: 'introspection', http: { status: 400 } } }) };
    }
  }
  const cost = operationCost(op.schema, op.document, op.operationName, op.variables);
  if (cost > limits.maxComplexity) {
    return {
      error: limitError(`The query's estimated cost ${cost} exceeds the maximum of ${limits.maxComplexity}; ask for smaller pages (first) or fewer nested lists.`, 'complexity', limits.maxComplexity, cost, QUERY_TOO_COMPLEX),
    };
  }
  // The twins of expensive REST routes pay the REST surcharge too, expressed in cost so that both doors
  // (HTTP here, graphql-ws through ws.ts) charge it where they already charge the cost (chargeCost).
  const surcharge = expensiveFields(op) * limits.expensiveCost * limits.costPerRateLimitUnit;
  return { cost: cost + surcharge };
}

/** Root fields of the operation that are twins of expensive REST routes, fragments expanded. */
function expensiveFields(op: OperationCheck): number {
  const ops = op.document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = op.operationName ? ops.find((o) => o.name?.value === op.operationName) : ops.length === 1 ? ops[0] : undefined;
  return operation?.operation === 'mutation' ? new DocumentCounts(op.document).rootFields(operation, EXPENSIVE_MUTATIONS) : 0;
}

/**
 * Charges an operation's cost to the HTTP request (or graphql-ws upgrade request) the throttle reads
 * (src/common/request-cost.ts), scaled into the throttle's unit of a second of request time.
 */
export function chargeCost(req: IncomingMessage, limits: GraphqlLimits, cost: number): void {
  addRequestCost(req, cost / limits.costPerRateLimitUnit);
}
