import 'reflect-metadata';
import { GraphQLSchema } from 'graphql';
import { getMetadataStorage as getValidationStorage, validateOrReject, ValidatorOptions } from 'class-validator';
import { ArgumentValidationError, buildSchemaSync, getMetadataStorage, NonEmptyArray } from 'type-graphql';
import { schemaPubSub } from '../messaging/pubsub';
import { resolveNodeIdsDirectly } from '../api/graphql/node';
import { DateTimeScalar } from '../api/graphql/scalars';
import { instrumentSchema } from './budget';
import { resolveFieldResolversDirectly } from './direct-field-resolvers';

/**
 * Plain @Field properties resolve by GraphQL's default property read, which is cheaper on every row:
 * type-graphql would otherwise wrap each in a middleware-running function, per field and per row, and
 * graphql-jit can read a property inline where there is no resolver. Fields with a @FieldResolver keep
 * theirs (it wins over `simple`); fields with middlewares, roles or a schema name of their own keep the
 * wrapper.
 */
function plainFieldsResolveDirectly(): void {
  for (const f of getMetadataStorage().fields) {
    if (f.simple === undefined && !f.middlewares?.length && !f.roles?.length && f.schemaName === f.name) f.simple = true;
  }
}

/**
 * Argument validation as type-graphql's own (class-validator on object arguments, missing properties
 * skipped, unknown values allowed, failures as ArgumentValidationError), without its per-call
 * `require('class-validator')` — a module resolution on every object or list argument of every field
 * and row, which profiles showed on hot lists — and with nothing to do for lists of scalars.
 */
const VALIDATOR_OPTIONS: ValidatorOptions = { forbidUnknownValues: false, skipMissingProperties: true };
const validatable = (v: unknown): v is object => v !== null && typeof v === 'object';

type QuickCheck = (o: Record<string, unknown>) => boolean;
const quickChecks = new Map<unknown, QuickCheck | null>();

/**
 * A class's rules as a plain function when every rule is a numeric @Min/@Max of a property (as on
 * ConnectionArgs.first): true when the object passes them all. class-validator assembles its rules from
 * metadata on every call, which cost more than the rest of a small list request's arguments
 * in profiles; it still runs when a check fails, so failures are worded exactly as before. Null
 * for classes with other rules: those always go to class-validator.
 */
function quickCheckFor(ctor: unknown): QuickCheck | null {
  if (quickChecks.has(ctor)) return quickChecks.get(ctor)!;
  const rules = typeof ctor === 'function' ? getValidationStorage().getTargetValidationMetadatas(ctor, '', true, false) : [];
  const simple = rules.every((r) => r.type === 'customValidation' && (r.name === 'min' || r.name === 'max') && !r.each && !r.groups?.length && typeof r.constraints?.[0] === 'number');
  const check: QuickCheck | null = simple
    ? (o) =>
        rules.every((r) => {
          const v = o[r.propertyName];
          // skipMissingProperties: an absent or null argument is not checked.
          if (v == null) return true;
          return typeof v === 'number' && (r.name === 'min' ? v >= r.constraints[0] : v <= r.constraints[0]);
        })
    : null;
  quickChecks.set(ctor, check);
  return check;
}

const passesQuickly = (o: object): boolean => quickCheckFor(o.constructor)?.(o as Record<string, unknown>) === true;

async function validateArgument(value: unknown): Promise<void> {
  if (!validatable(value)) return;
  try {
    if (Array.isArray(value)) {
      const objects = value.filter((o) => validatable(o) && !passesQuickly(o));
      if (objects.length) await Promise.all(objects.map((o) => validateOrReject(o, VALIDATOR_OPTIONS)));
    } else if (!passesQuickly(value)) await validateOrReject(value, VALIDATOR_OPTIONS);
  } catch (err) {
    throw new ArgumentValidationError(err as never);
  }
}

/** The schema of these resolvers, with the service's scalars, argument validation and execution budget. */
export function buildGraphQLSchema(resolvers: NonEmptyArray<Function>): GraphQLSchema {
  plainFieldsResolveDirectly();
  const schema = buildSchemaSync({
    resolvers,
    scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
    validateFn: validateArgument,
    emitSchemaFile: false,
    pubSub: schemaPubSub,
  });
  resolveFieldResolversDirectly(schema, resolvers);
  resolveNodeIdsDirectly(schema);
  // Execution budget and list bounds: counted resolvers and cut lists, on every door.
  instrumentSchema(schema);
  return schema;
}
