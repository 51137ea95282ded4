import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../request/context';
import { WebhookSubscriptionInput, WebhookSubscriptionPageType, WebhookSubscriptionPayload, WebhookSubscriptionType } from './subscriptions.types';
import { WebhookSubscriptionService } from './subscriptions.service';

/**
 * The tool-facing subscription operations: they authenticate the tool (a JWT access token from
 * /api/lti/…/authorize as the bearer), never a user. Refusals carry Canvas's status and body in
 * extensions (code REQUEST_ERROR) as the REST rows answer them.
 */
@Resolver(() => WebhookSubscriptionType)
export class WebhookSubscriptionResolver {
  @Query(() => WebhookSubscriptionType, { description: 'For a tool: one of its live subscriptions by Id.' })
  webhookSubscription(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return ctx.use(WebhookSubscriptionService).show(id);
  }

  @Query(() => WebhookSubscriptionPageType, { description: 'For a tool: its live subscriptions, 100 per page by Id.' })
  webhookSubscriptions(@Arg('startKey', () => String, { nullable: true, description: 'The endKey of the previous page.' }) startKey: string | null, @Ctx() ctx: RequestContext) {
    return ctx.use(WebhookSubscriptionService).list(startKey);
  }

  @Mutation(() => WebhookSubscriptionPayload, { description: 'For a tool: subscribes to events in a context it is installed in (or beneath).' })
  async createWebhookSubscription(@Arg('input', () => WebhookSubscriptionInput, { nullable: true }) input: WebhookSubscriptionInput | null, @Ctx() ctx: RequestContext) {
    return { webhookSubscription: await ctx.use(WebhookSubscriptionService).create(input) };
  }

  @Mutation(() => WebhookSubscriptionPayload, { description: 'For a tool: replaces one of its subscriptions (full validation again).' })
  async updateWebhookSubscription(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => WebhookSubscriptionInput, { nullable: true }) input: WebhookSubscriptionInput | null,
    @Ctx() ctx: RequestContext,
  ) {
    return { webhookSubscription: await ctx.use(WebhookSubscriptionService).update(id, input) };
  }

  @Mutation(() => WebhookSubscriptionPayload, {
    description:
      'For a tool: a new Standard Webhooks secret for one of its subscriptions (signingSecret, shown once); the previous one also signs for WEBHOOK_SECRET_GRACE_MS.',
  })
  async rotateWebhookSubscriptionSecret(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return { webhookSubscription: await ctx.use(WebhookSubscriptionService).rotateSecret(id) };
  }

  @Mutation(() => WebhookSubscriptionPayload, { description: 'For a tool: deletes one of its subscriptions (State Deleted).' })
  async deleteWebhookSubscription(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return { webhookSubscription: await ctx.use(WebhookSubscriptionService).delete(id) };
  }
}
