import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { restRoutes } from '../../src/app/routes';
import type { RestRoute } from '../../src/api/rest/route';
import { JsonSchema, namedSchemas } from '../../src/api/rest/response';
import { answerSchema } from '../../src/rest/openapi';

/**
 * Every REST answer a test server sends is held to its row's declared schema (src/api/rest/response.ts),
 * so a presenter and its documented shape cannot drift apart: a 2xx JSON answer that does not fit is
 * turned into a 500 naming the problem, and the test that caused it fails. The document calls objects
 * open (clients should ignore new fields); here they are closed, so a field a presenter emits must be
 * declared too. RESPONSE_SCHEMAS=off turns the check off (e.g. to see the original answer).
 */
const BASE = 'https://lms.test/openapi';

/** additionalProperties: false on every object that lists its properties and says nothing else. */
export function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as JsonSchema).map(([p, s]) => [p, closed(s)])) : closed(v);
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

interface Checker {
  byRoute: Map<string, ValidateFunction>;
  rows: Map<string, RestRoute>;
}
let checker: Checker | undefined;

function build(): Checker {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const answers: Record<string, unknown> = {};
  const rows = new Map<string, RestRoute>();
  restRoutes.forEach((route, i) => {
    rows.set(`${route.method} ${route.path}`, route);
    const schema = answerSchema(route);
    if (schema) answers[`r${i}`] = closed(schema);
  });
  ajv.addSchema({ $id: BASE, components: { schemas: closed(namedSchemas()) }, answers });
  const byRoute = new Map<string, ValidateFunction>();
  restRoutes.forEach((route, i) => {
    if (answers[`r${i}`]) byRoute.set(`${route.method} ${route.path}`, ajv.getSchema(`${BASE}#/answers/r${i}`)!);
  });
  return { byRoute, rows };
}

/** The problem with one answer, or null when it fits (or is not a 2xx JSON answer of a table row). */
export function answerProblem(method: string, routePath: string, status: number, contentType: string, payload: string, accept = ''): string | null {
  checker ??= build();
  const key = `${method} ${routePath}`;
  const route = checker.rows.get(key);
  if (!route || status < 200 || status >= 300 || status === 204) return null;
  // Canvas's string-ids mode turns every id into a string: the documented shape is the default one.
  if (accept.includes('application/json+canvas-string-ids')) return null;
  if (!contentType.includes('application/json')) return null;
  const validate = checker.byRoute.get(key);
  if (!validate) return `${key} answered ${status} with a JSON body but declares no response schema`;
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return `${key} answered ${status} with a body that is not JSON`;
  }
  if (validate(body)) return null;
  const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${e.params.additionalProperty})` : ''}`);
  return `${key} answered a body its response schema does not allow: ${errors.join('; ')}`;
}

export function checkResponseSchemas(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (req, reply, payload) => {
    if (typeof payload !== 'string') return payload;
    const problem = answerProblem(req.method, req.routeOptions.url ?? '', reply.statusCode, String(reply.getHeader('content-type') ?? ''), payload, String(req.headers.accept ?? ''));
    if (!problem) return payload;
    process.stderr.write(`response schema: ${problem}\n`);
    reply.code(500);
    return JSON.stringify({ errors: [{ message: `response schema: ${problem}` }] });
  });
}
