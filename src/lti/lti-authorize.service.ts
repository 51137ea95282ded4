import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, jwtVerify, JWTPayload } from 'jose';
import { LessThan, QueryFailedError } from 'typeorm';
import { DomainError, RequestError } from '../common/errors';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { decryptSecret } from './lti-keys';
import { LtiNonce } from './lti-nonce.entity';
import { ACCESS_TOKEN_TTL_SECONDS, issueToolAccessToken } from './lti-tokens';
import { ToolProxy } from './tool-proxy.entity';
import { toolReaches, ToolTarget } from './tool-reach';
import { CourseService } from '../courses/course.service';
import { AccountService } from '../accounts/account.service';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Canvas's lti.oauth2.authorize.max.expiration: an assertion may expire at most 60 s ahead. */
const MAX_EXP_AHEAD_SECONDS = 60;
/** Canvas refuses assertions issued more than 5 minutes ago. */
const MAX_IAT_AGE_SECONDS = 5 * 60;
/** The authorize paths as a client writes them; the assertion's aud must be exactly one of these URLs. */
const AUTHORIZE_PATH = /^\/api\/lti\/(accounts|courses)\/[^/]+\/authorize$/;

export interface AuthorizeInput {
  contextType: string;
  contextId: string;
  grantType?: string | null;
  assertion?: string | null;
}

export interface LtiAccessToken {
  accessToken: string;
  tokenType: 'bearer';
  expiresIn: string;
}

/** Every refusal looks the same from outside, as in Canvas: 400 {"error":"invalid_grant"}. */
class InvalidGrant extends RequestError {
  constructor(readonly reason: string) {
    super('invalid_grant', 400, { error: 'invalid_grant' });
  }
}

const isDuplicateKey = (e: unknown): boolean => {
  if (!(e instanceof QueryFailedError)) return false;
  const d = (e as QueryFailedError & { driverError?: { code?: string; errno?: number } }).driverError;
  return d?.code === 'ER_DUP_ENTRY' || d?.errno === 1062 || String(d?.code ?? '').startsWith('SQLITE_CONSTRAINT');
};

/**
 * POST /api/lti/{accounts|courses}/:id/authorize with the JWT-bearer grant, checked as Canvas's
 * Lti::OAuth2::AuthorizationValidator does, answering its token response.
 */
export class LtiAuthorizeService {
  constructor(private readonly ctx: RequestContext) {}

  async authorize(input: AuthorizeInput): Promise<LtiAccessToken> {
    try {
      return await this.grant(input);
    } catch (e) {
      if (e instanceof InvalidGrant) {
        this.ctx.log.info({ reason: e.reason }, 'LTI authorize refused');
        throw e;
      }
      // A context that does not exist is one more invalid grant.
      if (e instanceof DomainError) throw new InvalidGrant(`context: ${e.message}`);
      throw e;
    }
  }

  /** The URL the client posted to (REST), or the one it would have used (GraphQL). */
  private audience(type: 'Account' | 'Course', rawId: string): string {
    const used = this.ctx.request?.path;
    const path = used && AUTHORIZE_PATH.test(used) ? used : `/api/lti/${type === 'Course' ? 'courses' : 'accounts'}/${rawId}/authorize`;
    return `${this.ctx.baseUrl}${path}`;
  }

  private async target(type: 'Account' | 'Course', rawId: string): Promise<ToolTarget> {
    if (type === 'Course') return { type, course: await this.ctx.use(CourseService).lookup(rawId) };
    return { type, accountId: (await this.ctx.use(AccountService).lookup(rawId)).id };
  }

  private async grant(input: AuthorizeInput): Promise<LtiAccessToken> {
    const type = { account: 'Account', course: 'Course' }[input.contextType.trim().toLowerCase()] as 'Account' | 'Course' | undefined;
    if (!type) throw new InvalidGrant('context type');
    if (input.grantType !== JWT_BEARER_GRANT) throw new InvalidGrant('grant_type');
    const assertion = input.assertion ?? '';
    if (!assertion || assertion.length > 8192) throw new InvalidGrant('assertion missing');

    let unverified: JWTPayload;
    try {
      if (decodeProtectedHeader(assertion).alg !== 'HS256') throw new InvalidGrant('alg');
      unverified = decodeJwt(assertion);
    } catch (e) {
      throw e instanceof InvalidGrant ? e : new InvalidGrant('malformed assertion');
    }
    if (typeof unverified.sub !== 'string' || !unverified.sub) throw new InvalidGrant('sub');
    const proxy = await this.ctx.ds.getRepository(ToolProxy).findOneBy({ guid: unverified.sub });
    // Exact match: MySQL's collation compares case-insensitively.
    if (!proxy || proxy.guid !== unverified.sub || proxy.workflowState !== 'active') throw new InvalidGrant('unknown or deleted tool proxy');

    let claims: JWTPayload;
    try {
      const secret = decryptSecret(this.ctx.app.tokenKey, proxy.sharedSecretEncrypted);
      ({ payload: claims } = await jwtVerify(assertion, new TextEncoder().encode(secret), { algorithms: ['HS256'] }));
    } catch {
      throw new InvalidGrant('signature or registered claims');
    }

    const now = Date.now() / 1000;
    const aud = this.audience(type, input.contextId);
    const auds = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!auds.includes(aud)) throw new InvalidGrant('aud');
    if (typeof claims.exp !== 'number' || claims.exp < now || claims.exp > now + MAX_EXP_AHEAD_SECONDS) throw new InvalidGrant('exp');
    if (typeof claims.iat !== 'number' || claims.iat > now || claims.iat < now - MAX_IAT_AGE_SECONDS) throw new InvalidGrant('iat');
    if (typeof claims.jti !== 'string' || !claims.jti || claims.jti.length > 255) throw new InvalidGrant('jti');

    if (!(await toolReaches(this.ctx, proxy, await this.target(type, input.contextId)))) throw new InvalidGrant('tool not installed in context');
    await this.consumeNonce(proxy.guid, claims.jti, claims.exp);

    const accessToken = await issueToolAccessToken(this.ctx.app.tokenKey, proxy.guid, new URL(this.ctx.baseUrl).host);
    return { accessToken, tokenType: 'bearer', expiresIn: String(ACCESS_TOKEN_TTL_SECONDS) };
  }

  /**
   * Records the jti, refusing one seen before: the primary key makes this exact across instances
   * and concurrent requests. Rows outlive the assertion's exp by a minute; expired ones are swept
   * first, in a statement of its own (a sweep and an insert in one MySQL transaction could deadlock
   * with a concurrent pair on the expiry index's gap locks).
   */
  private async consumeNonce(guid: string, jti: string, exp: number): Promise<void> {
    const nonce = createHash('sha256').update(`nonce:${guid}:${jti}`).digest('hex');
    const expiresAt = new Date((Math.ceil(exp) + 60) * 1000);
    await transaction(this.ctx.ds, (em) => em.getRepository(LtiNonce).delete({ expiresAt: LessThan(new Date()) }));
    try {
      await transaction(this.ctx.ds, (em) => em.getRepository(LtiNonce).insert({ nonce, expiresAt }));
    } catch (e) {
      if (isDuplicateKey(e)) throw new InvalidGrant('jti replayed');
      throw e;
    }
  }
}
