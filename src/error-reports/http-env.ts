import type { RequestMeta } from '../request/context';
import { filterQueryString, filterUrl } from '../api/rest/request-meta';

/** Keys whose values are credentials: dropped from any http_env, whoever supplied it. */
const SECRET_KEY = /authorization|cookie|access[_-]?token|api[_-]?key|password|passwd|secret|session|^x-csrf|csrf[_-]?token|bearer/i;

/** Longest string kept per collected value; a huge header cannot make a report unstorable. */
const COLLECTED_VALUE_MAX = 2048;

const clip = (s: string) => (s.length > COLLECTED_VALUE_MAX ? s.slice(0, COLLECTED_VALUE_MAX) : s);

/**
 * What Canvas records of the request when the client sends no http_env (its USEFUL_ENV, Rack names):
 * method, path, filtered query and URI, client address, host, protocol and the harmless headers. Never
 * the Authorization header, cookies or an access_token.
 */
export function collectHttpEnv(req: RequestMeta): Record<string, string> {
  const h = req.headers;
  const [serverName, serverPort] = (req.host ?? '').split(':');
  const env: Record<string, string | undefined> = {
    HTTP_ACCEPT: h.accept,
    HTTP_ACCEPT_ENCODING: h['accept-encoding'],
    HTTP_ACCEPT_LANGUAGE: h['accept-language'],
    HTTP_HOST: h.host,
    HTTP_REFERER: h.referer,
    HTTP_USER_AGENT: h['user-agent'],
    PATH_INFO: req.path,
    QUERY_STRING: req.query,
    REMOTE_ADDR: req.ip,
    REQUEST_METHOD: req.method,
    REQUEST_PATH: req.path,
    REQUEST_URI: filterUrl(`${req.protocol}://${req.host}${req.path}${req.query ? `?${req.query}` : ''}`),
    SERVER_NAME: serverName || undefined,
    SERVER_PORT: serverPort || (req.protocol === 'https' ? '443' : '80'),
    SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
    REQUEST_ID: req.id,
  };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') out[k] = clip(v);
  return out;
}

/**
 * A client-supplied http_env with credentials removed: keys that name a credential are dropped at any
 * depth, and query strings and URLs inside values lose their secret parameters.
 */
export function scrubHttpEnv(value: unknown, depth = 0): unknown {
  if (depth > 20) return null;
  if (Array.isArray(value)) return value.map((v) => scrubHttpEnv(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === '__proto__' || SECRET_KEY.test(k)) continue;
      out[k] = scrubHttpEnv(v, depth + 1);
    }
    return out;
  }
  if (typeof value === 'string') {
    const s = value.replace(/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [FILTERED]');
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s) || s.startsWith('/')) return filterUrl(s);
    if (/(^|&)[^=&]+=/.test(s)) return filterQueryString(s.replace(/^\?/, ''));
    return s;
  }
  return value;
}
