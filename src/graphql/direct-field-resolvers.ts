import { GraphQLBoolean, GraphQLFieldResolver, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLScalarType, GraphQLSchema, GraphQLString, isObjectType } from 'graphql';
import { getMetadataStorage } from 'type-graphql';

/**
 * @FieldResolver methods called as plain functions. type-graphql runs each call of a field resolver
 * through its handler: a resolver-data object, a linear search of its container for the resolver's
 * instance, `getParams` (which sorts the parameter list, maps it through a switch and scans the result
 * for promises), and for any method with an @Arg an async validation step, so the method runs a
 * promise later (`Promise.all` of the parameters). A page of 50 groups makes about 600 such calls;
 * profiles of list pages showed that handler as a good share of each row's cost.
 *
 * Here each eligible field resolver is compiled once into a function that reads its parameters
 * straight from (root, args, context, info) in the same positions type-graphql passes them, and
 * calls the method on one instance of its resolver class (resolver classes hold no state; type-graphql's
 * default container also keeps one instance per class). Eligible: external field resolvers (methods of
 * @Resolver classes) without middlewares or roles whose parameters are @Root, @Ctx, @Info, or @Arg of a
 * built-in scalar (or a list of one). Those arguments need no conversion (type-graphql passes the
 * value itself; a list as a copy, as here) and the schema's validation has nothing to check on them
 * (it validates objects: see validateArgument in schema.ts). Everything else keeps type-graphql's handler,
 * and so does any call whose root is not already of the @Root parameter's class (type-graphql would
 * convert it into one): that call goes to the original resolver.
 */

type Storage = ReturnType<typeof getMetadataStorage>;
type FieldResolverMeta = Storage['fieldResolvers'][number];
type ParamMeta = NonNullable<FieldResolverMeta['params']>[number];
type Resolver = GraphQLFieldResolver<unknown, unknown>;
type Read = (root: unknown, args: Record<string, unknown>, ctx: unknown, info: unknown) => unknown;

/** Argument types whose values reach the method as they come from GraphQL's coercion (primitives). */
const SCALAR_ARGS = new Set<unknown>([String, Number, Boolean, GraphQLString, GraphQLBoolean, GraphQLInt, GraphQLFloat, GraphQLID]);

/** Values type-graphql's convertToType returns as they are, whatever the target class. */
const SIMPLE = new Set<unknown>([String, Boolean, Number, Date, Array, Promise]);

/** Whether type-graphql would hand this root to the method unchanged (its convertToType's cheap cases). */
function passesAsIs(target: unknown, value: unknown): boolean {
  if (value == null || target instanceof GraphQLScalarType) return true;
  const ctor = (value as object).constructor;
  return SIMPLE.has(ctor) || (typeof target === 'function' && value instanceof target);
}

/** How one parameter is read, or null when the parameter needs type-graphql's handler. */
function reader(p: ParamMeta): Read | null {
  switch (p.kind) {
    case 'context': {
      const prop = p.propertyName;
      return prop ? (_r, _a, ctx) => (ctx as Record<string, unknown>)[prop] : (_r, _a, ctx) => ctx;
    }
    case 'info':
      return (_r, _a, _c, info) => info;
    case 'root': {
      const prop = p.propertyName;
      return prop ? (root) => (root as Record<string, unknown>)[prop] : (root) => root;
    }
    case 'arg': {
      if (p.validateFn || (p.typeOptions.arrayDepth ?? 1) > 1 || !SCALAR_ARGS.has(p.getType())) return null;
      const name = p.name;
      return (_r, args) => {
        const v = args[name];
        return Array.isArray(v) ? v.slice() : v;
      };
    }
    default:
      return null;
  }
}

/** The plain-function form of one field resolver, or null when it must keep type-graphql's handler. */
function direct(meta: FieldResolverMeta, original: Resolver): Resolver | null {
  if (meta.kind !== 'external' || meta.middlewares?.length || meta.roles) return null;
  const Target = meta.target as new () => Record<string, (...a: unknown[]) => unknown>;
  const method = Target.prototype[meta.methodName];
  if (typeof method !== 'function') return null;
  // type-graphql passes the parameters in index order, by position.
  const params = [...(meta.params ?? [])].sort((a, b) => a.index - b.index);
  const reads: Read[] = [];
  for (const p of params) {
    const r = reader(p);
    if (!r) return null;
    reads.push(r);
  }
  const rootParam = params.find((p) => p.kind === 'root') as Extract<ParamMeta, { kind: 'root' }> | undefined;
  const rootType = rootParam?.getType;
  const rootProp = rootParam?.propertyName;
  let instance: Record<string, (...a: unknown[]) => unknown> | undefined;
  let rootClass: unknown;
  const [r0, r1, r2] = reads;
  return (root, args, ctx, info) => {
    if (rootType) {
      rootClass ??= rootType();
      if (!passesAsIs(rootClass, rootProp ? (root as Record<string, unknown> | null)?.[rootProp] : root)) return original(root, args, ctx, info);
    }
    instance ??= new Target();
    const a = args as Record<string, unknown>;
    switch (reads.length) {
      case 0:
        return method.call(instance);
      case 1:
        return method.call(instance, r0(root, a, ctx, info));
      case 2:
        return method.call(instance, r0(root, a, ctx, info), r1(root, a, ctx, info));
      case 3:
        return method.call(instance, r0(root, a, ctx, info), r1(root, a, ctx, info), r2(root, a, ctx, info));
      default:
        return method.apply(instance, reads.map((r) => r(root, a, ctx, info)));
    }
  };
}

/**
 * Replaces type-graphql's handler of every eligible field resolver of the built schema's object types.
 * Each field is matched to its metadata as type-graphql's schema generator matched it (the resolver
 * classes given, the object type's own and interface fields, by method name); an object type extending
 * another carries the same resolver functions, replaced with them.
 */
export function resolveFieldResolversDirectly(schema: GraphQLSchema, resolvers: readonly Function[]): void {
  const storage = getMetadataStorage();
  const candidates = storage.fieldResolvers.filter((it) => it.kind === 'internal' || resolvers.includes(it.target));
  const replaced = new Map<Resolver, Resolver>();
  for (const objectType of storage.objectTypes) {
    const type = schema.getType(objectType.name);
    if (!isObjectType(type)) continue;
    const fields = type.getFields();
    const interfaceFields = storage.interfaceTypes.filter((it) => objectType.interfaceClasses?.includes(it.target)).flatMap((it) => it.fields ?? []);
    for (const field of [...interfaceFields, ...(objectType.fields ?? [])]) {
      const gqlField = fields[field.schemaName];
      const original = gqlField?.resolve as Resolver | undefined;
      if (!original || replaced.has(original)) continue;
      const meta = candidates.find((it) => it.getObjectType?.() === field.target && it.methodName === field.name);
      if (!meta) continue;
      const fn = direct(meta, original);
      if (fn) replaced.set(original, fn);
    }
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const fn = field.resolve && replaced.get(field.resolve as Resolver);
      if (fn) field.resolve = fn;
    }
  }
}
