import { createHmac } from 'node:crypto';
import { jwtVerify } from 'jose';
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
  // A user token is not looked up here (that costs a query); an unknown one simply gets its own bucket.
  return `token:${digest(tokenKey, `token:${token}`)}`;
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
