import { randomBytes } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { AccountService } from '../accounts/account.service';
import { Account } from '../accounts/account.entity';
import type { Config } from '../config';
import { Setting } from '../db/setting.entity';
import { transaction } from '../db/transaction';
import { UserService } from '../users/user.service';
import { AccessToken } from './access-token.entity';
import { AccessTokenService } from './access-token.service';
import { hashToken } from './token-crypto';

export const ADMIN_LOGIN = 'admin';

async function setting(ds: DataSource, name: string, make: () => string): Promise<string> {
  const repo = ds.getRepository(Setting);
  const found = await repo.findOneBy({ name });
  if (found) return found.value;
  const value = make();
  await repo.insert({ name, value });
  return value;
}

export interface Installation {
  rootAccountId: number;
  adminUserId: number;
  /** A token generated on this start, to print once; undefined when none was generated. */
  generatedAdminToken?: string;
  /** What became of LMS_ADMIN_TOKEN on this start (undefined when it is not set). */
  adminTokenState?: AdminTokenState;
}

/**
 * `issued`: created on this start; `active`: issued before and still usable; `revoked`: issued before
 * and since deleted, regenerated or expired (it stays so: set a new value to get a new token);
 * `foreign`: the value is another user's token, left as it is.
 */
export type AdminTokenState = 'issued' | 'active' | 'revoked' | 'foreign';

/**
 * LMS_ADMIN_TOKEN is issued once per value: the first start that sees a value creates the admin's
 * token with it and records (as a keyed hash, in settings) that it did. Later starts never create,
 * re-activate or extend it again, so a token an admin deleted, regenerated or let expire through the
 * API stays revoked across restarts. A value matching a token that already exists (issued by an
 * older version, or someone's own token) is recorded and left untouched.
 */
async function ensureAdminToken(em: EntityManager, tokenKey: string, adminUserId: number, adminToken: string): Promise<AdminTokenState> {
  const crypted = hashToken(adminToken, tokenKey);
  const settings = em.getRepository(Setting);
  const record = `admin_token_issued:${crypted}`;
  const issuedBefore = (await settings.findOneBy({ name: record })) != null;
  const existing = await em.getRepository(AccessToken).findOneBy({ cryptedToken: crypted });
  if (!issuedBefore) await settings.insert({ name: record, value: new Date().toISOString() });
  if (!existing) {
    if (issuedBefore) return 'revoked';
    await AccessTokenService.issue(em, tokenKey, adminUserId, 'LMS_ADMIN_TOKEN', { plaintext: adminToken });
    return 'issued';
  }
  if (existing.userId !== adminUserId) return 'foreign';
  return existing.workflowState === 'active' && !existing.isExpired() ? 'active' : 'revoked';
}

/**
 * On an empty database: the root account (id 1, `self`) and a site-admin user. With LMS_ADMIN_TOKEN
 * that user gets a token with exactly this value, once (see ensureAdminToken); otherwise one is
 * generated on first start.
 */
export async function ensureInstallation(ds: DataSource, tokenKey: string, adminToken?: string): Promise<Installation> {
  return transaction(ds, async (em) => {
    let root = await em.getRepository(Account).findOne({ where: {}, order: { id: 'ASC' } });
    let generatedAdminToken: string | undefined;
    let adminUserId: number;
    if (!root) {
      root = await AccountService.createRoot(em, 'Site Admin');
      const { user } = await UserService.insert(em, { accountId: root.id, name: 'Site Administrator', uniqueId: ADMIN_LOGIN });
      await AccountService.addAdmin(em, root.id, user.id);
      await em.getRepository(Setting).insert({ name: 'admin_user_id', value: String(user.id) });
      adminUserId = user.id;
      if (!adminToken) generatedAdminToken = (await AccessTokenService.issue(em, tokenKey, user.id, 'Site admin token (generated on first start)')).plaintext;
    } else {
      adminUserId = Number((await em.getRepository(Setting).findOneBy({ name: 'admin_user_id' }))?.value);
    }
    const adminTokenState = adminToken ? await ensureAdminToken(em, tokenKey, adminUserId, adminToken) : undefined;
    return { rootAccountId: root.id, adminUserId, generatedAdminToken, adminTokenState };
  });
}

/** The key of the access-token HMAC: LMS_SECRET_KEY, or one generated once and kept in the database. */
export const tokenKeyOf = (config: Config, ds: DataSource) =>
  config.LMS_SECRET_KEY ?? setting(ds, 'token_hmac_key', () => randomBytes(32).toString('hex'));

