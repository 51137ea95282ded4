import { GraphQLJSONObject } from 'graphql-scalars';
import { ArgsType, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { PayloadType } from '../api/graphql/payload';
import { Connection, ConnectionArgs } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('WebhookAttempt', { description: 'One attempt to deliver a webhook message (kept as long as the message).' })
export class WebhookAttemptType {
  @Field(() => Int, { description: '1 for the first attempt.' })
  attempt: number;
  @Field(() => DateTimeScalar, { description: 'When the attempt started (milliseconds).' })
  startedAt: Date;
  @Field(() => Int, { description: 'How long it took, from signing to the end of the answer.' })
  durationMs: number;
  @Field({ description: 'Whether the receiver took the message (a 2xx answer; SQS: accepted).' })
  succeeded: boolean;
  @Field(() => Int, { nullable: true, description: 'HTTP status of the answer (null for SQS, network errors and refused destinations).' })
  statusCode: number | null;
  @Field(() => String, {
    nullable: true,
    description: 'Why it failed: http_status, redirect, timeout, connection, dns, tls, refused_destination, invalid_destination, abandoned or transport.',
  })
  errorClass: string | null;
  @Field(() => String, { nullable: true })
  error: string | null;
  @Field(() => String, { nullable: true, description: "The first 1 KB of the receiver's answer." })
  responseBody: string | null;
}

@ObjectType('WebhookDelivery', { description: 'One webhook message for one subscription and its delivery state (operators).' })
export class WebhookDeliveryType {
  @Field({ description: 'Stays the same on every attempt; receivers deduplicate by it.' })
  messageId: string;
  @Field()
  subscriptionId: string;
  @Field({ description: 'Live event name, e.g. submission_created.' })
  eventName: string;
  @Field({ description: 'live-event or caliper.' })
  format: string;
  @Field({ description: 'pending, delivering, delivered, dead (retries exhausted or subscription deactivated) or cancelled (subscription deleted).' })
  status: string;
  @Field(() => Int, { description: 'Attempts made so far.' })
  attemptCount: number;
  @Field(() => String, { nullable: true })
  lastError: string | null;
  @Field(() => Int, { nullable: true, description: 'HTTP status of the last attempt.' })
  lastStatusCode: number | null;
  @Field(() => DateTimeScalar, { nullable: true, description: 'When the next attempt is due (pending messages only).' })
  nextAttemptAt: Date | null;
  @Field(() => DateTimeScalar, { description: 'Retries stop and the message is dead-lettered after this.' })
  retryUntil: Date;
  @Field(() => DateTimeScalar, { nullable: true })
  firstAttemptAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lastAttemptAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  deliveredAt: Date | null;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => GraphQLJSONObject, { description: 'The document as delivered (Caliper sendTime is set per attempt).' })
  payload: Record<string, unknown>;
}

export const WebhookDeliveryConnection = Connection('WebhookDelivery', WebhookDeliveryType);

@ArgsType()
export class WebhookDeliveriesArgs extends ConnectionArgs {
  @Field(() => String, { description: "The subscription's Id (a UUID)." })
  subscriptionId: string;

  @Field(() => [String], { nullable: true, description: 'Only deliveries in these states.' })
  status?: string[] | null;
}

@InputType()
export class RedeliverWebhookMessageInput {
  @Field(() => String)
  messageId: string;

  @Field(() => Boolean, { nullable: true, description: 'Also reactivate the subscription when it was deactivated for failing.' })
  reactivate?: boolean | null;
}

export const RedeliverWebhookMessagePayload = PayloadType('RedeliverWebhookMessagePayload', {
  delivery: () => WebhookDeliveryType,
});

@InputType({ description: 'Which messages to send again: those of one subscription, or of every subscription of one tool, whose event time lies in [from, to).' })
export class ReplayWebhookMessagesInput {
  @Field(() => String, { nullable: true, description: "One subscription's Id (give this or toolProxyId)." })
  subscriptionId?: string | null;

  @Field(() => ID, { nullable: true, description: 'A tool proxy: all of its subscriptions (give this or subscriptionId).' })
  toolProxyId?: string | null;

  @Field(() => DateTimeScalar, { description: 'Events at or after this time …' })
  from: Date;

  @Field(() => DateTimeScalar, { description: '… and before this one.' })
  to: Date;

  @Field(() => Boolean, { nullable: true, description: 'Only dead-lettered messages (by default delivered, dead and cancelled ones).' })
  onlyDead?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Also replay to (and reactivate) subscriptions deactivated for failing; they are skipped otherwise.' })
  reactivate?: boolean | null;
}

export const ReplayWebhookMessagesPayload = PayloadType('ReplayWebhookMessagesPayload', {
  requeued: { type: () => Int, description: 'Messages put back in the queue, with their original message ids.' },
  subscriptions: { type: () => Int, description: 'Subscriptions replayed to.' },
  skipped: { type: () => Int, description: 'Subscriptions left out: deleted, or deactivated without reactivate.' },
});

@InputType()
export class ResubmitToPlagiarismInput {
  @Field(() => ID)
  courseId: string;
  @Field(() => ID)
  assignmentId: string;
  @Field(() => ID, { description: "The student's user id (Canvas's :submission_id of this route)." })
  userId: string;
}

export const ResubmitToPlagiarismPayload = PayloadType('ResubmitToPlagiarismPayload', { submissionId: () => ID });

@ObjectType('WebhookMessage', { description: 'A webhook message as a tool receives it live over graphql-ws.' })
export class WebhookMessageType {
  @Field()
  messageId: string;
  @Field()
  subscriptionId: string;
  @Field()
  eventName: string;
  @Field({ description: 'live-event or caliper.' })
  format: string;
  @Field(() => GraphQLJSONObject, { description: 'The same JSON document an HTTPS delivery carries as its body.' })
  document: Record<string, unknown>;
}
