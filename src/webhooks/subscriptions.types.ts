import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../api/graphql/scalars';
import { ListBound } from '../common/list-bounds';

@ObjectType('WebhookSubscriptionTransport')
export class TransportMetadataType {
  @Field({ description: 'HTTPS endpoint or SQS queue URL.' })
  url: string;
}

@ObjectType('WebhookSubscription', {
  description: 'A tool’s subscription to change notifications: the record Canvas’s subscription service returns (Id, ContextId, … in REST).',
})
export class WebhookSubscriptionType {
  @Field(() => ID, { description: 'A UUID.' })
  id: string;
  @Field({ description: 'As sent: a numeric id, or the root account uuid for root_account.' })
  contextId: string;
  @Field({ description: 'assignment, course, account or root_account' })
  contextType: string;
  @ListBound(100)
  @Field(() => [String], { description: 'As sent (spec upper case or Canvas lower case).' })
  eventTypes: string[];
  @Field({ description: 'live-event or caliper' })
  format: string;
  @Field(() => TransportMetadataType)
  transportMetadata: TransportMetadataType;
  @Field({ description: 'https or sqs' })
  transportType: string;
  @Field({ description: 'The owning tool proxy’s guid.' })
  ownerId: string;
  @Field()
  ownerType: string;
  @Field({ description: 'The owning tool’s developer key (global id); part of the list paging key.' })
  developerKey: string;
  @Field(() => ID)
  rootAccountId: number;
  @Field()
  rootAccountUuid: string;
  @Field({ description: 'The tool proxy guid.' })
  associatedIntegrationId: string;
  @Field({ description: 'Active or Deleted' })
  state: string;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
  @Field()
  updatedBy: string;
  @Field()
  updatedByType: string;
  @Field(() => DateTimeScalar, {
    nullable: true,
    description: 'When deliveries stopped: the endpoint answered 410 Gone, or kept failing past the deactivation limits. Cleared by updating the subscription.',
  })
  deactivatedAt: Date | null;
  @Field(() => String, { nullable: true, description: 'Why the subscription was deactivated.' })
  deactivationReason: string | null;
  @Field(() => String, {
    nullable: true,
    description:
      'The Standard Webhooks secret (whsec_…) whose HMAC-SHA256 signs deliveries (webhook-signature v1). Only in the response that created or rotated it; null everywhere else.',
  })
  signingSecret?: string | null;
}

@ObjectType('WebhookSubscriptionPage', { description: 'Up to 100 subscriptions by Id; pass endKey as startKey for the next page.' })
export class WebhookSubscriptionPageType {
  @ListBound(100)
  @Field(() => [WebhookSubscriptionType])
  nodes: WebhookSubscriptionType[];
  @Field(() => String, { nullable: true, description: 'JSON {"Id","DeveloperKey"} when more subscriptions follow (REST: the EndKey header).' })
  endKey: string | null;
}

@InputType()
export class TransportMetadataInput {
  @Field(() => String, { nullable: true })
  url?: string | null;
}

@InputType({ description: 'subscription[…] of Canvas’s subscriptions API; every field is checked by the service (Canvas’s statuses and bodies).' })
export class WebhookSubscriptionInput {
  @Field(() => ID, { nullable: true })
  contextId?: string | null;
  @Field(() => String, { nullable: true, description: 'assignment, course, account or root_account' })
  contextType?: string | null;
  @Field(() => [String], { nullable: true })
  eventTypes?: string[] | null;
  @Field(() => String, { nullable: true, description: 'live-event or caliper' })
  format?: string | null;
  @Field(() => TransportMetadataInput, { nullable: true })
  transportMetadata?: TransportMetadataInput | null;
  @Field(() => String, { nullable: true, description: 'https or sqs' })
  transportType?: string | null;
}

@ObjectType()
export class WebhookSubscriptionPayload {
  @Field(() => WebhookSubscriptionType, { nullable: true })
  webhookSubscription?: unknown;
}
