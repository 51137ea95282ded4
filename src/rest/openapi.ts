import { z } from 'zod/v4';
import { commonParams, RouteParams } from '../api/rest/input';
import type { RestRoute } from '../api/rest/route';
import { namedSchemas } from '../api/rest/response';

/**
 * OpenAPI 3.1 for the REST compatibility table, generated from the same declared params the router
 * enforces, so the document cannot drift from what the service accepts.
 */
type JsonSchema = Record<string, any>;

const PATH_PARAM = /:(\w+)/g;

function jsonSchema(schema: RouteParams): JsonSchema {
  const out = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete out.$schema;
  return out;
}

/** Canvas form names: `include[]` for lists, `group[name]` style is described by deepObject. */
function queryParameters(schema: JsonSchema, pathParams: Set<string>): JsonSchema[] {
  const props: Record<string, JsonSchema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  return Object.entries(props)
    .filter(([name]) => !pathParams.has(name))
    .map(([name, s]) => {
      const isObject = s.type === 'object';
      return {
        name,
        in: 'query',
        required: required.has(name),
        schema: s,
        ...(isObject ? { style: 'deepObject', explode: true } : {}),
      };
    });
}

/** The JSON Schema of a route's whole success body: its declared item, in a list or envelope as the router sends it. */
export function answerSchema(route: RestRoute): JsonSchema | null {
  if (route.status === 204 || !route.response) return null;
  if (!route.list) return route.response;
  const list = { type: 'array', items: route.response };
  const envelope = typeof route.list === 'object' ? route.list.envelope : undefined;
  return envelope ? { type: 'object', properties: { [envelope]: list }, required: [envelope] } : list;
}

/** The declared body without the path's own params (they are path parameters, not body fields). */
function withoutKeys(schema: JsonSchema, keys: Set<string>): JsonSchema {
  const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([k]) => !keys.has(k)));
  const required = (schema.required ?? []).filter((k: string) => !keys.has(k));
  const out: JsonSchema = { ...schema, properties };
  if (required.length) out.required = required;
  else delete out.required;
  return out;
}

function operationId(route: RestRoute): string {
  const words = route.path
    .replace(/^\/api\//, '')
    .split(/[/:_-]+/)
    .filter(Boolean);
  return [route.method.toLowerCase(), ...words].map((w, i) => (i ? w[0].toUpperCase() + w.slice(1) : w)).join('');
}

export function openApiDocument(routes: RestRoute[], info: { version: string; serverUrl?: string }): JsonSchema {
  const common = jsonSchema(commonParams);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const seenIds = new Map<string, number>();
  for (const route of routes) {
    const oaPath = route.path.replace(PATH_PARAM, '{$1}');
    const pathParams = new Set([...route.path.matchAll(PATH_PARAM)].map((m) => m[1]));
    const declared = route.accepts ? jsonSchema(route.accepts) : { type: 'object', properties: {} };
    const parameters: JsonSchema[] = [...pathParams].map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: declared.properties?.[name] ?? { type: 'string' },
    }));
    if (route.list) {
      for (const name of ['page', 'per_page']) parameters.push({ name, in: 'query', required: false, schema: common.properties[name] });
    }
    const withBody = route.method === 'POST' || route.method === 'PUT';
    if (!withBody) parameters.push(...queryParameters(declared, pathParams));
    let id = operationId(route);
    const n = seenIds.get(id) ?? 0;
    seenIds.set(id, n + 1);
    if (n) id = `${id}${n + 1}`;

    const bodySchema = withoutKeys(declared, pathParams);
    const success = String(route.status ?? 200);
    const answer = answerSchema(route);
    const op: JsonSchema = {
      operationId: id,
      summary: `${route.method} ${route.path}`,
      description: `Runs the GraphQL field \`${route.root.split('.')[0]}\`${route.list ? ' (a Canvas-paginated list with a Link header)' : ''}.`,
      parameters,
      responses: {
        // A redirect row answers only its 302.
        ...(answer ? { [success]: { description: 'Canvas JSON', content: { 'application/json': { schema: answer } } } } : route.redirect ? {} : { [success]: { description: 'No content' } }),
        ...(route.redirect ? { '302': { description: 'Redirect' } } : {}),
        '400': { description: 'Invalid params: `{"errors": {"<field>": [{"attribute", "type", "message"}]}}`' },
        ...(route.anonymous || route.auth === 'none' ? {} : { '401': { description: 'Missing or invalid access token' } }),
        '403': { description: 'Not allowed (or throttled, with RATE_LIMIT_STATUS=403)' },
        '404': { description: 'Not found' },
        '429': { description: 'Throttled: `Rate Limit Exceeded`, retry after `Retry-After` seconds' },
      },
      ...(route.anonymous || route.auth === 'none' ? { security: [] } : {}),
    };
    if (withBody) {
      op.requestBody = {
        required: false,
        content: {
          'application/json': { schema: bodySchema },
          'application/x-www-form-urlencoded': { schema: bodySchema },
          'multipart/form-data': { schema: bodySchema },
        },
      };
    }
    (paths[oaPath] ??= {})[route.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Canvas-compatible LMS REST API',
      version: info.version,
      description: 'The Canvas REST compatibility routes. Params use Canvas (Rack) form encoding or JSON; every route validates them as described here.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Paths are absolute (/api/v1/...): the server is the host that served this document, unless told.
    servers: [{ url: info.serverUrl ?? '/', description: 'This service' }],
    components: {
      schemas: namedSchemas(),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A Canvas access token (or an LTI tool JWT for /api/lti routes)' } },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
