import type { EntityManager } from 'typeorm';
import { AccountService } from '../accounts/account.service';
import { AccessTokenService } from '../auth/access-token.service';
import { parseCanvasDate } from '../common/dates';
import { transaction } from '../db/transaction';
import { Pseudonym } from '../users/pseudonym.entity';
import { User } from '../users/user.entity';
import { UserService } from '../users/user.service';
import { CliError, CliOutput, CliSession, println } from './common';

export interface CreateUserOptions {
  /** Defaults to the login, as the REST API does. */
  name?: string | null;
  login: string;
  /** Also make the user an admin of the root account (a site admin). */
  admin?: boolean;
}

export interface CreatedUser {
  id: number;
  name: string;
  login: string;
  admin: boolean;
}

/** The active login with this unique_id (case-insensitively) in the account, if any. */
export function findLogin(em: EntityManager, accountId: number, login: string): Promise<Pseudonym | null> {
  return em.getRepository(Pseudonym).findOneBy({ accountId, uniqueIdNormalized: login.trim().toLowerCase() });
}

/**
 * Creates a registered user with a login in the root account, validated as POST
 * /api/v1/accounts/self/users validates it, and prints `{"id":…}` as JSON.
 */
export async function createUser(session: CliSession, opts: CreateUserOptions, out: CliOutput): Promise<CreatedUser> {
  const login = (opts.login ?? '').trim();
  if (!login) throw new CliError('--login is required (the login, usually an e-mail address).');
  if (login.length > 100) throw new CliError('--login is too long (maximum is 100 characters).');
  const name = (opts.name ?? '').trim() || login;
  if (name.length > 255) throw new CliError('--name is too long (maximum is 255 characters).');
  const rootId = session.installation.rootAccountId;
  const created = await transaction(session.app.ds, async (em) => {
    const taken = await findLogin(em, rootId, login);
    if (taken) throw new CliError(`A user with login "${login}" already exists (user id ${taken.userId}); nothing was created.`);
    const { user } = await UserService.insert(em, { accountId: rootId, name, uniqueId: login });
    if (opts.admin) await AccountService.addAdmin(em, rootId, user.id);
    return { id: user.id, name: user.name, login, admin: Boolean(opts.admin) };
  });
  println(out, JSON.stringify(created));
  return created;
}

export interface IssueTokenOptions {
  /** A numeric user id, or a login in the root account. */
  user: string;
  purpose?: string | null;
  /** ISO 8601 (or YYYY-MM-DD); none means the token does not expire. */
  expiresAt?: string | Date | null;
}

export interface IssuedCliToken {
  userId: number;
  tokenId: number;
  plaintext: string;
  expiresAt: Date | null;
}

export const DEFAULT_TOKEN_PURPOSE = 'Issued with the operator CLI';

/** A live user by numeric id or by login in the root account. */
export async function resolveUser(em: EntityManager, rootAccountId: number, ref: string): Promise<User> {
  const raw = (ref ?? '').trim();
  if (!raw) throw new CliError('--user is required (a user id or a login).');
  let user: User | null;
  if (/^\d{1,15}$/.test(raw)) user = await em.getRepository(User).findOneBy({ id: Number(raw) });
  else {
    const login = await findLogin(em, rootAccountId, raw);
    user = login && login.workflowState === 'active' ? await em.getRepository(User).findOneBy({ id: login.userId }) : null;
  }
  if (!user || user.workflowState === 'deleted') throw new CliError(`No user with ${/^\d+$/.test(raw) ? 'id' : 'login'} "${raw}".`);
  return user;
}

function parseExpiry(value: string | Date | null | undefined): Date | null {
  if (value == null || value === '') return null;
  const date = value instanceof Date ? value : parseCanvasDate(value);
  if (!date || Number.isNaN(date.getTime())) throw new CliError(`--expires-at "${String(value)}" is not an ISO 8601 date (e.g. 2030-01-31T12:00:00Z).`);
  if (date.getTime() <= Date.now()) throw new CliError(`--expires-at ${date.toISOString()} is in the past.`);
  return date;
}

/** Issues an access token for a user and prints the plaintext token, which is never shown again. */
export async function issueToken(session: CliSession, opts: IssueTokenOptions, out: CliOutput): Promise<IssuedCliToken> {
  const purpose = (opts.purpose ?? '').trim() || DEFAULT_TOKEN_PURPOSE;
  if (purpose.length > 255) throw new CliError('--purpose is too long (maximum is 255 characters).');
  const expiresAt = parseExpiry(opts.expiresAt);
  const issued = await transaction(session.app.ds, async (em) => {
    const user = await resolveUser(em, session.installation.rootAccountId, opts.user);
    const { token, plaintext } = await AccessTokenService.issue(em, session.app.tokenKey, user.id, purpose, { expiresAt });
    return { userId: user.id, tokenId: token.id, plaintext, expiresAt };
  });
  println(out, issued.plaintext);
  return issued;
}
