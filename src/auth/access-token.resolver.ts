import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { mutationPayload } from '../graphql/payload';
import { idArg } from '../graphql/relay';
import { AccessToken } from './access-token.entity';
import { AccessTokenType, CreateAccessTokenInput, CreateAccessTokenPayload } from './access-token.types';

/** A freshly issued token carries its plaintext for this one response. */
type TokenView = AccessToken & { plaintext?: string };

@Resolver(() => AccessTokenType)
export class AccessTokenResolver {
  @Mutation(() => CreateAccessTokenPayload, { description: 'Creates an access token for a user (self, or anyone for site admins).' })
  createAccessToken(@Arg('input') input: CreateAccessTokenInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(async () => {
      const { token, plaintext } = await ctx.services.tokens.create(idArg(input.userId, 'User'), input);
      return { accessToken: Object.assign(token, { plaintext }) };
    });
  }

  @FieldResolver(() => String)
  _id(@Root() t: AccessToken): string {
    return String(t.id);
  }

  @FieldResolver(() => String)
  visibleToken(@Root() t: TokenView): string {
    return t.plaintext ?? `${t.tokenHint}...`;
  }
}
