import { defineFragment, RestInput, RestRoute } from '../api/rest/route';
import { numericIds } from '../api/rest/present';
import { list, obj, params, text, z } from '../api/rest/input';
import { WebhookSubscriptionSchema, WebhookSubscriptionsSchema } from './webhook.schemas';

const scalar = text({ max: 4096 });
/**
 * The subscription hash: shapes and sizes only. The service answers Canvas's own messages for missing
 * or invalid values (`subscription is missing`, unknown event types, bad URLs).
 */
const subscriptionParams = params({
  subscription: z
    .union([
      obj({
        ContextId: scalar.nullable().optional(),
        ContextType: scalar.nullable().optional(),
        EventTypes: list(scalar, { max: 100 }).optional(),
        Format: scalar.nullable().optional(),
        TransportMetadata: z.union([obj({ Url: text({ max: 2048 }).nullable().optional() }), scalar, z.null()]).optional(),
        TransportType: scalar.nullable().optional(),
      }),
      scalar,
      z.null(),
    ])
    .optional(),
});
const byId = params({ id: text({ max: 64 }) });

/** The record as Canvas's subscription service returns it: PascalCase keys. */
defineFragment(`fragment WebhookSubscriptionJson on WebhookSubscription {
  Id: id ContextId: contextId ContextType: contextType EventTypes: eventTypes Format: format
  TransportMetadata: transportMetadata { Url: url } TransportType: transportType
  OwnerId: ownerId OwnerType: ownerType DeveloperKey: developerKey RootAccountId: rootAccountId RootAccountUUID: rootAccountUuid
  AssociatedIntegrationId: associatedIntegrationId State: state CreatedAt: createdAt UpdatedAt: updatedAt
  UpdatedBy: updatedBy UpdatedByType: updatedByType
  DeactivatedAt: deactivatedAt DeactivationReason: deactivationReason Secret: signingSecret
}`);

type Json = Record<string, any>;
const isTree = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Our additions to Canvas's record appear only when they say something: `Secret` in the answer that
 * created or rotated it, `DeactivatedAt`/`DeactivationReason` while deliveries are stopped.
 */
const OPTIONAL_KEYS = ['Secret', 'DeactivatedAt', 'DeactivationReason'];
const present = (s: Json): Json => {
  const out = numericIds(s, ['RootAccountId']) as Json;
  for (const k of OPTIONAL_KEYS) if (out[k] == null) delete out[k];
  return out;
};

/**
 * `subscription[…]` (form or JSON) → the GraphQL input; null when it is missing or empty, which the
 * service answers with Canvas's `subscription is missing`. Odd shapes pass through as nulls so the
 * service reports them as invalid values.
 */
function subscriptionInput({ params, values }: RestInput): Json | null {
  const s = values.subscription;
  if (!isTree(s) || Object.keys(s).length === 0) return null;
  // Only an array (or one bare word, not split on commas) is a list of event types here; an indexed hash is not.
  const events = (params.subscription as Json).EventTypes;
  const metadata = s.TransportMetadata;
  return {
    contextId: s.ContextId ?? null,
    contextType: s.ContextType ?? null,
    eventTypes: Array.isArray(events) ? s.EventTypes : typeof events === 'string' ? [events] : null,
    format: s.Format ?? null,
    transportMetadata: isTree(metadata) ? { url: metadata.Url ?? null } : null,
    transportType: s.TransportType ?? null,
  };
}

const FIELDS = '{ webhookSubscription { ...WebhookSubscriptionJson } }';

/** /api/lti/subscriptions: authenticated only by a tool's JWT access token (auth: 'lti'). */
export const subscriptionRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/lti/subscriptions',
    accepts: subscriptionParams,
    operation: `mutation($input: WebhookSubscriptionInput) { createWebhookSubscription(input: $input) ${FIELDS} }`,
    variables: (input) => ({ input: subscriptionInput(input) }),
    root: 'createWebhookSubscription',
    payloadKey: 'webhookSubscription',
    present,
    response: WebhookSubscriptionSchema,
    auth: 'lti',
  },
  {
    method: 'GET',
    path: '/api/lti/subscriptions',
    accepts: params({}),
    operation: `query($startKey: String) { webhookSubscriptions(startKey: $startKey) { nodes { ...WebhookSubscriptionJson } endKey } }`,
    variables: ({ headers }) => ({ startKey: typeof headers.startkey === 'string' ? headers.startkey : null }),
    root: 'webhookSubscriptions',
    // StartKey/EndKey header paging instead of Link headers: a bare array, EndKey only when more follow.
    present: (page: Json) => (page.nodes as Json[]).map(present),
    response: WebhookSubscriptionsSchema,
    headers: (page: Json): Record<string, string> => (page.endKey ? { EndKey: page.endKey } : {}),
    auth: 'lti',
  },
  {
    method: 'GET',
    path: '/api/lti/subscriptions/:id',
    accepts: byId,
    operation: `query($id: ID!) { webhookSubscription(id: $id) { ...WebhookSubscriptionJson } }`,
    variables: ({ values }) => ({ id: values.id }),
    root: 'webhookSubscription',
    present,
    response: WebhookSubscriptionSchema,
    auth: 'lti',
  },
  {
    method: 'PUT',
    path: '/api/lti/subscriptions/:id',
    accepts: subscriptionParams.and(byId),
    operation: `mutation($id: ID!, $input: WebhookSubscriptionInput) { updateWebhookSubscription(id: $id, input: $input) ${FIELDS} }`,
    variables: (input) => ({ id: input.values.id, input: subscriptionInput(input) }),
    root: 'updateWebhookSubscription',
    payloadKey: 'webhookSubscription',
    present,
    response: WebhookSubscriptionSchema,
    auth: 'lti',
  },
  {
    // Not Canvas's: a new Standard Webhooks secret (`Secret`, shown once); the old one signs too for a grace period.
    method: 'POST',
    path: '/api/lti/subscriptions/:id/secret/rotate',
    accepts: byId,
    operation: `mutation($id: ID!) { rotateWebhookSubscriptionSecret(id: $id) ${FIELDS} }`,
    variables: ({ values }) => ({ id: values.id }),
    root: 'rotateWebhookSubscriptionSecret',
    payloadKey: 'webhookSubscription',
    present,
    response: WebhookSubscriptionSchema,
    auth: 'lti',
  },
  {
    method: 'DELETE',
    path: '/api/lti/subscriptions/:id',
    accepts: byId,
    operation: `mutation($id: ID!) { deleteWebhookSubscription(id: $id) ${FIELDS} }`,
    variables: ({ values }) => ({ id: values.id }),
    root: 'deleteWebhookSubscription',
    payloadKey: 'webhookSubscription',
    present,
    response: WebhookSubscriptionSchema,
    auth: 'lti',
  },
];
