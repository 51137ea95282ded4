import { createHmac } from 'node:crypto';
import { jwtVerify } from 'jose';
import type { Runtime } from '../request/runtime';
import { authenticate } from '../auth/authenticate';
import { tokenCacheOf } from '../auth/token-cache';
import { accessTokenKey } from '../lti/lti-keys';
import { looksLikeJwt } from '../lti/lti-tokens';

/**
 * The bucket a request is charged to, like Canvas's client identifier: an LTI tool (its JWT access
 * tokens all share the tool's bucket, however many it fetches), else the access token, else the IP.
 *
 * Only a keyed hash of the identity is kept (in memory or in Redis) and it is never logged, so a bucket
 * name reveals no token. The key is the server secret, so every instance derives the same names.
 */
export async function clientKey(tokenKey: string, token: string | null, ip: string): Promise<string> {
  if (!token) return `ip:${digest(tokenKey, `ip:${ip}`)}`;
  const tool = looksLikeJwt(token) ? await toolGuid(tokenKey, token) : null;
  if (tool) return `tool:${digest(tokenKey, `tool:${tool}`)}`;
  // Not looked up here: callers that have not checked the token use bucketKey.
  return `token:${digest(tokenKey, `token:${token}`)}`;
}

/**
 * The bucket of a request that authenticates with `token` (null: none): the tool's or the token's when
 * the token really authenticates (a tool's JWT by its signature; a user's token by the lookup the
 * request itself makes, which the token cache usually answers), else the IP's. An unknown, revoked or
 * expired token names no bucket of its own, so random tokens cannot each get a fresh one.
 */
export async function bucketKey(app: Runtime, token: string | null, ip: string): Promise<string> {
  if (!token) return clientKey(app.tokenKey, null, ip);
  if (looksLikeJwt(token) && (await toolGuid(app.tokenKey, token))) return clientKey(app.tokenKey, token, ip);
  let valid = false;
  try {
    valid = (await authenticate(app.ds, app.tokenKey, token, tokenCacheOf(app))).kind === 'ok';
  } catch {
    // The database is unavailable (the request will be answered 503): the IP is what is known.
  }
  return clientKey(app.tokenKey, valid ? token : null, ip);
}

function digest(tokenKey: string, identity: string): string {
  return createHmac('sha256', tokenKey).update(`lms:throttle:${identity}`).digest('hex').slice(0, 32);
}

/**
 * The tool proxy a JWT access token was issued to, checked by signature only (no query): a forged
 * token naming someone else's tool must not be able to fill that tool's bucket.
 */
async function toolGuid(tokenKey: string, token: string): Promise<string | null> {
  if (token.length > 4096) return null;
  try {
    const { payload } = await jwtVerify(token, accessTokenKey(tokenKey), { algorithms: ['HS256'], issuer: 'Canvas' });
    return typeof payload.sub === 'string' && payload.sub ? payload.sub : null;
  } catch {
    return null;
  }
}
