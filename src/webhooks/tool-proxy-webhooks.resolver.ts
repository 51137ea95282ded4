import { Arg, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { orHidden } from '../common/visible';
import { ToolProxy } from '../lti/tool-proxy.entity';
import { ToolProxyService } from '../lti/tool-proxy.service';
import { ToolProxyType } from '../lti/tool-proxy.types';
import type { RequestContext } from '../request/context';
import { WebhookSubscriptionService } from './subscriptions.service';
import { WebhookSubscriptionPageType } from './subscriptions.types';

/** ToolProxy.webhookSubscriptions: the webhooks area's field on the LTI area's type. */
@Resolver(() => ToolProxyType)
export class ToolProxyWebhooksResolver {
  @FieldResolver(() => WebhookSubscriptionPageType, { description: 'Its live webhook subscriptions, 100 per page by Id.' })
  async webhookSubscriptions(@Root() p: ToolProxy, @Arg('startKey', () => String, { nullable: true }) startKey: string | null, @Ctx() ctx: RequestContext) {
    // Shown to whoever may see the proxy itself (checked here, not trusted from how it was reached).
    if (!(await orHidden(ctx.use(ToolProxyService).find(p.id)))) return { nodes: [], endKey: null };
    return ctx.use(WebhookSubscriptionService).page(p, startKey);
  }
}
