import { Extensions } from 'type-graphql';
import { getNamedType, getNullableType, GraphQLField, GraphQLSchema, isInterfaceType, isListType, isObjectType } from 'graphql';

/**
 * Every list field of the schema has a bound: one request must not be able to multiply
 * itself through a list of unknown length, and the cost estimate (cost.ts) can only be as good as the
 * lengths it assumes. A list is bounded either as a Relay connection's page (`edges`/`nodes`, at most
 * the `first` asked, see relay.ts) or by a declared maximum (`@ListBound(n)`), which the executor also
 * enforces (budget.ts cuts a longer answer to its first n), so the declaration is true by construction.
 * test/graphql.list-bounds.test.ts walks the built schema and fails on a list field with neither.
 */

/** Extension key of a list field's declared maximum length. */
export const MAX_ITEMS = 'maxItems';
/** Extension key marking a connection's `edges`/`nodes`: as long as the page the connection field was asked for. */
export const PAGE_LIST = 'pageList';

/** Declares the most items a list field returns. Prefer the domain's own limit; past it, the list is cut. */
export function ListBound(max: number): MethodDecorator & PropertyDecorator & ClassDecorator {
  return Extensions({ [MAX_ITEMS]: max });
}

/** Marks a connection's page lists (relay.ts). */
export function PageList(): MethodDecorator & PropertyDecorator & ClassDecorator {
  return Extensions({ [PAGE_LIST]: true });
}

type AnyField = GraphQLField<unknown, unknown>;

/** A field's declared maximum, if it has one. */
export function declaredMax(field: AnyField): number | undefined {
  const max = field.extensions?.[MAX_ITEMS];
  return typeof max === 'number' && Number.isInteger(max) && max >= 0 ? max : undefined;
}

export function isPageList(field: AnyField): boolean {
  return field.extensions?.[PAGE_LIST] === true;
}

export function isListField(field: AnyField): boolean {
  return isListType(getNullableType(field.type));
}

/**
 * `Type.field` of every list field (of object and interface types; introspection aside) that has no
 * bound, and of every page list whose connection is reachable through a field without `first`.
 */
export function unboundedLists(schema: GraphQLSchema): string[] {
  const out: string[] = [];
  const types = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__'));
  for (const type of types) {
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      if (isListField(field) && !isPageList(field) && declaredMax(field) === undefined) out.push(`${type.name}.${field.name}`);
    }
  }
  // A page list is bounded only if every field leading to its connection takes `first`.
  for (const type of types) {
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const target = getNamedType(field.type);
      if (!isObjectType(target) || !Object.values(target.getFields()).some(isPageList)) continue;
      if (!field.args.some((a) => a.name === 'first')) out.push(`${type.name}.${field.name} (a connection without first)`);
    }
  }
  return out;
}
