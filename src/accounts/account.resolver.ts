import { Arg, Args, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { parseAnyId } from '../common/relay';
import { AccountUsersArgs, UserConnection } from '../users/user.types';
import { Account } from './account.entity';
import { AccountType } from './account.types';

registerNode(NodeType.Account, Account, (ctx, id) => ctx.services.accounts.find(id));

/** Accepts a global id as well as the REST forms (numeric, `self`, sis_account_id:…). */
export const accountIdArg = (id: string) => parseAnyId(id, 'Account') ?? id;

@Resolver(() => AccountType)
export class AccountResolver extends NodeResolver(NodeType.Account, AccountType) {
  @Query(() => AccountType, { description: 'An account the viewer administers: id, global id, `self` or sis_account_id:…' })
  account(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<Account> {
    return ctx.services.accounts.find(accountIdArg(id));
  }

  @FieldResolver(() => UserConnection, { description: 'Users with a login in this account, by sortable name.' })
  usersConnection(@Root() account: Account, @Args() args: AccountUsersArgs, @Ctx() ctx: RequestContext) {
    return ctx.services.users.listInAccount(String(account.id), args);
  }
}
