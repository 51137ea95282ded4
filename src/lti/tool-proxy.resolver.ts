import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { idArg } from '../common/relay';
import { ToolProxy } from './tool-proxy.entity';
import {
  CreateToolProxyInput,
  CreateToolProxyPayload,
  LtiAccessTokenType,
  LtiAuthorizeInput,
  ToolProxiesArgs,
  ToolProxyConnection,
  ToolProxyPayload,
  ToolProxyType,
  UpdateToolProxyInput,
} from './tool-proxy.types';
import { ListBound } from '../common/list-bounds';
import { ToolProxyService } from './tool-proxy.service';
import { LtiAuthorizeService } from './lti-authorize.service';

registerNode(NodeType.ToolProxy, ToolProxy, (ctx, id) => ctx.use(ToolProxyService).find(id));

const proxyId = (id: string) => idArg(id, 'ToolProxy');
const accountId = (id: string | null | undefined) => (id == null ? id : idArg(id, 'Account'));

@Resolver(() => ToolProxyType)
export class ToolProxyResolver extends NodeResolver(NodeType.ToolProxy, ToolProxyType) {
  @Query(() => ToolProxyType, { description: 'For account admins: an active tool proxy (never its secret).' })
  toolProxy(
    @Arg('id', () => ID) id: string,
    @Arg('accountId', () => ID, { nullable: true, description: 'When given, the proxy must be installed in this account or beneath it.' }) account: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ToolProxy> {
    return ctx.use(ToolProxyService).find(proxyId(id), accountId(account));
  }

  @Query(() => ToolProxyConnection, { description: 'For account admins: active tool proxies installed in the account or beneath it.' })
  toolProxiesConnection(@Arg('accountId', () => ID) account: string, @Args() args: ToolProxiesArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(ToolProxyService).list(accountId(account)!, args);
  }

  @Mutation(() => CreateToolProxyPayload, { description: 'For account admins: registers a tool; the shared secret is in this payload only.' })
  createToolProxy(@Arg('input') input: CreateToolProxyInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ToolProxyService).create(accountId(input.accountId)!, input));
  }

  @Mutation(() => ToolProxyPayload, { description: 'For account admins: renames a tool proxy or replaces its capabilities.' })
  updateToolProxy(@Arg('input') input: UpdateToolProxyInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ToolProxyService).update(proxyId(input.id), accountId(input.accountId), input));
  }

  @Mutation(() => ToolProxyPayload, { description: 'For account admins: deletes a tool proxy and its subscriptions; its tokens stop working.' })
  deleteToolProxy(@Arg('id', () => ID) id: string, @Arg('accountId', () => ID, { nullable: true }) account: string | null, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ToolProxyService).delete(proxyId(id), accountId(account)));
  }

  @Mutation(() => LtiAccessTokenType, {
    description: 'The JWT-bearer grant of POST /api/lti/{accounts|courses}/:id/authorize: needs no user; every refusal is invalid_grant.',
  })
  ltiAuthorize(@Arg('input') input: LtiAuthorizeInput, @Ctx() ctx: RequestContext) {
    return ctx.use(LtiAuthorizeService).authorize(input);
  }

  @ListBound(100)
  @FieldResolver(() => [String])
  capabilities(@Root() p: ToolProxy): string[] {
    return p.capabilityList;
  }
}
