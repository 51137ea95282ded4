import { GraphQLJSONObject } from 'graphql-scalars';
import { filter, pipe } from '@graphql-yoga/subscription';
import { Arg, Args, Ctx, FieldResolver, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { UnauthenticatedError } from '../common/errors';
import { WEBHOOK_MESSAGE_TOPIC } from './outbox';
import type { PublishedMessage } from './outbox';
import type { RequestContext } from '../request/context';
import { mutationPayload } from '../api/graphql/payload';
import { liveMessageWanted } from './subscription-match';
import type { DeliveryView } from './webhook-delivery.service';
import {
  RedeliverWebhookMessageInput,
  RedeliverWebhookMessagePayload,
  ReplayWebhookMessagesInput,
  ReplayWebhookMessagesPayload,
  ResubmitToPlagiarismInput,
  ResubmitToPlagiarismPayload,
  WebhookAttemptType,
  WebhookDeliveriesArgs,
  WebhookDeliveryConnection,
  WebhookDeliveryType,
  WebhookMessageType,
} from './webhook-delivery.types';
import { ListBound } from '../common/list-bounds';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { PlagiarismResubmitService } from './plagiarism-resubmit.service';

@Resolver(() => WebhookDeliveryType)
export class WebhookDeliveryResolver {
  @Query(() => WebhookDeliveryConnection, {
    description: "A webhook subscription's recent deliveries, newest first: account admins over its context and site admins.",
  })
  webhookDeliveries(@Args() args: WebhookDeliveriesArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(WebhookDeliveryService).list(args);
  }

  @ListBound(100)
  @FieldResolver(() => [WebhookAttemptType], { description: 'Every attempt so far, oldest first: time, duration, status, error class, the start of the answer.' })
  attempts(@Root() delivery: DeliveryView, @Ctx() ctx: RequestContext) {
    return ctx.use(WebhookDeliveryService).attempts(delivery);
  }

  @Mutation(() => RedeliverWebhookMessagePayload, { description: 'Sends a dead-lettered webhook message again (same message id, fresh retry window).' })
  redeliverWebhookMessage(@Arg('input') input: RedeliverWebhookMessageInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(WebhookDeliveryService).redeliver(input.messageId, Boolean(input.reactivate)));
  }

  @Mutation(() => ReplayWebhookMessagesPayload, {
    description:
      "Re-queues a subscription's (or a tool's) messages whose event time lies in a window, with their original message ids (receivers deduplicate by webhook-id): site admins and admins of the account the subscription or tool belongs to.",
  })
  replayWebhookMessages(@Arg('input') input: ReplayWebhookMessagesInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(WebhookDeliveryService).replay(input));
  }

  @Query(() => GraphQLJSONObject, { description: 'The JWKS (RFC 7517) that verifies the X-Webhook-Signature of HTTPS webhook deliveries. Public.' })
  webhookSigningKeys(@Ctx() ctx: RequestContext) {
    return ctx.use(WebhookDeliveryService).jwks();
  }

  @Mutation(() => ResubmitToPlagiarismPayload, { description: "A grader asks for a student's submission to be sent to the plagiarism tool again (raises plagiarism_resubmit)." })
  resubmitToPlagiarism(@Arg('input') input: ResubmitToPlagiarismInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(PlagiarismResubmitService).resubmit(input.courseId, input.assignmentId, input.userId));
  }

  @Subscription(() => WebhookMessageType, {
    description:
      "A tool's webhook messages, live, as HTTPS deliveries carry them. Open the socket with the tool's JWT access token (connection_init {Authorization: \"Bearer <JWT>\"}).",
    subscribe: ({ context, args }) => {
      const ctx = context as RequestContext;
      if (!ctx.tool) throw new UnauthenticatedError('a tool access token is required');
      const only = (args as { subscriptionId?: string | null }).subscriptionId;
      const source = ctx.app.pubsub.subscribe(WEBHOOK_MESSAGE_TOPIC, ctx.tool.guid) as AsyncIterable<PublishedMessage>;
      // Each message is checked against the subscription and the tool's capabilities as they are
      // when it is sent, as the dispatcher checks a queued one (they may have narrowed since it was written).
      const wanted = async (m: PublishedMessage) => (!only || m.subscriptionId === only) && liveMessageWanted(ctx.ds.manager, m.subscriptionId, m.eventName);
      return pipe(source as never, filter(wanted));
    },
  })
  webhookMessages(@Root() message: PublishedMessage, @Arg('subscriptionId', () => String, { nullable: true }) _subscriptionId?: string | null): PublishedMessage {
    return message;
  }
}
