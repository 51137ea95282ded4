import { GraphQLObjectType, GraphQLSchema } from 'graphql';
import { ClassType, Field, FieldResolver, getMetadataStorage, ID, InterfaceType, registerEnumType, Resolver, Root } from 'type-graphql';
import { orHidden } from '../../common/visible';
import type { RequestContext } from '../../request/context';
import { toGlobalId } from '../../common/relay';

/** Types reachable through legacyNode(type:, _id:), as in Canvas's NodeType enum. */
export enum NodeType {
  Account = 'Account',
  User = 'User',
  Course = 'Course',
  Section = 'Section',
  Enrollment = 'Enrollment',
  Group = 'Group',
  GroupMembership = 'GroupMembership',
  GroupSet = 'GroupSet',
  Discussion = 'Discussion',
  DiscussionEntry = 'DiscussionEntry',
  File = 'File',
  BlackoutDate = 'BlackoutDate',
  ErrorReport = 'ErrorReport',
  Module = 'Module',
  ModuleItem = 'ModuleItem',
  ModuleAssignmentOverride = 'ModuleAssignmentOverride',
  Assignment = 'Assignment',
  Submission = 'Submission',
  Quiz = 'Quiz',
  QuizSubmission = 'QuizSubmission',
  Page = 'Page',
  ExternalTool = 'ExternalTool',
  PlannerNote = 'PlannerNote',
  PlannerOverride = 'PlannerOverride',
  ToolProxy = 'ToolProxy',
  CalendarEvent = 'CalendarEvent',
}
registerEnumType(NodeType, { name: 'NodeType' });

interface NodeEntry {
  entity: ClassType;
  load: (ctx: RequestContext, id: number) => Promise<object | null>;
}
const registry = new Map<string, NodeEntry>();
const typeOfEntity = new Map<unknown, string>();

/** Each area registers its node types: how to load one visibly for the viewer. */
export function registerNode(typeName: NodeType, entity: ClassType, load: NodeEntry['load']): void {
  registry.set(typeName, { entity, load });
  typeOfEntity.set(entity, typeName);
}

export function nodeEntry(typeName: string): NodeEntry | undefined {
  return registry.get(typeName);
}

/**
 * An object by node type and numeric id through that type's checked lookup, as node(id:) and
 * legacyNode load it; null when it is missing or the caller may not see it.
 */
export function visibleNode(ctx: RequestContext, typeName: string, id: number): Promise<object | null> {
  const entry = registry.get(typeName);
  return entry ? orHidden(() => entry.load(ctx, id)) : Promise.resolve(null);
}

@InterfaceType('Node', {
  resolveType: (value: object) => typeOfEntity.get(value.constructor),
})
export abstract class Node {
  @Field(() => ID, { description: 'Global Relay id.' })
  id: string;
}

const nodeTypes: { type: ClassType; typeName: NodeType }[] = [];

/** Base resolver giving a node type its global `id` and numeric `_id` (as a string, as Canvas does). */
export function NodeResolver(typeName: NodeType, type: ClassType) {
  nodeTypes.push({ type, typeName });
  @Resolver(() => type)
  abstract class NodeFields {
    @FieldResolver(() => ID)
    id(@Root() root: { id: number }): string {
      return toGlobalId(typeName, root.id);
    }

    @FieldResolver(() => ID, { description: 'Numeric (legacy) id.' })
    _id(@Root() root: { id: number }): string {
      return String(root.id);
    }
  }
  return NodeFields;
}

/**
 * `id` and `_id` of every node type, resolved by plain functions once the schema is built.
 * Every row of every list asks for them, and type-graphql runs each @FieldResolver through its
 * container lookup, parameter assembly and middleware chain: on a page of 1,000 module items that was
 * the largest share of GraphQL's own time. The functions compute exactly what NodeFields does.
 */
export function resolveNodeIdsDirectly(schema: GraphQLSchema): void {
  const names = new Map<unknown, string>(getMetadataStorage().objectTypes.map((o) => [o.target, o.name]));
  for (const { type, typeName } of nodeTypes) {
    const gqlType = schema.getType(names.get(type) ?? '');
    if (!(gqlType instanceof GraphQLObjectType)) continue;
    const fields = gqlType.getFields();
    if (fields._id) fields._id.resolve = (root: { id: number }) => String(root.id);
    if (fields.id) fields.id.resolve = (root: { id: number }) => toGlobalId(typeName, root.id);
  }
}
