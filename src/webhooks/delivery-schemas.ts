import { z } from 'zod/v4';
import { WEBHOOK_EVENT_TYPES } from '../lti/capabilities';
import { SLOW_DOWN_STATUSES } from './retry-timing';
import { SIGNATURE_HEADER } from './signing-keys';
import { STANDARD_HEADERS } from './standard-signatures';
import { SQS_BATCH_ENTRIES } from './sqs-transport';

/**
 * What travels beside the document on each transport, declared for the event catalog (and the test
 * suite's check of every delivery it receives). The signature header names are the constants the
 * signers use; objects stay open, as receivers should expect headers they do not know.
 */

/** The headers of every HTTPS delivery attempt. */
export const httpsDeliveryHeaders = z.looseObject({
  'Content-Type': z.literal('application/json'),
  'X-Subscription-Id': z.string().describe('The subscription the message is for.'),
  'X-Message-Id': z.uuid().describe('The same on every attempt of a message: deduplicate by it.'),
  'X-Event-Name': z.enum(WEBHOOK_EVENT_TYPES),
  'X-Delivery-Attempt': z.string().regex(/^[1-9]\d*$/).describe('1 for the first attempt.'),
  [SIGNATURE_HEADER]: z
    .string()
    .regex(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    .describe(
      "Canvas's signature: a JWT signed RS256 (kid in its header; keys at /api/lti/security/jwks), claims iss canvas, sub the subscription id, aud the destination URL, iat, exp, jti `<message id>:<attempt>`, message_id, event_name and body_sha256 (base64url SHA-256 of the exact body bytes).",
    ),
  [STANDARD_HEADERS.id]: z.uuid().describe('Standard Webhooks: the message id (as X-Message-Id).'),
  [STANDARD_HEADERS.timestamp]: z.string().regex(/^\d+$/).describe("Standard Webhooks: the attempt's time, unix seconds."),
  [STANDARD_HEADERS.signature]: z
    .string()
    .regex(/^v1a?,[A-Za-z0-9+/]+={0,2}( v1a?,[A-Za-z0-9+/]+={0,2})*$/)
    .describe(
      'Standard Webhooks signatures of `<webhook-id>.<webhook-timestamp>.<body>`, space-separated: `v1a,` Ed25519 with a key of the JWKS (always), `v1,` HMAC-SHA256 with the subscription secret (when it has one; two during a rotation).',
    ),
});

/** The SQS message attributes (String attributes) of every message sent to a queue. */
export const sqsMessageAttributes = z.looseObject({
  subscription_id: z.string(),
  message_id: z.uuid().describe('Deduplicate by it: a send that timed out yet arrived is sent again.'),
  event_name: z.enum(WEBHOOK_EVENT_TYPES),
});

export const SQS_BATCH = SQS_BATCH_ENTRIES;

/** What an HTTPS receiver may answer, and what the service does about it. */
export const RECEIVER_ANSWERS: { status: string; effect: string }[] = [
  { status: '2xx', effect: 'Delivered; never sent again (except by an operator’s replay, under the same message id).' },
  { status: '410', effect: 'Gone: the subscription is deactivated at once (DeactivatedAt, DeactivationReason), its queued messages dead-lettered; a PUT of the subscription reactivates it.' },
  ...[...SLOW_DOWN_STATUSES].map((s) => ({
    status: String(s),
    effect: `${s === 429 ? 'Too Many Requests' : 'Service Unavailable'}: retried after Retry-After (seconds or HTTP-date) when given, else with backoff; the per-destination concurrency is halved (grows back on success).`,
  })),
  { status: '3xx', effect: 'Redirects are not followed: a failed attempt, retried.' },
  { status: 'other, timeout, network error', effect: 'A failed attempt, retried with full-jitter exponential backoff until the retry window ends (then dead-lettered).' },
];
