import {
  getNamedType,
  GraphQLField,
  GraphQLOutputType,
  GraphQLSchema,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';

/**
 * JSON Schema of what graphql-ws sends for a subscription, read from the executable schema the
 * resolvers are built into (so the catalog follows the schema, not a description of it). Which fields
 * arrive is the subscriber's selection, so none is required; a field's type and nullability are the
 * schema's. Nested objects are described to a small depth, then named (the GraphQL schema has the rest).
 */
export type JsonSchema = Record<string, any>;

const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string', description: 'GraphQL ID (a string on the wire)' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  JSONObject: { type: 'object' },
  JSON: {},
};

const MAX_DEPTH = 2;

function orNull(s: JsonSchema): JsonSchema {
  if (typeof s.type === 'string') return { ...s, type: [s.type, 'null'] };
  return { anyOf: [s, { type: 'null' }] };
}

/** Schemas to use instead of what the GraphQL type says, by `Type.field` (e.g. a JSON scalar whose shape is known). */
export type FieldOverrides = Record<string, JsonSchema>;

function outputSchema(type: GraphQLOutputType, depth: number, overrides: FieldOverrides): JsonSchema {
  if (isNonNullType(type)) return bare(type.ofType, depth, overrides);
  const s = bare(type, depth, overrides);
  return Object.keys(s).length ? orNull(s) : s;
}

function bare(type: GraphQLOutputType, depth: number, overrides: FieldOverrides): JsonSchema {
  if (isNonNullType(type)) return bare(type.ofType, depth, overrides);
  if (isListType(type)) return { type: 'array', items: outputSchema(type.ofType, depth, overrides) };
  if (isScalarType(type)) return { ...(SCALARS[type.name] ?? {}), ...(SCALARS[type.name] ? {} : { description: `GraphQL scalar ${type.name}` }) };
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.name) };
  if (isObjectType(type)) {
    if (depth >= MAX_DEPTH) return { type: 'object', description: `GraphQL ${type.name} (fields as selected; see the GraphQL schema)` };
    return objectSchema(type.name, type.getFields(), depth + 1, overrides, type.description ?? undefined);
  }
  return { description: `GraphQL ${getNamedType(type).name}` };
}

function objectSchema(name: string, fields: Record<string, GraphQLField<unknown, unknown>>, depth: number, overrides: FieldOverrides, description?: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [fieldName, f] of Object.entries(fields)) {
    const override = overrides[`${name}.${fieldName}`];
    const s = override ?? outputSchema(f.type, depth, overrides);
    properties[fieldName] = f.description && !override ? { ...s, description: f.description } : s;
  }
  return { type: 'object', title: name, ...(description ? { description } : {}), properties };
}

export interface SubscriptionField {
  name: string;
  description: string | null;
  args: { name: string; type: string; description: string | null }[];
  /** The graphql-ws `next` message carrying one result of the subscription. */
  message: JsonSchema;
}

/** Every subscription field of the schema, with the JSON Schema of the messages that carry its results. */
export function subscriptionFields(schema: GraphQLSchema, overrides: FieldOverrides = {}): SubscriptionField[] {
  const root = schema.getSubscriptionType();
  if (!root) return [];
  return Object.values(root.getFields())
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((f) => ({
      name: f.name,
      description: f.description ?? null,
      args: f.args.map((a) => ({ name: a.name, type: String(a.type), description: a.description ?? null })),
      message: {
        type: 'object',
        description: 'A graphql-ws `next` message: one result of the subscription.',
        properties: {
          id: { type: 'string', description: 'The id the client gave its `subscribe` message.' },
          type: { const: 'next' },
          payload: {
            type: 'object',
            properties: {
              data: { type: ['object', 'null'], properties: { [f.name]: outputSchema(f.type, 0, overrides) }, required: [f.name] },
              errors: { type: 'array', items: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'], additionalProperties: true } },
              extensions: { type: 'object' },
            },
          },
        },
        required: ['id', 'type', 'payload'],
      },
    }));
}
