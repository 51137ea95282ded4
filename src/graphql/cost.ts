import {
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  GraphQLField,
  GraphQLInt,
  GraphQLIncludeDirective,
  GraphQLNamedType,
  GraphQLSchema,
  GraphQLSkipDirective,
  isListType,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  OperationDefinitionNode,
  SchemaMetaFieldDef,
  SelectionSetNode,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  valueFromAST,
} from 'graphql';
import { declaredMax, isPageList } from '../common/list-bounds';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../common/relay';

/**
 * The estimated cost of one GraphQL operation, computed from its document before anything runs (the
 * graphql-ruby model Canvas uses): every selected field costs 1, and what is selected under a list
 * counts once per item the list may hold. A connection's lists (`nodes`, `edges`) hold its `first`
 * (or `last`) items, or the largest page (MAX_PAGE_SIZE) when the caller gives none, because that is
 * what a client may get back; any other list holds its declared maximum (list-bounds.ts: e.g.
 * `Module.moduleItems` 100), never a guess, so a parent-child cycle such as item -> module -> items
 * costs the fan-out it really has. Nested lists therefore multiply, which is exactly the amplification
 * the limit is for.
 */

/**
 * Items assumed in a list with no declared bound: only introspection's own lists (`__Schema.types`,
 * `__Type.fields` …, costed as a default page as before), as every list of our schema declares one
 * (test/graphql.list-bounds.test.ts).
 */
export const UNBOUNDED_LIST_SIZE = DEFAULT_PAGE_SIZE;

type Variables = Record<string, unknown>;

interface Walk {
  schema: GraphQLSchema;
  variables: Variables;
  fragments: Map<string, FragmentDefinitionNode>;
  /** Fragment costs by name and list size in effect, so a fragment spread many times is costed once. */
  memo: Map<string, number>;
  /** Fragments being costed (guards against cycles in a document that was not validated). */
  active: Set<string>;
}

/**
 * Costs of operations that declare no variables, by document object (Apollo hands every request of a
 * cached query text the same document): nothing else the cost reads can change between requests.
 */
const constantCosts = new WeakMap<DocumentNode, { schema: GraphQLSchema; byName: Map<string, number> }>();

/** The operation's cost, or 0 when the document names no such operation (validation reports that). */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null, variables?: Variables | null): number {
  const operation = pickOperation(document, operationName);
  if (!operation) return 0;
  if (operation.variableDefinitions?.length) return computeCost(schema, document, operation, variables);
  let known = constantCosts.get(document);
  if (!known || known.schema !== schema) constantCosts.set(document, (known = { schema, byName: new Map() }));
  const name = operationName ?? '';
  let cost = known.byName.get(name);
  if (cost === undefined) known.byName.set(name, (cost = computeCost(schema, document, operation, variables)));
  return cost;
}

function computeCost(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables?: Variables | null): number {
  const root = schema.getRootType(operation.operation);
  if (!root) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const walk: Walk = { schema, variables: variables ?? {}, fragments, memo: new Map(), active: new Set() };
  return selectionCost(walk, operation.selectionSet, root, undefined);
}

function pickOperation(document: DocumentNode, name?: string | null): OperationDefinitionNode | undefined {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (name) return ops.find((o) => o.name?.value === name);
  return ops.length === 1 ? ops[0] : undefined;
}

/**
 * Cost of a selection set on `parent`. `pageSize` is the page of the connection whose fields these
 * are (it sizes the connection's own lists); undefined outside a connection.
 */
function selectionCost(walk: Walk, set: SelectionSetNode, parent: GraphQLNamedType, pageSize: number | undefined): number {
  let total = 0;
  for (const sel of set.selections) {
    if (!included(walk, sel)) continue;
    if (sel.kind === Kind.FIELD) {
      total += fieldCost(walk, sel, parent, pageSize);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      const cond = sel.typeCondition ? walk.schema.getType(sel.typeCondition.name.value) : parent;
      // On an abstract type the branches are summed: an upper bound, as any of them may apply.
      if (cond) total += selectionCost(walk, sel.selectionSet, cond, pageSize);
    } else {
      const name = sel.name.value;
      const key = `${name}@${pageSize ?? ''}`;
      const known = walk.memo.get(key);
      if (known !== undefined) {
        total += known;
        continue;
      }
      const frag = walk.fragments.get(name);
      if (!frag || walk.active.has(name)) continue;
      const cond = walk.schema.getType(frag.typeCondition.name.value);
      if (!cond) continue;
      walk.active.add(name);
      const cost = selectionCost(walk, frag.selectionSet, cond, pageSize);
      walk.active.delete(name);
      walk.memo.set(key, cost);
      total += cost;
    }
  }
  return total;
}

function fieldCost(walk: Walk, node: FieldNode, parent: GraphQLNamedType, pageSize: number | undefined): number {
  const def = fieldDef(walk.schema, parent, node.name.value);
  if (!def) return 1;
  const type = getNamedType(def.type);
  if (!node.selectionSet || !isCompositeType(type)) return 1;
  const ownPage = connectionPageSize(walk, node, def);
  const children = selectionCost(walk, node.selectionSet, type, ownPage);
  // A list counts its items' selections once per item: a connection's page lists hold the page asked
  // for, every other list its declared maximum.
  return 1 + listItems(def, pageSize) * children;
}

function listItems(def: GraphQLField<unknown, unknown>, pageSize: number | undefined): number {
  if (!isListType(getNullableType(def.type))) return 1;
  if (isPageList(def)) return pageSize ?? MAX_PAGE_SIZE;
  return declaredMax(def) ?? UNBOUNDED_LIST_SIZE;
}

/** The page a connection field returns, from its `first`/`last` argument; undefined if it takes none. */
function connectionPageSize(walk: Walk, node: FieldNode, def: GraphQLField<unknown, unknown>): number | undefined {
  if (!isObjectType(getNamedType(def.type))) return undefined;
  const pagingArgs = def.args.filter((a) => a.name === 'first' || a.name === 'last');
  if (!pagingArgs.length) return undefined;
  for (const arg of pagingArgs) {
    const given = node.arguments?.find((a) => a.name.value === arg.name);
    if (!given) continue;
    const value = valueFromAST(given.value, GraphQLInt, walk.variables);
    if (typeof value === 'number' && Number.isFinite(value)) return Math.min(Math.max(value, 0), MAX_PAGE_SIZE);
  }
  return MAX_PAGE_SIZE;
}

function fieldDef(schema: GraphQLSchema, parent: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
  if (parent === schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  }
  return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
}

/** False when @skip(if: true) or @include(if: false) leaves the selection out. */
function included(walk: Walk, node: { directives?: readonly unknown[] } & Parameters<typeof getDirectiveValues>[1]): boolean {
  if (!node.directives?.length) return true;
  try {
    if (getDirectiveValues(GraphQLSkipDirective, node, walk.variables)?.if === true) return false;
    if (getDirectiveValues(GraphQLIncludeDirective, node, walk.variables)?.if === false) return false;
  } catch {
    // A bad directive argument fails validation or execution; cost the selection as if it ran.
  }
  return true;
}
