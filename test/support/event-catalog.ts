import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { buildAppSchema } from '../../src/app/schema';
import { packageInfo } from '../../src/common/package-info';
import { loadConfig } from '../../src/config';
import { asyncApiDocument, EventFormat, EventTransport, payloadKey } from '../../src/event-catalog/asyncapi';
import { closed } from './response-schemas';

/**
 * Every webhook delivery a test receiver gets (HTTPS and SQS, both formats) and every graphql-ws
 * subscription result a test client gets is held to the event catalog, the document /api/asyncapi.json
 * serves: a payload that drifts from it is reported (test/support/drift.ts) and fails the test. As
 * with REST answers (response-schemas.ts), objects the catalog publishes open are closed here, so a
 * field the code emits must be declared too.
 */
type JsonSchema = Record<string, any>;
const BASE = 'https://lms.test/asyncapi';

/** Header names are case-insensitive: Node hands them over in lower case. */
function lowerCaseHeaders(schema: JsonSchema): JsonSchema {
  return {
    ...schema,
    properties: Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    required: (schema.required ?? []).map((k: string) => k.toLowerCase()),
  };
}

let doc: JsonSchema | undefined;
let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

/** The catalog as the service builds it (the same function the route calls). */
export function catalogDocument(): JsonSchema {
  return (doc ??= asyncApiDocument({ ...packageInfo(), graphqlSchema: buildAppSchema(), delivery: loadConfig({}) }));
}

const HTTPS_HEADERS = 'https-headers-lower-case';

/** The compiled schema at a pointer into the catalog's components/schemas (null when there is none). */
function validator(pointer: string): ValidateFunction | null {
  let v = validators.get(pointer);
  if (v) return v;
  if (!ajv) {
    const schemas = closed(catalogDocument().components.schemas) as JsonSchema;
    ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    ajv.addSchema({ $id: BASE, components: { schemas: { ...schemas, [HTTPS_HEADERS]: lowerCaseHeaders(schemas.HttpsDeliveryHeaders) } } });
  }
  v = ajv.getSchema(`${BASE}#/components/schemas/${pointer}`) ?? undefined;
  if (!v) return null;
  validators.set(pointer, v);
  return v;
}

const describeErrors = (v: ValidateFunction) =>
  (v.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${e.params.additionalProperty})` : ''}`)
    .join('; ');

/** What was checked, by `transport format event`, so a test can see every combination was exercised. */
export const checkedDeliveries = new Map<string, number>();

/** The problem with one delivery, or null when it matches its message in the catalog. */
export function deliveryProblem(transport: EventTransport, meta: Record<string, string>, body: string): string | null {
  const eventName = transport === 'https' ? meta['x-event-name'] : meta.event_name;
  let json: any;
  try {
    json = JSON.parse(body);
  } catch {
    return `${transport} delivery of ${eventName} is not JSON`;
  }
  const format: EventFormat | null = json && typeof json === 'object' ? (json.metadata ? 'live-event' : json.dataVersion ? 'caliper' : null) : null;
  if (!format) return `${transport} delivery of ${eventName} is in neither format`;
  const payload = validator(payloadKey(format, eventName));
  if (!payload) return `${transport} delivery of ${eventName}: the catalog has no ${payloadKey(format, eventName)}`;
  if (!payload(json)) return `${transport} ${format} ${eventName} payload: ${describeErrors(payload)}`;
  const headers = validator(transport === 'https' ? HTTPS_HEADERS : 'SqsMessageAttributes')!;
  if (!headers(meta)) return `${transport} ${format} ${eventName} ${transport === 'https' ? 'headers' : 'message attributes'}: ${describeErrors(headers)}`;
  const key = `${transport} ${format} ${eventName}`;
  checkedDeliveries.set(key, (checkedDeliveries.get(key) ?? 0) + 1);
  return null;
}

/** The problem with one graphql-ws result, or null (results of operations that are not subscriptions pass). */
export function wsResultProblem(result: { data?: Record<string, unknown> | null }): string | null {
  const d = catalogDocument();
  for (const field of Object.keys(result.data ?? {})) {
    if (!d.channels[field]) continue;
    const v = validator(`graphql-ws.${field}/properties/payload`)!;
    if (!v(result)) return `graphql-ws ${field} result: ${describeErrors(v)}`;
  }
  return null;
}
