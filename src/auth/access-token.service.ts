import { Brackets, EntityManager } from 'typeorm';
import { ForbiddenError, NotFoundError, Validator } from '../common/errors';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import type { User } from '../users/user.entity';
import { AccessToken } from './access-token.entity';
import { generateTokenString, hashToken, TOKEN_HINT_LENGTH, tokenHint } from './token-crypto';
import { UserService } from '../users/user.service';

export interface IssuedToken {
  token: AccessToken;
  /** The plaintext token: returned once, at creation or regeneration, and never stored. */
  plaintext: string;
}

export interface TokenChanges {
  purpose?: string | null;
  /** null clears the expiry; undefined leaves it. */
  expiresAt?: Date | null;
  regenerate?: boolean | null;
}

/** Keyset cursor of the token list: Canvas's bookmark order, created_at then id. */
interface ListCursor {
  at: number;
  id: number;
}

const encodeCursor = (t: AccessToken): string => Buffer.from(JSON.stringify([t.createdAt.getTime(), t.id])).toString('base64url');

function decodeCursor(raw: string | null | undefined): ListCursor | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(v) && Number.isSafeInteger(v[0]) && Number.isSafeInteger(v[1])) return { at: v[0], id: v[1] };
  } catch {
    // a foreign or damaged cursor reads as the first page, as Canvas treats a bad bookmark
  }
  return null;
}

/**
 * Canvas's Access Tokens API. A user manages their own tokens; an admin of an account where the user
 * has a login manages theirs (Canvas's create_access_tokens / delete_access_tokens /
 * view_user_generated_access_tokens, which account admins hold). Anyone else is refused before any
 * token is looked at, so a refusal says nothing about which tokens exist.
 */
export class AccessTokenService {
  constructor(private readonly ctx: RequestContext) {}

  /**
   * The user whose tokens are addressed, once the caller may manage them. Unlike Canvas (where a token
   * made for someone else is pending until they activate it), an admin-made token is active at once.
   */
  private async owner(userRaw: string): Promise<User> {
    const target = await this.ctx.use(UserService).find(userRaw);
    const real = this.ctx.realUser ?? this.ctx.authz.requireViewer();
    const self = target.id === real.id || target.id === this.ctx.viewer?.id;
    if (!self && !(await this.ctx.use(UserService).canAdminister(target))) throw new ForbiddenError();
    return target;
  }

  async create(userRaw: string, input: { purpose?: string | null; expiresAt?: Date | null }): Promise<IssuedToken> {
    const target = await this.owner(userRaw);
    const real = this.ctx.realUser ?? this.ctx.authz.requireViewer();
    const purpose = input.purpose?.trim() ?? '';
    validatePurpose(purpose);
    return transaction(this.ctx.ds, (em) =>
      AccessTokenService.issue(em, this.ctx.app.tokenKey, target.id, purpose, {
        expiresAt: input.expiresAt ?? null,
        realUserId: real.id === target.id ? null : real.id,
      }),
    );
  }

  /** One of the user's tokens (not deleted) by id or by its 5-character hint, as Canvas's routes take it. */
  async find(userRaw: string, idRaw: string): Promise<AccessToken> {
    const owner = await this.owner(userRaw);
    const token = await findOwnToken(this.ctx.ds.manager, owner.id, idRaw);
    if (!token) throw new NotFoundError();
    return token;
  }

  /**
   * Purpose and expiry changes, and `regenerate`: a new secret for the same token (the old one stops
   * working at once), shown in this response only. An expired token is regenerated only together with
   * a new expiry, as Canvas requires.
   */
  async update(userRaw: string, idRaw: string, changes: TokenChanges): Promise<AccessToken & { plaintext?: string }> {
    const token = await this.find(userRaw, idRaw);
    const v = new Validator();
    if (changes.purpose !== undefined) {
      const purpose = changes.purpose?.trim() ?? '';
      validatePurpose(purpose);
      token.purpose = purpose;
    }
    if (changes.regenerate && token.isExpired() && changes.expiresAt === undefined) {
      v.add('expires_at', 'regenerate_expired', 'cannot regenerate an expired token without a new expiration date');
    }
    v.throwIfInvalid();
    if (changes.expiresAt !== undefined) token.expiresAt = changes.expiresAt;
    let plaintext: string | undefined;
    if (changes.regenerate) {
      plaintext = generateTokenString();
      token.cryptedToken = hashToken(plaintext, this.ctx.app.tokenKey);
      token.tokenHint = tokenHint(plaintext);
    }
    const saved = await this.ctx.ds.getRepository(AccessToken).save(token);
    return Object.assign(saved, { plaintext });
  }

  /** Soft delete, as Canvas does: the token stops working and comes back with workflow_state deleted. */
  async delete(userRaw: string, idRaw: string): Promise<AccessToken> {
    const token = await this.find(userRaw, idRaw);
    token.workflowState = 'deleted';
    return this.ctx.ds.getRepository(AccessToken).save(token);
  }

  /** The user's manually generated tokens (all of ours are), deleted ones left out, in created_at, id order. */
  async list(userRaw: string, args: { first?: number | null; after?: string | null }) {
    const owner = await this.owner(userRaw);
    const limit = Math.min(Math.max(args.first ?? 10, 0), 100);
    const cursor = decodeCursor(args.after);
    const base = () =>
      this.ctx.ds
        .getRepository(AccessToken)
        .createQueryBuilder('t')
        .where('t.user_id = :uid', { uid: owner.id })
        .andWhere("t.workflow_state != 'deleted'");
    const page = base();
    if (cursor) {
      const at = new Date(cursor.at);
      page.andWhere(new Brackets((q) => q.where('t.created_at > :at', { at }).orWhere('t.created_at = :at AND t.id > :id', { at, id: cursor.id })));
    }
    const [rows, totalCount] = await Promise.all([
      page.orderBy('t.created_at', 'ASC').addOrderBy('t.id', 'ASC').take(limit + 1).getMany(),
      base().getCount(),
    ]);
    const shown = rows.slice(0, limit);
    const edges = shown.map((node) => ({ cursor: encodeCursor(node), node }));
    return {
      nodes: shown,
      edges,
      totalCount,
      pageInfo: {
        hasNextPage: rows.length > limit,
        hasPreviousPage: cursor != null,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges[edges.length - 1]?.cursor ?? null,
      },
    };
  }

  static async issue(
    em: EntityManager,
    key: string,
    userId: number,
    purpose: string,
    opts: { expiresAt?: Date | null; realUserId?: number | null; plaintext?: string } = {},
  ): Promise<IssuedToken> {
    const plaintext = opts.plaintext ?? generateTokenString();
    const repo = em.getRepository(AccessToken);
    const token = await repo.save(
      repo.create({
        userId,
        cryptedToken: hashToken(plaintext, key),
        tokenHint: tokenHint(plaintext),
        purpose,
        expiresAt: opts.expiresAt ?? null,
        lastUsedAt: null,
        workflowState: 'active',
        realUserId: opts.realUserId ?? null,
      }),
    );
    return { token, plaintext };
  }
}

function validatePurpose(purpose: string): void {
  new Validator()
    .check(purpose.length > 0, 'purpose', 'blank', "can't be blank")
    .check(purpose.length <= 255, 'purpose', 'too_long', 'is too long (maximum is 255 characters)')
    .throwIfInvalid();
}

/**
 * Canvas's find_token: a 5-character id is tried as a token hint first, then any id as the numeric id.
 * Deleted tokens are not found (Canvas's user.access_tokens leaves them out).
 */
async function findOwnToken(em: EntityManager, userId: number, idRaw: string): Promise<AccessToken | null> {
  const repo = em.getRepository(AccessToken);
  const raw = idRaw.trim();
  let token: AccessToken | null = null;
  if (raw.length === TOKEN_HINT_LENGTH) {
    const matches = await repo
      .createQueryBuilder('t')
      .where('t.user_id = :userId AND t.token_hint = :hint', { userId, hint: raw })
      .andWhere("t.workflow_state != 'deleted'")
      .orderBy('t.id', 'ASC')
      .getMany();
    // MySQL's default collation compares case-insensitively; hints are case-sensitive.
    token = matches.find((t) => t.tokenHint === raw) ?? null;
  }
  if (!token && /^\d{1,15}$/.test(raw)) token = await repo.findOneBy({ id: Number(raw), userId });
  return token && token.workflowState !== 'deleted' ? token : null;
}
