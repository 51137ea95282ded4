import type { FastifyBaseLogger } from 'fastify';
import type { Runtime } from '../request/runtime';
import { DomainError } from '../common/errors';
import { createContext } from './request-context';
import { RequestContext } from '../request/context';
import type { RestError } from '../api/rest/errors';
import { WWW_AUTHENTICATE, UNAUTHENTICATED_BODY } from '../api/rest/errors';
import { authenticate } from './authenticate';
import { tokenCacheOf } from './token-cache';
import { formatDateTime } from '../common/dates';
import { looksLikeJwt, verifyToolAccessToken } from '../lti/lti-tokens';
import { UserService } from '../users/user.service';

const INVALID_AS_USER = { status: 401, body: { errors: 'Invalid as_user_id' } };

/**
 * Turns a request's credentials into its context: who authenticated, and (for a site admin using
 * as_user_id) whom the request acts as. Failures come back as Canvas's 401 responses.
 */
export async function requestContext(
  app: Runtime,
  opts: {
    token: string | null;
    asUserId?: string | null;
    requireUser: boolean;
    baseUrl: string;
    log: FastifyBaseLogger;
    /** Also accept an LTI tool's JWT access token (HTTP GraphQL serves users and tools alike). */
    allowTool?: boolean;
  },
): Promise<RequestContext | RestError> {
  if (opts.allowTool && opts.token && looksLikeJwt(opts.token)) {
    const tool = await verifyToolAccessToken(app.ds, app.tokenKey, opts.token, new URL(opts.baseUrl).host);
    if (tool) return createContext({ app, viewer: null, tool, baseUrl: opts.baseUrl, log: opts.log });
  }
  const auth = await authenticate(app.ds, app.tokenKey, opts.token, tokenCacheOf(app));
  if (auth.kind === 'invalid') {
    return { status: 401, body: { ...UNAUTHENTICATED_BODY, errors: [{ message: 'Invalid access token.' }] }, headers: WWW_AUTHENTICATE };
  }
  if (auth.kind === 'expired') {
    return {
      status: 401,
      body: { ...UNAUTHENTICATED_BODY, errors: [{ message: 'Expired access token.', expired_at: formatDateTime(auth.expiredAt) }] },
      headers: WWW_AUTHENTICATE,
    };
  }
  if (auth.kind === 'anonymous') {
    if (opts.requireUser || opts.asUserId) return { status: 401, body: UNAUTHENTICATED_BODY, headers: WWW_AUTHENTICATE };
    return createContext({ app, viewer: null, baseUrl: opts.baseUrl, log: opts.log });
  }
  const real = createContext({ app, viewer: auth.user, token: auth.token, baseUrl: opts.baseUrl, log: opts.log });
  if (opts.asUserId == null || opts.asUserId === '') return real;
  try {
    const target = await real.use(UserService).lookup(opts.asUserId);
    if (target.id === auth.user.id) return real;
    if (!(await real.authz.isSiteAdmin())) return INVALID_AS_USER;
    return createContext({ app, viewer: target, realUser: auth.user, token: auth.token, baseUrl: opts.baseUrl, log: opts.log });
  } catch (e) {
    if (e instanceof DomainError) return INVALID_AS_USER;
    throw e;
  }
}

/**
 * The context of a request that authenticates as an LTI tool: only the JWT access tokens issued by
 * /api/lti/…/authorize are accepted (a user's token is refused); failures are Canvas's 401.
 */
export async function toolRequestContext(
  app: Runtime,
  opts: { token: string | null; baseUrl: string; log: FastifyBaseLogger },
): Promise<RequestContext | RestError> {
  const tool = await verifyToolAccessToken(app.ds, app.tokenKey, opts.token, new URL(opts.baseUrl).host);
  if (!tool) return { status: 401, body: UNAUTHENTICATED_BODY, headers: WWW_AUTHENTICATE };
  return createContext({ app, viewer: null, tool, baseUrl: opts.baseUrl, log: opts.log });
}

export function isRestError(v: RequestContext | RestError): v is RestError {
  return (v as RestError).status !== undefined && (v as RequestContext).use === undefined;
}
