import { arr, defineSchema, shape } from '../api/rest/response';

/** Canvas's webhook subscription record (PascalCase, as Canvas's live-events service answers it). */
export const WebhookSubscriptionSchema = defineSchema(
  'WebhookSubscription',
  shape(
    {
      Id: 'string', ContextId: 'string', ContextType: 'string', EventTypes: arr('string'), Format: 'string',
      TransportMetadata: shape({ Url: 'string' }), TransportType: 'string', OwnerId: 'string', OwnerType: 'string',
      DeveloperKey: 'string', RootAccountId: { type: ['integer', 'string'] }, RootAccountUUID: 'string',
      AssociatedIntegrationId: 'string', State: 'string', CreatedAt: 'date', UpdatedAt: 'date', UpdatedBy: 'string',
      UpdatedByType: 'string', DeactivatedAt: 'date', DeactivationReason: 'string', Secret: 'string',
    },
    { optional: ['Secret', 'DeactivatedAt', 'DeactivationReason'] },
  ),
);

export const WebhookSubscriptionsSchema = defineSchema('WebhookSubscriptions', arr(WebhookSubscriptionSchema));

/** A JSON Web Key Set (RFC 7517): the public keys that verify webhook signatures. */
export const JwksSchema = defineSchema('Jwks', {
  type: 'object',
  // A key's other members depend on its kty (n and e for RSA, crv and x for OKP), as RFC 7518 defines them.
  properties: { keys: arr({ type: 'object', properties: { kty: { type: 'string' }, kid: { type: 'string' } }, required: ['kty'], additionalProperties: true }) },
  required: ['keys'],
});
