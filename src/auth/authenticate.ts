import type { DataSource } from 'typeorm';
import { User } from '../users/user.entity';
import { AccessToken } from './access-token.entity';
import { hashToken } from './token-crypto';
import type { TokenCache } from './token-cache';

export type AuthResult =
  | { kind: 'anonymous' }
  | { kind: 'ok'; user: User; token: AccessToken }
  | { kind: 'invalid' }
  | { kind: 'expired'; expiredAt: Date };

/** The bearer token of a request: the Authorization header (exactly `Bearer …`), else access_token. */
export function bearerToken(header: string | undefined, accessTokenParam?: unknown): string | null {
  if (header) {
    const space = header.indexOf(' ');
    if (space > 0 && header.slice(0, space) === 'Bearer') return header.slice(space + 1).trim() || null;
  }
  return typeof accessTokenParam === 'string' && accessTokenParam ? accessTokenParam : null;
}

const LAST_USED_RESOLUTION_MS = 10 * 60 * 1000;

/**
 * The token's standing and owner. With a cache (HTTP requests; src/auth/token-cache.ts), a usable
 * token seen within TOKEN_CACHE_MS skips the lookup; its expiry is still checked on every request.
 */
export async function authenticate(ds: DataSource, tokenKey: string, token: string | null, cache?: TokenCache | null): Promise<AuthResult> {
  if (!token) return { kind: 'anonymous' };
  if (token.length > 512) return { kind: 'invalid' };
  const crypted = hashToken(token, tokenKey);
  const hit = cache?.get(crypted);
  let checked: AuthResult;
  if (hit) {
    checked = usable(Object.assign(hit.token, { owner: hit.user }));
  } else {
    const stamp = cache?.stamp ?? 0;
    // Token and owner in one statement: this runs on every authenticated request the cache misses.
    const row = (await ds
      .getRepository(AccessToken)
      .createQueryBuilder('t')
      .innerJoinAndMapOne('t.owner', User, 'u', 'u.id = t.user_id')
      .where('t.crypted_token = :crypted', { crypted })
      .getOne()) as (AccessToken & { owner?: User }) | null;
    checked = usable(row);
    if (checked.kind === 'ok') cache?.set(crypted, checked, stamp);
  }
  if (checked.kind !== 'ok') return checked;
  const { token: found } = checked;
  // Like Canvas, last_used_at is coarse so a busy token does not write on every request.
  const now = Date.now();
  if (!found.lastUsedAt || now - found.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    found.lastUsedAt = new Date(now - (now % 1000));
    await ds.getRepository(AccessToken).update({ id: found.id }, { lastUsedAt: found.lastUsedAt });
    // This write flushes nothing (token-flush.ts): the cached entry learns its new value here.
    cache?.touch(crypted, found.lastUsedAt);
  }
  return checked;
}

/** A token row (with its owner joined) as an AuthResult: active, unexpired, and owned by a live user. */
function usable(row: (AccessToken & { owner?: User }) | null): AuthResult {
  if (!row || row.workflowState !== 'active') return { kind: 'invalid' };
  if (row.isExpired()) return { kind: 'expired', expiredAt: row.expiresAt! };
  const user = row.owner;
  delete row.owner;
  if (!user || user.workflowState === 'deleted') return { kind: 'invalid' };
  return { kind: 'ok', user, token: row };
}

/**
 * Re-reads a token authenticated earlier, with its owner, fresh. It is found by id and the keyed hash
 * it had then (no plaintext is kept), so a regenerated token no longer matches. graphql-ws calls this
 * per operation, and when a write to the token or its user is announced (src/auth/live-sockets.ts):
 * a token deleted, regenerated or expired since, or a user deleted since, stops acting at once.
 */
export async function reauthenticate(ds: DataSource, token: Pick<AccessToken, 'id' | 'cryptedToken'>): Promise<AuthResult> {
  const row = (await ds
    .getRepository(AccessToken)
    .createQueryBuilder('t')
    .innerJoinAndMapOne('t.owner', User, 'u', 'u.id = t.user_id')
    .where('t.id = :id AND t.crypted_token = :crypted', { id: token.id, crypted: token.cryptedToken })
    .getOne()) as (AccessToken & { owner?: User }) | null;
  return usable(row);
}

/**
 * reauthenticate() for many tokens in one statement (graphql-ws's periodic re-verify): each id's
 * standing, judged against the keyed hash the caller holds for it.
 */
export async function reauthenticateMany(ds: DataSource, tokens: Pick<AccessToken, 'id' | 'cryptedToken'>[]): Promise<Map<number, AuthResult>> {
  const out = new Map<number, AuthResult>();
  if (!tokens.length) return out;
  const rows = (await ds
    .getRepository(AccessToken)
    .createQueryBuilder('t')
    .innerJoinAndMapOne('t.owner', User, 'u', 'u.id = t.user_id')
    .where('t.id IN (:...ids)', { ids: tokens.map((t) => t.id) })
    .getMany()) as (AccessToken & { owner?: User })[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const t of tokens) {
    const row = byId.get(t.id);
    out.set(t.id, usable(row && row.cryptedToken === t.cryptedToken ? row : null));
  }
  return out;
}
