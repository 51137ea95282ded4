import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../request/context';
import { mutationPayload } from '../api/graphql/payload';
import { idArg } from '../common/relay';
import { AccessToken } from './access-token.entity';
import {
  AccessTokenConnection,
  AccessTokensArgs,
  AccessTokenType,
  CreateAccessTokenInput,
  CreateAccessTokenPayload,
  DeleteAccessTokenInput,
  DeleteAccessTokenPayload,
  UpdateAccessTokenInput,
  UpdateAccessTokenPayload,
} from './access-token.types';
import { AccessTokenService } from './access-token.service';

/** A freshly issued or regenerated token carries its plaintext for this one response. */
type TokenView = AccessToken & { plaintext?: string };

const userArg = (raw: string) => idArg(raw, 'User');

@Resolver(() => AccessTokenType)
export class AccessTokenResolver {
  @Query(() => AccessTokenType, { description: "One of a user's access tokens, by id or 5-character hint (the user themself, or an admin over the user)." })
  accessToken(@Arg('userId', () => ID) userId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return ctx.use(AccessTokenService).find(userArg(userId), id);
  }

  @Query(() => AccessTokenConnection, { description: "A user's manually generated access tokens (not deleted), oldest first, paged by key set." })
  accessTokens(@Args() args: AccessTokensArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(AccessTokenService).list(userArg(args.userId), args);
  }

  @Mutation(() => CreateAccessTokenPayload, { description: 'Creates an access token for a user (self, or anyone an admin administers).' })
  createAccessToken(@Arg('input') input: CreateAccessTokenInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(async () => {
      const { token, plaintext } = await ctx.use(AccessTokenService).create(userArg(input.userId), input);
      return { accessToken: Object.assign(token, { plaintext }) };
    });
  }

  @Mutation(() => UpdateAccessTokenPayload, { description: 'Changes purpose or expiry of an access token, or regenerates its secret.' })
  updateAccessToken(@Arg('input') input: UpdateAccessTokenInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(async () => ({ accessToken: await ctx.use(AccessTokenService).update(userArg(input.userId), input.id, input) }));
  }

  @Mutation(() => DeleteAccessTokenPayload, { description: 'Deletes (revokes) an access token; it comes back with workflowState deleted.' })
  deleteAccessToken(@Arg('input') input: DeleteAccessTokenInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(async () => ({ accessToken: await ctx.use(AccessTokenService).delete(userArg(input.userId), input.id) }));
  }

  @FieldResolver(() => String)
  _id(@Root() t: AccessToken): string {
    return String(t.id);
  }

  @FieldResolver(() => String)
  visibleToken(@Root() t: TokenView): string {
    return t.plaintext ?? `${t.tokenHint}...`;
  }

  @FieldResolver(() => String)
  appName(): string {
    return 'No App';
  }

  @FieldResolver(() => Boolean)
  canManuallyRegenerate(@Root() t: AccessToken): boolean {
    return !t.isExpired();
  }
}
