import type { EntityManager } from 'typeorm';
import { ForbiddenError, Validator } from '../common/errors';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../graphql/context';
import { AccessToken } from './access-token.entity';
import { generateTokenString, hashToken, tokenHint } from './token-crypto';

export interface IssuedToken {
  token: AccessToken;
  /** The plaintext token: returned once, at creation, and never stored. */
  plaintext: string;
}

export class AccessTokenService {
  constructor(private readonly ctx: RequestContext) {}

  /**
   * A user creates tokens for themself; a site admin for anyone. Unlike Canvas (where a token made
   * for someone else is pending until they activate it), an admin-made token is active at once.
   */
  async create(userRaw: string, input: { purpose?: string | null; expiresAt?: Date | null }): Promise<IssuedToken> {
    const target = await this.ctx.services.users.find(userRaw);
    const real = this.ctx.realUser ?? this.ctx.authz.requireViewer();
    const self = target.id === real.id || target.id === this.ctx.viewer?.id;
    if (!self && !(await this.ctx.authz.isSiteAdmin())) throw new ForbiddenError();
    const purpose = input.purpose?.trim() ?? '';
    new Validator()
      .check(purpose.length > 0, 'purpose', 'blank', "can't be blank")
      .check(purpose.length <= 255, 'purpose', 'too_long', 'is too long (maximum is 255 characters)')
      .throwIfInvalid();
    return transaction(this.ctx.ds, (em) =>
      AccessTokenService.issue(em, this.ctx.app.tokenKey, target.id, purpose, {
        expiresAt: input.expiresAt ?? null,
        realUserId: real.id === target.id ? null : real.id,
      }),
    );
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
