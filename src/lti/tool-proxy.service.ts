import { randomUUID } from 'node:crypto';
import { In } from 'typeorm';
import { Account } from '../accounts/account.entity';
import { NotFoundError, Validator } from '../common/errors';
import { Course } from '../courses/course.entity';
import { transaction } from '../db/transaction';
import { raise } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import { ConnectionResult } from '../common/relay';
import { keyWindow, SortKey } from '../common/keyset';
import { keysetPage } from '../db/keyset-page';
import { KNOWN_CAPABILITIES } from './capabilities';
import { encryptSecret, generateSharedSecret } from './lti-keys';
import { ToolProxy } from './tool-proxy.entity';
import { AccountService } from '../accounts/account.service';

export interface ToolProxyInput {
  name?: string | null;
  capabilities?: string[] | null;
  contextType?: string | null;
  contextId?: string | null;
}

const NUMERIC = /^\d{1,15}$/;

/** Oldest first: the order of the proxies list and its cursors' keys. */
const PROXY_ORDER: SortKey[] = [{ expr: 'tp.id', dir: 'ASC' }];

/**
 * Tool proxies: registered, listed, changed and removed by account admins. This is our documented
 * simplification of Canvas's LTI 2 registration: the admin names the tool, its capabilities and
 * where it is installed, and receives the guid and shared secret the tool signs its assertions with.
 */
export class ToolProxyService {
  constructor(private readonly ctx: RequestContext) {}

  /** An account the viewer administers: 404 when it does not exist, 401/403 otherwise. */
  private async adminAccount(raw: string | number): Promise<Account> {
    const account = await this.ctx.use(AccountService).lookup(raw);
    await this.ctx.authz.assertAccountAdmin(account.id);
    return account;
  }

  /** The account and every account beneath it. */
  private async descendantIds(accountId: number): Promise<number[]> {
    const all = [accountId];
    let frontier = [accountId];
    while (frontier.length) {
      const children = await this.ctx.ds.getRepository(Account).find({ select: { id: true }, where: { parentAccountId: In(frontier) } });
      frontier = children.map((c) => c.id).filter((id) => !all.includes(id));
      all.push(...frontier);
    }
    return all;
  }

  private async isUnder(accountId: number, ancestorId: number): Promise<boolean> {
    return (await this.ctx.authz.accountChain(accountId)).some((a) => a.id === ancestorId);
  }

  private validateFields(input: ToolProxyInput, v: Validator, creating: boolean): void {
    if (input.name != null || creating) {
      const name = input.name?.trim() ?? '';
      v.check(name.length > 0, 'name', 'blank', "can't be blank");
      v.check(name.length <= 255, 'name', 'too_long', 'is too long (maximum is 255 characters)');
    }
    if (input.capabilities != null || creating) {
      const caps = input.capabilities ?? [];
      if (caps.length === 0) v.add('capabilities', 'blank', 'at least one capability is required');
      for (const c of caps) {
        if (!KNOWN_CAPABILITIES.has(c)) v.add('capabilities', 'inclusion', `unknown capability: ${c}`);
      }
    }
  }

  /** Where the proxy is installed: the registering account (default), an account beneath it, or a course in it. */
  private async installation(account: Account, input: ToolProxyInput, v: Validator): Promise<{ contextType: 'Account' | 'Course'; contextId: number; accountId: number } | null> {
    const type = (input.contextType ?? '').trim().toLowerCase();
    const rawId = input.contextId == null ? '' : String(input.contextId).trim();
    if (type === '' || type === 'account') {
      if (rawId === '') return { contextType: 'Account', contextId: account.id, accountId: account.id };
      const target = NUMERIC.test(rawId) ? await this.ctx.loaders.byId(Account).load(Number(rawId)) : null;
      if (!target || target.workflowState === 'deleted' || !(await this.isUnder(target.id, account.id))) {
        v.add('context_id', 'invalid', 'must be this account or one of its sub-accounts');
        return null;
      }
      return { contextType: 'Account', contextId: target.id, accountId: target.id };
    }
    if (type === 'course') {
      const course = NUMERIC.test(rawId) ? await this.ctx.loaders.byId(Course).load(Number(rawId)) : null;
      if (!course || course.workflowState === 'deleted' || !(await this.isUnder(course.accountId, account.id))) {
        v.add('context_id', 'invalid', 'must be a course in this account');
        return null;
      }
      return { contextType: 'Course', contextId: course.id, accountId: course.accountId };
    }
    v.add('context_type', 'inclusion', 'must be Account or Course');
    return null;
  }

  /** POST /api/v1/accounts/:account_id/tool_proxies: the shared secret is returned here only. */
  async create(accountRaw: string, input: ToolProxyInput): Promise<{ toolProxy: ToolProxy; sharedSecret: string }> {
    const account = await this.adminAccount(accountRaw);
    const v = new Validator();
    this.validateFields(input, v, true);
    const where = await this.installation(account, input, v);
    v.throwIfInvalid();
    const sharedSecret = generateSharedSecret();
    const toolProxy = await transaction(this.ctx.ds, (em) => {
      const repo = em.getRepository(ToolProxy);
      return repo.save(
        repo.create({
          guid: randomUUID(),
          name: input.name!.trim(),
          sharedSecretEncrypted: encryptSecret(this.ctx.app.tokenKey, sharedSecret),
          capabilities: JSON.stringify([...new Set(input.capabilities!)]),
          ...where!,
          rootAccountId: account.resolvedRootId,
          createdById: this.ctx.viewer?.id ?? null,
          workflowState: 'active',
        }),
      );
    });
    return { toolProxy, sharedSecret };
  }

  /** Active tool proxies installed in the account or beneath it, oldest first. */
  async list(accountRaw: string, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<ToolProxy>> {
    const account = await this.adminAccount(accountRaw);
    const w = keyWindow(args, PROXY_ORDER.length);
    const src = { entity: ToolProxy, alias: 'tp', order: PROXY_ORDER, keyOf: (p: ToolProxy) => [p.id] };
    // A root account's tree is every proxy of that root: one read of the (root, state, id) index. A
    // sub-account's tree is read account by account from the (account, state, id) index and merged,
    // so a page costs the same however many proxies the tree holds.
    if (account.isRoot) {
      return keysetPage(this.ctx.ds, { ...src, where: "tp.root_account_id = ? AND tp.workflow_state = 'active'", params: [account.id] }, w);
    }
    const accounts = await this.descendantIds(account.id);
    return keysetPage(this.ctx.ds, { ...src, where: "tp.workflow_state = 'active'", params: [], parents: { expr: 'tp.account_id', ids: accounts } }, w);
  }

  /**
   * An active tool proxy the viewer administers. With an account (the REST path), the viewer must
   * administer that account and the proxy must be installed in it or beneath it.
   */
  async find(idRaw: string | number, accountRaw?: string | null): Promise<ToolProxy> {
    const account = accountRaw != null ? await this.adminAccount(accountRaw) : null;
    const id = String(idRaw).trim();
    const proxy = NUMERIC.test(id) ? await this.ctx.loaders.byId(ToolProxy).load(Number(id)) : null;
    if (!proxy || proxy.workflowState !== 'active') throw new NotFoundError();
    if (account) {
      if (!(await this.isUnder(proxy.accountId, account.id))) throw new NotFoundError();
    } else {
      await this.ctx.authz.assertAccountAdmin(proxy.accountId);
    }
    return proxy;
  }

  /**
   * Renames the proxy or replaces its capabilities. New capabilities are raised as a domain event in
   * the same transaction: the proxy's webhook subscriptions drop the event types they no longer allow
   * (src/webhooks/subscription-entitlement.ts).
   */
  async update(idRaw: string, accountRaw: string | null | undefined, input: ToolProxyInput): Promise<{ toolProxy: ToolProxy }> {
    const proxy = await this.find(idRaw, accountRaw);
    const v = new Validator();
    this.validateFields(input, v, false);
    v.throwIfInvalid();
    if (input.name != null) proxy.name = input.name.trim();
    if (input.capabilities != null) proxy.capabilities = JSON.stringify([...new Set(input.capabilities)]);
    const toolProxy = await transaction(this.ctx.ds, async (em) => {
      const saved = await em.getRepository(ToolProxy).save(proxy);
      if (input.capabilities != null) await raise(em, this.ctx, { type: 'tool_proxy.capabilities_changed', toolProxyId: saved.id, capabilities: saved.capabilityList });
      return saved;
    });
    return { toolProxy };
  }

  /** Marks the proxy deleted and stops its subscriptions (State Deleted), in one transaction. */
  async delete(idRaw: string, accountRaw?: string | null): Promise<{ toolProxy: ToolProxy }> {
    const proxy = await this.find(idRaw, accountRaw);
    const toolProxy = await transaction(this.ctx.ds, async (em) => {
      proxy.workflowState = 'deleted';
      const saved = await em.getRepository(ToolProxy).save(proxy);
      await raise(em, this.ctx, { type: 'tool_proxy.deleted', toolProxyId: proxy.id });
      return saved;
    });
    return { toolProxy };
  }
}
