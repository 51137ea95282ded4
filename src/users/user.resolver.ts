import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { parseAnyId } from '../common/relay';
import { accountIdArg } from '../accounts/account.resolver';
import { User } from './user.entity';
import { CreateUserInput, CreateUserPayload, UserType } from './user.types';
import { UserService } from './user.service';

registerNode(NodeType.User, User, (ctx, id) => ctx.use(UserService).find(id));

/** User lookups take a global id as well as the REST forms (numeric, `self`, sis_user_id:…). */
export const userIdArg = (id: string) => parseAnyId(id, 'User') ?? id;

const splitName = (name: string) => {
  const parts = name.trim().split(/\s+/);
  return parts.length < 2 ? { first: parts[0] ?? '', last: '' } : { first: parts.slice(0, -1).join(' '), last: parts[parts.length - 1] };
};

@Resolver(() => UserType)
export class UserResolver extends NodeResolver(NodeType.User, UserType) {
  @Query(() => UserType, { nullable: true, description: 'The current user.' })
  viewer(@Ctx() ctx: RequestContext): User | null {
    return ctx.viewer;
  }

  @Query(() => UserType, { description: 'A user by id, global id, `self` or sis_user_id:…' })
  user(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<User> {
    return ctx.use(UserService).find(userIdArg(id));
  }

  @Mutation(() => CreateUserPayload, { description: 'Creates a user with a login in an account (admins).' })
  createUser(@Arg('input') input: CreateUserInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(UserService).create({ ...input, accountId: String(accountIdArg(input.accountId)) }));
  }

  @FieldResolver(() => String, { nullable: true })
  firstName(@Root() u: User): string {
    return splitName(u.name).first;
  }

  @FieldResolver(() => String, { nullable: true })
  lastName(@Root() u: User): string {
    return splitName(u.name).last;
  }

  @FieldResolver(() => String, { nullable: true })
  avatarUrl(@Root() u: User, @Ctx() ctx: RequestContext): string {
    return u.avatarImageUrl ?? `${ctx.baseUrl}/images/messages/avatar-50.png`;
  }

  @FieldResolver(() => String, { nullable: true })
  async loginId(@Root() u: User, @Ctx() ctx: RequestContext): Promise<string | null> {
    if (!(await ctx.use(UserService).canSeeLoginDetails(u))) return null;
    return (await ctx.use(UserService).primaryLogin(u))?.uniqueId ?? null;
  }

  @FieldResolver(() => String, { nullable: true })
  async email(@Root() u: User, @Ctx() ctx: RequestContext): Promise<string | null> {
    const login = await this.loginId(u, ctx);
    return login && login.includes('@') ? login : null;
  }

  @FieldResolver(() => String, { nullable: true })
  async sisUserId(@Root() u: User, @Ctx() ctx: RequestContext): Promise<string | null> {
    if (!(await ctx.use(UserService).canAdminister(u))) return null;
    return (await ctx.use(UserService).primaryLogin(u))?.sisUserId ?? null;
  }

  @FieldResolver(() => String, { nullable: true })
  async integrationId(@Root() u: User, @Ctx() ctx: RequestContext): Promise<string | null> {
    if (!(await ctx.use(UserService).canAdminister(u))) return null;
    return (await ctx.use(UserService).primaryLogin(u))?.integrationId ?? null;
  }
}
