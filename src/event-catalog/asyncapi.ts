import type { GraphQLSchema } from 'graphql';
import { z } from 'zod/v4';
import type { Config } from '../config';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../lti/capabilities';
import { caliperEnvelope } from '../webhooks/caliper-schemas';
import { httpsDeliveryHeaders, RECEIVER_ANSWERS, SQS_BATCH, sqsMessageAttributes } from '../webhooks/delivery-schemas';
import { EVENT_SUMMARIES, liveEventDocument } from '../webhooks/event-schemas';
import { JsonSchema, subscriptionFields } from './graphql-payloads';

/**
 * The event catalog: an AsyncAPI 3.0 document of everything the service emits — each webhook event
 * type in both formats (live-event, Caliper) on both transports (HTTPS, SQS), and the graphql-ws
 * subscriptions — built from the declarations the code builds the events from (src/webhooks/
 * event-schemas.ts, caliper-schemas.ts, delivery-schemas.ts) and from the executable GraphQL schema.
 */
export const FORMATS = ['live-event', 'caliper'] as const;
export type EventFormat = (typeof FORMATS)[number];
export const TRANSPORTS = ['https', 'sqs'] as const;
export type EventTransport = (typeof TRANSPORTS)[number];

export type DeliverySettings = Pick<
  Config,
  'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_RETRY_BASE_MS' | 'WEBHOOK_RETRY_MAX_MS' | 'WEBHOOK_RETRY_WINDOW_MS' | 'WEBHOOK_DEACTIVATE_FAILURES' | 'WEBHOOK_DEACTIVATE_WINDOW_MS'
>;

/**
 * Published objects are open (Canvas adds fields over time; receivers should ignore unknown ones), so
 * the closing `additionalProperties: false` zod writes is left out; the test suite closes them again.
 * A date-time's or uuid's format says it all: zod's equivalent pattern is left out too.
 */
function open(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(open);
  if (!s || typeof s !== 'object') return s;
  const out: JsonSchema = {};
  const formatted = ['date-time', 'uuid'].includes((s as JsonSchema).format);
  for (const [k, v] of Object.entries(s)) {
    if ((k === 'additionalProperties' && v === false) || k === '$schema' || (formatted && k === 'pattern')) continue;
    out[k] = open(v);
  }
  return out;
}

/** A declaration as JSON Schema draft 07 (AsyncAPI 3.0's default schema format is a superset of it). */
export function published(schema: z.ZodType): JsonSchema {
  return open(z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' })) as JsonSchema;
}

/** Component keys: `live-event.grade_change` (a payload schema), `https.caliper.grade_change` (a message). */
export const payloadKey = (format: EventFormat, event: string) => `${format}.${event}`;
export const messageKey = (transport: EventTransport, format: EventFormat, event: string) => `${transport}.${format}.${event}`;

const hours = (ms: number) => `${Math.round((ms / 3_600_000) * 10) / 10} h`;
const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

function payloadSchemas(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const e of WEBHOOK_EVENT_TYPES) {
    out[payloadKey('live-event', e)] = published(liveEventDocument(e));
    out[payloadKey('caliper', e)] = published(caliperEnvelope(e));
  }
  return out;
}

function webhookMessage(transport: EventTransport, format: EventFormat, event: WebhookEventType): JsonSchema {
  return {
    name: event,
    title: `${event} (${format}, ${transport === 'https' ? 'HTTPS' : 'SQS'})`,
    summary: EVENT_SUMMARIES[event],
    contentType: 'application/json',
    headers: { $ref: transport === 'https' ? '#/components/schemas/HttpsDeliveryHeaders' : '#/components/schemas/SqsMessageAttributes' },
    payload: { $ref: `#/components/schemas/${payloadKey(format, event)}` },
    correlationId: { description: 'The message id: the same on every attempt.', location: transport === 'https' ? '$message.header#/X-Message-Id' : '$message.header#/message_id' },
  };
}

function httpsDescription(d: DeliverySettings): string {
  const answers = RECEIVER_ANSWERS.map((a) => `- **${a.status}**: ${a.effect}`).join('\n');
  return [
    "Each subscription's HTTPS endpoint (its TransportMetadata Url) receives one `POST` per message: the JSON document as body, signed with Canvas's JWT (`X-Webhook-Signature`) and the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). Redirects are not followed; any 2xx is success; each attempt is bounded by " +
      `${seconds(d.WEBHOOK_TIMEOUT_MS)}.`,
    `Retries: full-jitter exponential backoff, a random delay up to min(${seconds(d.WEBHOOK_RETRY_MAX_MS)}, ${seconds(d.WEBHOOK_RETRY_BASE_MS)} · 2^(attempt−1)), until ${hours(d.WEBHOOK_RETRY_WINDOW_MS)} after the event, then the message is dead-lettered. Delivery is at least once: deduplicate by \`webhook-id\`. After ${d.WEBHOOK_DEACTIVATE_FAILURES} failed attempts in a row and no success for ${hours(d.WEBHOOK_DEACTIVATE_WINDOW_MS)} the subscription is deactivated.`,
    `What the receiver answers:\n${answers}`,
  ].join('\n\n');
}

export interface CatalogOptions {
  name: string;
  version: string;
  description?: string;
  graphqlSchema: GraphQLSchema;
  delivery: DeliverySettings;
}

export function asyncApiDocument(opts: CatalogOptions): JsonSchema {
  const schemas: Record<string, JsonSchema> = {
    ...payloadSchemas(),
    HttpsDeliveryHeaders: published(httpsDeliveryHeaders),
    SqsMessageAttributes: published(sqsMessageAttributes),
  };
  const messages: Record<string, JsonSchema> = {};
  const channelMessages: Record<EventTransport, Record<string, JsonSchema>> = { https: {}, sqs: {} };
  for (const t of TRANSPORTS) {
    for (const f of FORMATS) {
      for (const e of WEBHOOK_EVENT_TYPES) {
        const key = messageKey(t, f, e);
        messages[key] = webhookMessage(t, f, e);
        channelMessages[t][key] = { $ref: `#/components/messages/${key}` };
      }
    }
  }
  const refsOf = (channel: string, keys: string[]) => keys.map((k) => ({ $ref: `#/channels/${channel}/messages/${k}` }));

  // webhookMessages carries each document as a JSON object: its shape is one of the payloads above.
  const documents = { anyOf: FORMATS.flatMap((f) => WEBHOOK_EVENT_TYPES.map((e) => ({ $ref: `#/components/schemas/${payloadKey(f, e)}` }))) };
  const subscriptions = subscriptionFields(opts.graphqlSchema, { 'WebhookMessage.document': documents });
  const wsChannels: Record<string, JsonSchema> = {};
  const wsOperations: Record<string, JsonSchema> = {};
  for (const s of subscriptions) {
    const key = `graphql-ws.${s.name}`;
    schemas[key] = s.message;
    messages[key] = { name: s.name, title: `${s.name} (graphql-ws)`, summary: s.description ?? undefined, contentType: 'application/json', payload: { $ref: `#/components/schemas/${key}` } };
    const args = s.args.map((a) => `\`${a.name}: ${a.type}\`${a.description ? ` (${a.description})` : ''}`).join(', ');
    wsChannels[s.name] = {
      address: '/graphql',
      title: `subscription ${s.name}`,
      description: `${s.description ?? ''}\n\nSubscribe over graphql-ws (\`subscription { ${s.name}${s.args.length ? '(…)' : ''} { … } }\`)${args ? `; arguments: ${args}` : ''}. Authenticate in \`connection_init\` with \`{"Authorization": "Bearer <token>"}\`.`,
      servers: [{ $ref: '#/servers/graphqlWs' }],
      messages: { [key]: { $ref: `#/components/messages/${key}` } },
    };
    wsOperations[`${s.name}`] = { action: 'send', title: `Stream ${s.name}`, channel: { $ref: `#/channels/${s.name}` }, messages: refsOf(s.name, [key]) };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: `${opts.name} events`,
      version: opts.version,
      description: [
        opts.description ?? '',
        "Everything the service emits: the plagiarism platform's webhook events (Canvas live events) in the live-event and Caliper 1.1 formats, over HTTPS and SQS, and the graphql-ws subscriptions. Payload schemas are generated from the declarations the service builds its events from. Objects are open: ignore fields you do not know.",
      ]
        .filter(Boolean)
        .join('\n\n'),
    },
    defaultContentType: 'application/json',
    servers: {
      subscriberEndpoint: {
        host: '{host}',
        protocol: 'https',
        description: "A webhook subscription's own HTTPS endpoint (its TransportMetadata Url).",
        variables: { host: { description: "The subscriber's host (and port)." } },
      },
      sqs: {
        host: 'sqs.{region}.amazonaws.com',
        protocol: 'sqs',
        description: "Amazon SQS (or the operator's SQS-compatible endpoint): a subscription's queue, of an account the operator allows.",
        variables: { region: { description: "The queue's region (read from the queue URL).", default: 'us-east-1' } },
      },
      graphqlWs: {
        host: '{host}',
        pathname: '/graphql',
        protocol: 'wss',
        protocolVersion: 'graphql-transport-ws',
        description: "This service's GraphQL endpoint over WebSocket (graphql-ws); `ws` where the service is served over plain HTTP.",
        variables: { host: { description: "This service's public host." } },
      },
    },
    channels: {
      webhookHttps: {
        address: '{url}',
        title: 'Webhook deliveries over HTTPS',
        description: httpsDescription(opts.delivery),
        parameters: { url: { description: "The subscription's HTTPS URL." } },
        servers: [{ $ref: '#/servers/subscriberEndpoint' }],
        messages: channelMessages.https,
      },
      webhookSqs: {
        address: '{queueUrl}',
        title: 'Webhook deliveries over SQS',
        description: `The same documents sent to the subscription's queue with SendMessageBatch, up to ${SQS_BATCH} messages (and 256 KiB) per call; the message attributes (String) name the subscription, the message and the event. SQS answers per entry: only refused entries are retried (with the HTTPS backoff and window). Delivery is at least once: deduplicate by the message_id attribute.`,
        parameters: { queueUrl: { description: "The subscription's queue URL (`https://sqs.<region>.amazonaws.com/<account>/<queue>`)." } },
        servers: [{ $ref: '#/servers/sqs' }],
        messages: channelMessages.sqs,
      },
      ...wsChannels,
    },
    operations: {
      deliverWebhookHttps: {
        action: 'send',
        title: 'Deliver a webhook message over HTTPS',
        channel: { $ref: '#/channels/webhookHttps' },
        messages: refsOf('webhookHttps', Object.keys(channelMessages.https)),
        bindings: { http: { method: 'POST' } },
      },
      deliverWebhookSqs: {
        action: 'send',
        title: 'Send a webhook message to an SQS queue',
        channel: { $ref: '#/channels/webhookSqs' },
        messages: refsOf('webhookSqs', Object.keys(channelMessages.sqs)),
      },
      ...wsOperations,
    },
    components: { schemas, messages },
  };
}
