import { randomUUID } from 'node:crypto';
import { EntityManager, IsNull } from 'typeorm';
import { NotFoundError } from '../common/errors';
import { parseIdParam } from '../common/ids';
import type { RequestContext } from '../request/context';
import { Account } from './account.entity';
import { AccountUser } from './account-user.entity';

export class AccountService {
  constructor(private readonly ctx: RequestContext) {}

  /** The domain root account (`self`): the first root account. */
  async rootAccount(): Promise<Account> {
    const root = await this.ctx.ds.getRepository(Account).findOne({ where: { parentAccountId: IsNull() }, order: { id: 'ASC' } });
    if (!root) throw new NotFoundError();
    return root;
  }

  /** Looks up an account by numeric id, `self` or `sis_account_id:`, without a permission check. */
  async lookup(raw: string | number): Promise<Account> {
    const p = parseIdParam(raw, ['sis_account_id'], true);
    if (p.kind === 'self' || (p.kind === 'prefixed' && ['default', 'site_admin'].includes(p.value))) return this.rootAccount();
    const acct =
      p.kind === 'id'
        ? await this.ctx.loaders.byId(Account).load(p.id)
        : await this.ctx.ds.getRepository(Account).findOneBy({ sisAccountId: p.value });
    if (!acct || acct.workflowState === 'deleted') throw new NotFoundError();
    return acct;
  }

  /** An account the viewer administers (Canvas's :read on accounts is for admins). */
  async find(raw: string | number): Promise<Account> {
    const acct = await this.lookup(raw);
    await this.ctx.authz.assertAccountAdmin(acct.id);
    return acct;
  }

  static async createRoot(em: EntityManager, name: string): Promise<Account> {
    return em.getRepository(Account).save(em.getRepository(Account).create({ name, uuid: randomUUID(), workflowState: 'active' }));
  }

  static async addAdmin(em: EntityManager, accountId: number, userId: number): Promise<void> {
    const repo = em.getRepository(AccountUser);
    if (await repo.findOneBy({ accountId, userId, role: 'AccountAdmin' })) return;
    await repo.save(repo.create({ accountId, userId, role: 'AccountAdmin', workflowState: 'active' }));
  }
}
