import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AccountService } from './accounts/account.service';
import { Account } from './accounts/account.entity';
import type { AppServices } from './app-services';
import { AccessToken } from './auth/access-token.entity';
import { AccessTokenService } from './auth/access-token.service';
import { hashToken } from './auth/token-crypto';
import type { Config } from './config';
import { openDatabase } from './db/data-source';
import { Setting } from './db/setting.entity';
import { transaction } from './db/transaction';
import { buildAppSchema } from './graphql/schema';
import { createAppPubSub, setProcessPubSub } from './graphql/pubsub';
import { UserService } from './users/user.service';

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
}

/**
 * On an empty database: the root account (id 1, `self`) and a site-admin user. With LMS_ADMIN_TOKEN
 * that user's token is exactly this value on every start; otherwise one is generated on first start.
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
    if (adminToken) {
      const crypted = hashToken(adminToken, tokenKey);
      const existing = await em.getRepository(AccessToken).findOneBy({ cryptedToken: crypted });
      if (!existing) await AccessTokenService.issue(em, tokenKey, adminUserId, 'LMS_ADMIN_TOKEN', { plaintext: adminToken });
      else if (existing.userId !== adminUserId || existing.workflowState !== 'active' || existing.expiresAt) {
        await em.getRepository(AccessToken).update({ id: existing.id }, { userId: adminUserId, workflowState: 'active', expiresAt: null });
      }
    }
    return { rootAccountId: root.id, adminUserId, generatedAdminToken };
  });
}

export interface StartedApp {
  app: AppServices;
  installation: Installation;
}

/** Database, pending migrations, installation rows and the schema: everything but the HTTP server. */
export async function prepareApp(config: Config, onDbError?: (msg: string) => void): Promise<StartedApp> {
  const ds = await openDatabase(config.DATABASE_URL, onDbError);
  await ds.runMigrations({ transaction: 'each' });
  const tokenKey = config.LMS_SECRET_KEY ?? (await setting(ds, 'token_hmac_key', () => randomBytes(32).toString('hex')));
  const installation = await ensureInstallation(ds, tokenKey, config.LMS_ADMIN_TOKEN);
  const pubsub = createAppPubSub(config.REDIS_URL);
  setProcessPubSub(pubsub);
  return { app: { config, ds, tokenKey, schema: buildAppSchema(), pubsub }, installation };
}
