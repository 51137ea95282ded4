import { Arg, Args, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { parseAnyId } from '../common/relay';
import { AccountUsersArgs, UserConnection } from '../users/user.types';
import { Account } from './account.entity';
import { AccountType } from './account.types';
import { AccountService } from './account.service';
import { UserService } from '../users/user.service';

registerNode(NodeType.Account, Account, (ctx, id) => ctx.use(AccountService).find(id));

/** Accepts a global id as well as the REST forms (numeric, `self`, sis_account_id:…). */
export const accountIdArg = (id: string) => parseAnyId(id, 'Account') ?? id;

@Resolver(() => AccountType)
export class AccountResolver extends NodeResolver(NodeType.Account, AccountType) {
  @Query(() => AccountType, { description: 'An account the viewer administers: id, global id, `self` or sis_account_id:…' })
  account(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<Account> {
    return ctx.use(AccountService).find(accountIdArg(id));
  }

  @FieldResolver(() => UserConnection, { description: 'Users with a login in this account, by sortable name.' })
  usersConnection(@Root() account: Account, @Args() args: AccountUsersArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(UserService).listInAccount(String(account.id), args);
  }
}
