import type { FastifyRequest } from 'fastify';
import { OriginSettings, requestOrigin } from '../../common/origin';
import type { RequestMeta } from '../../request/context';

/** Query parameters whose values are credentials or secrets: never copied anywhere. */
const SECRET_PARAM = /^(access_token|api_key|password|token|client_secret|secret|code|jwt|refresh_token|session)$/i;

/** The headers a service may see; Authorization, Cookie and anything else not listed never leave the router. */
const SAFE_HEADERS = ['accept', 'accept-encoding', 'accept-language', 'host', 'referer', 'user-agent', 'content-type', 'x-forwarded-for', 'x-forwarded-proto'];

/** A query string with secret values replaced by [FILTERED], as Canvas's LoggingFilter does. */
export function filterQueryString(qs: string): string {
  if (!qs) return '';
  return qs
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawKey = eq < 0 ? pair : pair.slice(0, eq);
      let key = rawKey;
      try {
        key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
      } catch {
        // keep the raw key
      }
      const bare = key.replace(/\[.*$/, '');
      return SECRET_PARAM.test(bare) && eq >= 0 ? `${rawKey}=[FILTERED]` : pair;
    })
    .join('&');
}

/** A URL (absolute or a path) with secret query values filtered. */
export function filterUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = hash < 0 ? url.slice(q + 1) : url.slice(q + 1, hash);
  return `${url.slice(0, q)}?${filterQueryString(query)}${hash < 0 ? '' : url.slice(hash)}`;
}

/** What a request tells services about itself: method, path, filtered query, client address and safe headers. */
export function requestMeta(req: FastifyRequest): RequestMeta {
  const q = req.url.indexOf('?');
  const headers: Record<string, string> = {};
  for (const name of SAFE_HEADERS) {
    const v = req.headers[name];
    if (v === undefined) continue;
    const value = Array.isArray(v) ? v.join(', ') : String(v);
    headers[name] = name === 'referer' ? filterUrl(value) : value;
  }
  return {
    id: String(req.id),
    method: req.method,
    path: q < 0 ? req.url : req.url.slice(0, q),
    query: q < 0 ? '' : filterQueryString(req.url.slice(q + 1)),
    ip: req.ip,
    protocol: req.protocol,
    host: req.host,
    httpVersion: req.raw.httpVersion,
    headers,
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** PUBLIC_URL and TRUST_PROXY, compiled (decorated in buildServer). */
    originSettings?: OriginSettings;
  }
}

/** The origin of absolute URLs in this request's answer: PUBLIC_URL, else the (trusted) request host. */
export function baseUrl(req: FastifyRequest): string {
  return requestOrigin(req.server.originSettings ?? { publicUrl: null, trust: false }, req.raw);
}
