import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import proxyaddr from '@fastify/proxy-addr';

/**
 * Where absolute URLs (Link headers, html_url, avatar and file URLs, the LTI `aud`, graphql-ws
 * contexts) get their scheme and host. Every door asks `requestOrigin`, so one setting decides:
 * PUBLIC_URL when configured, else the request's own Host, with X-Forwarded-Host/-Proto honoured only
 * when the peer is a proxy TRUST_PROXY names. A client talking to us directly can no longer put its
 * own host into our links.
 */

/** Fastify's trust function shape: is the address `hop` steps from us a trusted proxy? */
export type TrustProxyFn = (address: string, hop: number) => boolean;

export interface OriginSettings {
  /** `scheme://host[:port]` from PUBLIC_URL, or null to use the request's host. */
  publicUrl: string | null;
  /** False: trust no proxy (forwarded headers are ignored). */
  trust: TrustProxyFn | false;
}

/** proxy-addr's named ranges, accepted in TRUST_PROXY as Fastify documents them. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * A zero prefix is accepted as it always was (`0.0.0.0/0` trusts every IPv4 peer, `::/0` every peer,
 * IPv4 ones included), but proxy-addr refuses it, so it is handed over as halves that cover the same.
 */
const IPV4_ALL = ['0.0.0.0/1', '128.0.0.0/1'];
const WHOLE_FAMILY: Record<4 | 6, string[]> = { 4: IPV4_ALL, 6: ['::/1', '8000::/1', ...IPV4_ALL] };

/**
 * The proxy-addr entries of one TRUST_PROXY list entry, or null when it is not a named range, an IP
 * address or `address/prefix-length` (netmask notation, which proxy-addr would also take, is not
 * part of the setting).
 */
function trustEntry(entry: string): string[] | null {
  if (NAMED_RANGES.has(entry)) return [entry];
  const [addr, bits, extra] = entry.split('/');
  const family = isIP(addr ?? '') as 0 | 4 | 6;
  if (!family || extra !== undefined) return null;
  if (bits === undefined) return [entry];
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128)) return null;
  return Number(bits) === 0 ? WHOLE_FAMILY[family] : [entry];
}

const listEntries = (value: string): string[] => value.split(',').map((e) => e.trim());

/** A hop count (`1`..`32`) or a comma-separated list of IPs, CIDR ranges and named ranges. */
export function isTrustProxyValue(value: string): boolean {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) >= 1 && Number(v) <= 32;
  return listEntries(v).every((e) => trustEntry(e) !== null);
}

/**
 * The trust function for TRUST_PROXY. Unset trusts nobody. A list trusts peers in those networks
 * (an IPv4-mapped IPv6 peer, `::ffff:10.0.0.1`, as the IPv4 address it carries). A hop count N
 * trusts the N nearest hops whatever their address (the proxy-addr meaning), so it is only safe when
 * nothing but the proxies can reach the port.
 */
export function trustProxyFn(value: string | undefined): TrustProxyFn | false {
  if (!value || !value.trim()) return false;
  const v = value.trim();
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return (_address, hop) => hop < hops;
  }
  // Entries the configuration check would refuse are skipped, so a list never trusts more than it names.
  return proxyaddr.compile(listEntries(v).flatMap((e) => trustEntry(e) ?? []));
}

/** PUBLIC_URL must be an http(s) origin: no credentials, path, query or fragment. */
export function isPublicUrlValue(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password && (u.pathname === '/' || u.pathname === '') && !u.search && !u.hash;
  } catch {
    return false;
  }
}

const cache = new WeakMap<object, OriginSettings>();

/** The compiled settings of a configuration (compiled once per configuration object). */
export function originSettings(config: { PUBLIC_URL?: string; TRUST_PROXY?: string }): OriginSettings {
  let s = cache.get(config);
  if (!s) {
    s = { publicUrl: config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : null, trust: trustProxyFn(config.TRUST_PROXY) };
    cache.set(config, s);
  }
  return s;
}

/** The last value of a header a chain of proxies may have appended to (`a, b` → `b`), as Fastify reads it. */
function lastEntry(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[value.length - 1] : value;
  if (v == null) return undefined;
  const i = v.lastIndexOf(',');
  return (i < 0 ? v : v.slice(i + 1)).trim() || undefined;
}

/** A host[:port] a URL can be built from; anything else (spaces, slashes, `@` …) is refused. */
const HOST = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})?)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** A Host (or trusted X-Forwarded-Host) value a URL can be built from. */
export const isHostValue = (host: string): boolean => HOST.test(host);

/**
 * The origin (`scheme://host[:port]`) for absolute URLs in the answer to this request or socket.
 * A Host header that is not a host name falls back to the address the client connected to, so no
 * header can make a URL that fails to parse further on.
 */
export function requestOrigin(settings: OriginSettings, req: IncomingMessage): string {
  if (settings.publicUrl) return settings.publicUrl;
  const socket = req.socket;
  const viaTrustedProxy = settings.trust !== false && socket?.remoteAddress != null && settings.trust(socket.remoteAddress, 0);
  const direct = (socket as TLSSocket | undefined)?.encrypted ? 'https' : 'http';
  let proto = viaTrustedProxy ? lastEntry(req.headers['x-forwarded-proto'])?.toLowerCase() ?? direct : direct;
  if (proto !== 'http' && proto !== 'https') proto = direct;
  let host = (viaTrustedProxy ? lastEntry(req.headers['x-forwarded-host']) : undefined) ?? req.headers.host ?? '';
  if (!HOST.test(host)) {
    const local = socket?.localAddress ?? '127.0.0.1';
    host = `${isIP(local) === 6 ? `[${local}]` : local}${socket?.localPort ? `:${socket.localPort}` : ''}`;
  }
  return `${proto}://${host}`;
}
