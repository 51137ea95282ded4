import { getNamedType, GraphQLError, GraphQLFieldResolver, GraphQLSchema, isCompositeType, isInterfaceType, isObjectType } from 'graphql';
import { performance } from 'node:perf_hooks';
import { declaredMax, isListField } from '../common/list-bounds';

/**
 * The execution budget of one client operation, because an estimate can be wrong: whatever the cost
 * estimate said, an operation may call at most `maxResolverCalls` resolvers, and it gives the event
 * loop back at least every `yieldMs` of running, so one query can neither run unbounded nor freeze
 * every other request (with SQLite every read and DataLoader batch resolves without ever reaching the
 * I/O phase).
 *
 * Cheap by design, since wrapping every field was measured to cost most of GraphQL's speed:
 * only fields that run a resolver and return objects or lists are counted (a type-graphql
 * @FieldResolver, @Query or @Mutation: where the work and the fan-out are), never the plain property
 * reads graphql-jit inlines, nor scalar resolvers such as `id`/`_id`. A context without a budget
 * (REST's own fixed operations, the CLI) pays one property read per counted call.
 */

const BUDGET = Symbol('executionBudget');

export const EXECUTION_LIMIT_EXCEEDED = 'EXECUTION_LIMIT_EXCEEDED';

export interface BudgetLimits {
  maxResolverCalls: number;
  maxResponseBytes: number;
  /** Longest stretch an operation runs before it yields to the event loop. */
  yieldMs: number;
}

export function budgetError(limit: 'resolverCalls' | 'responseBytes', max: number, actual: number): GraphQLError {
  const message =
    limit === 'resolverCalls'
      ? `The operation was stopped after ${max} resolver calls, its maximum; ask for smaller pages (first) or fewer nested lists.`
      : `The response would be ${actual} bytes; the maximum is ${max}. Ask for smaller pages (first) or fewer fields.`;
  return new GraphQLError(message, { extensions: { code: EXECUTION_LIMIT_EXCEEDED, limit, max, actual } });
}

export class ExecutionBudget {
  calls = 0;
  exceeded: GraphQLError | null = null;
  private lastYield = performance.now();
  private pendingYield: Promise<void> | null = null;

  constructor(private readonly limits: BudgetLimits) {}

  /** Counts one resolver call; throws once the ceiling is passed (and on every call after). */
  charge(): void {
    if (++this.calls > this.limits.maxResolverCalls) {
      this.exceeded ??= budgetError('resolverCalls', this.limits.maxResolverCalls, this.calls);
      throw this.exceeded;
    }
  }

  /**
   * A promise to wait on when the operation has held the event loop for `yieldMs`; null otherwise.
   * Whether it is due is decided between DataLoader batches (at the same point DataLoader dispatches:
   * after the promise jobs, in a nextTick), never between two resolver calls of one batch: the calls
   * of one window all run or all wait, and those that wait resume together, so a yield never splits
   * a batch into two statements.
   */
  yieldIfDue(): Promise<void> | null {
    if (this.pendingYield) return this.pendingYield;
    if (!this.due) {
      this.scheduleCheck();
      return null;
    }
    // setImmediate runs after the I/O phase: pending requests (health probes too) get their turn.
    this.pendingYield = new Promise<void>((resolve) =>
      setImmediate(() => {
        this.pendingYield = null;
        this.due = false;
        this.lastYield = performance.now();
        resolve();
      }),
    );
    return this.pendingYield;
  }

  private due = false;
  private checkQueued = false;

  private scheduleCheck(): void {
    if (this.checkQueued) return;
    this.checkQueued = true;
    void RESOLVED.then(() =>
      process.nextTick(() => {
        this.checkQueued = false;
        this.due = performance.now() - this.lastYield >= this.limits.yieldMs;
      }),
    );
  }
}

const RESOLVED = Promise.resolve();

/** Gives a client operation's context its budget (HTTP GraphQL and graphql-ws). */
export function startBudget(ctx: object, limits: BudgetLimits): ExecutionBudget {
  const budget = new ExecutionBudget(limits);
  (ctx as { [BUDGET]?: ExecutionBudget })[BUDGET] = budget;
  return budget;
}

export function budgetOf(ctx: unknown): ExecutionBudget | undefined {
  return ctx && typeof ctx === 'object' ? (ctx as { [BUDGET]?: ExecutionBudget })[BUDGET] : undefined;
}

function cut(value: unknown, max: number): unknown {
  return Array.isArray(value) && value.length > max ? value.slice(0, max) : value;
}

function bounded(value: unknown, max: number | undefined): unknown {
  if (max === undefined) return value;
  if (value && typeof (value as Promise<unknown>).then === 'function') return (value as Promise<unknown>).then((v) => cut(v, max));
  return cut(value, max);
}

type Resolver = GraphQLFieldResolver<unknown, unknown>;

/**
 * Installs the budget and the list bounds on the built schema, once: resolvers returning objects or
 * lists count against the context's budget and yield when due; a list with a declared maximum is cut
 * to it (a plain list property gets a resolver that reads and cuts it: lists are few, scalars untouched).
 */
export function instrumentSchema(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || (!isObjectType(type) && !isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields())) {
      const max = isListField(field) ? declaredMax(field) : undefined;
      const resolve = field.resolve as Resolver | undefined;
      if (!resolve) {
        if (max !== undefined) {
          const name = field.name;
          field.resolve = (source) => cut((source as Record<string, unknown> | null)?.[name], max);
        }
        continue;
      }
      if (!isCompositeType(getNamedType(field.type))) continue;
      field.resolve = (source, args, ctx, info) => {
        const budget = budgetOf(ctx);
        if (!budget) return bounded(resolve(source, args, ctx, info), max);
        budget.charge();
        const pause = budget.yieldIfDue();
        if (!pause) return bounded(resolve(source, args, ctx, info), max);
        return pause.then(() => bounded(resolve(source, args, ctx, info), max));
      };
    }
  }
}
