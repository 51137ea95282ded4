import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { DataSource } from 'typeorm';
import { accessTokenKey } from './lti-keys';
import { ToolProxy } from './tool-proxy.entity';

/** Canvas's lti.oauth2.access_token.expiration default: one hour. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
const ISSUER = 'Canvas';
/** Canvas's Lti::OAuth2::AccessToken sets nbf 30 seconds back. */
const NBF_SKEW_SECONDS = 30;

/** A JWT the tool sends back as `Authorization: Bearer …` (signed HS256 with a server-only key). */
export async function issueToolAccessToken(tokenKey: string, guid: string, host: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setSubject(guid)
    .setAudience(host)
    .setIssuedAt(now)
    .setNotBefore(now - NBF_SKEW_SECONDS)
    .setExpirationTime(now + ACCESS_TOKEN_TTL_SECONDS)
    .setJti(randomUUID())
    .sign(accessTokenKey(tokenKey));
}

/** A bearer value shaped like a JWT (user access tokens are plain alphanumerics, never dotted). */
export const looksLikeJwt = (token: string): boolean => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);

/**
 * The active tool proxy an access token was issued to, or null: the signature, `iss` "Canvas",
 * `aud` naming this host, every claim present, not expired, not used before nbf, iat in the past,
 * and the proxy (by `sub`) still active — so deleting a proxy revokes its tokens at once.
 */
export async function verifyToolAccessToken(ds: DataSource, tokenKey: string, token: string | null, host: string): Promise<ToolProxy | null> {
  if (!token || token.length > 4096 || !looksLikeJwt(token)) return null;
  let sub: string;
  try {
    const { payload } = await jwtVerify(token, accessTokenKey(tokenKey), {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: host,
      requiredClaims: ['iss', 'sub', 'exp', 'aud', 'iat', 'nbf', 'jti'],
    });
    if (typeof payload.sub !== 'string' || typeof payload.iat !== 'number' || payload.iat > Math.floor(Date.now() / 1000)) return null;
    sub = payload.sub;
  } catch {
    return null;
  }
  const proxy = await ds.getRepository(ToolProxy).findOneBy({ guid: sub });
  return proxy && proxy.guid === sub && proxy.workflowState === 'active' ? proxy : null;
}
