import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Deliveries go to the public internet only: a destination whose host is, or resolves to, a
 * loopback, private, link-local, shared (CGNAT), multicast or otherwise reserved address is refused,
 * unless the operator allow-lists it (WEBHOOK_ALLOW_PRIVATE_NETWORKS). The addresses checked are the
 * addresses connected to (the transport pins them), so a DNS answer cannot change in between.
 *
 * IPv6 is parsed here rather than matched as text, because the same IPv4 host hides behind many
 * IPv6 spellings: IPv4-mapped (::ffff:a.b.c.d, also written ::ffff:7f00:1), IPv4-compatible
 * (::a.b.c.d), SIIT's IPv4-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d), 6to4
 * (2002:aabb:ccdd::) and Teredo (2001:0:…, the client address stored inverted). Each embedded IPv4
 * address is decoded and judged by the IPv4 rules; every IPv6 address outside global unicast
 * (2000::/3) and the special ranges inside it are refused.
 */

/** IPv4 ranges that are not the public internet (IANA special-purpose registry and RFC 6890). */
const V4_BLOCKED: [string, number, string][] = [
  ['0.0.0.0', 8, '"this network"'], // 0.0.0.0 itself reaches the local host on Linux
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'], // cloud metadata services live here
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast (deprecated)'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // includes the limited broadcast address 255.255.255.255
];

/** IPv6 ranges that embed an IPv4 address, and where: judged by the address they embed. */
const V6_EMBEDDING: [string, number, string, (a: bigint) => bigint[]][] = [
  ['::ffff:0:0', 96, 'IPv4-mapped', (a) => [low32(a)]],
  ['::ffff:0:0:0', 96, 'IPv4-translated (SIIT)', (a) => [low32(a)]],
  // The well-known prefix may only carry global IPv4 addresses (RFC 6052); a DNS64 resolver
  // synthesizes these for IPv4-only hosts on IPv6-only networks, so public ones pass.
  ['64:ff9b::', 96, 'NAT64', (a) => [low32(a)]],
  // 2002:AABB:CCDD::/48 — the IPv4 address is bits 16–47.
  ['2002::', 16, '6to4', (a) => [(a >> 80n) & MASK32]],
  // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC — server IPv4 in bits 32–63, client IPv4 inverted in the last 32.
  ['2001::', 32, 'Teredo', (a) => [(a >> 64n) & MASK32, ~a & MASK32]],
];

/** IPv6 ranges refused outright. */
const V6_BLOCKED: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  // ::a.b.c.d (RFC 4291 deprecated it; nothing routes it), whatever IPv4 address it embeds.
  ['::', 96, 'IPv4-compatible (deprecated)'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['100:0:0:1::', 64, 'dummy prefix'],
  ['2001::', 23, 'IETF protocol assignments'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'SRv6 SIDs'],
  ['fc00::', 7, 'unique local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

const MASK32 = 0xffffffffn;
const low32 = (a: bigint) => a & MASK32;

/** A dotted-quad IPv4 address as a number, or null. */
function parseV4(text: string): number | null {
  if (isIP(text) !== 4) return null;
  return text.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const formatV4 = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

/** An IPv6 address (any spelling, zone id ignored) as a 128-bit number, or null. */
export function parseV6(text: string): bigint | null {
  const addr = text.split('%')[0];
  if (isIP(addr) !== 6) return null;
  const groups = (part: string): string[] => {
    if (part === '') return [];
    const out = part.split(':');
    const last = out[out.length - 1];
    if (last.includes('.')) {
      const v4 = parseV4(last);
      if (v4 == null) return [];
      out.splice(-1, 1, Math.floor(v4 / 65536).toString(16), (v4 % 65536).toString(16));
    }
    return out;
  };
  const halves = addr.split('::');
  let all: string[];
  if (halves.length === 2) {
    const head = groups(halves[0]);
    const tail = groups(halves[1]);
    all = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  } else {
    all = groups(addr);
  }
  if (all.length !== 8) return null;
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** Parsed range starts, so a check does no text parsing of its own ranges. */
const parsedNets = new Map<string, bigint>();

function inRange(addr: bigint, net: string, bits: number): boolean {
  let start = parsedNets.get(net);
  if (start === undefined) parsedNets.set(net, (start = parseV6(net)!));
  const shift = BigInt(128 - bits);
  return addr >> shift === start >> shift;
}

/** Why an IPv4 address is not on the public internet, or null when it is. */
export function v4Refusal(n: number): string | null {
  for (const [net, bits, why] of V4_BLOCKED) {
    const size = 2 ** (32 - bits);
    if (Math.floor(n / size) === Math.floor(parseV4(net)! / size)) return why;
  }
  return null;
}

/** Why an IPv6 address is not on the public internet, or null when it is. */
export function v6Refusal(addr: bigint): string | null {
  for (const [net, bits, what, embedded] of V6_EMBEDDING) {
    if (!inRange(addr, net, bits)) continue;
    for (const v4 of embedded(addr)) {
      const why = v4Refusal(Number(v4));
      if (why) return `${what} address of ${formatV4(Number(v4))}, ${why}`;
    }
    // Teredo sits inside 2001::/23, which is refused as a whole below; its public forms may pass.
    return null;
  }
  for (const [net, bits, why] of V6_BLOCKED) if (inRange(addr, net, bits)) return why;
  if (!inRange(addr, '2000::', 3)) return 'reserved (outside global unicast 2000::/3)';
  return null;
}

/**
 * Why an address (IPv4, or IPv6 in any spelling) may not be reached, before any allow-list, or null
 * when it is public. Not an address at all is a refusal too.
 */
export function addressRefusal(address: string): string | null {
  const v4 = parseV4(address);
  if (v4 != null) return v4Refusal(v4);
  const v6 = parseV6(address);
  if (v6 != null) return v6Refusal(v6);
  return 'not an IP address';
}

export class RefusedDestination extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedDestination';
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** How long a registration waits for DNS before accepting the URL (deliveries check again). */
const SCREEN_LOOKUP_MS = 2_000;

export class DestinationGuard {
  private readonly allowed = new BlockList();

  /** `allow`: comma-separated IPs and CIDR ranges (config WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
  constructor(allow?: string) {
    for (const entry of (allow ?? '').split(',').map((e) => e.trim()).filter(Boolean)) {
      const [addr, bits] = entry.split('/');
      const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.allowed.addAddress(addr, type);
      else this.allowed.addSubnet(addr, Number(bits), type);
    }
  }

  /**
   * Why an address may not be reached, or null when it may. The allow-list names addresses as they
   * are connected to (node's BlockList also matches an IPv4-mapped address by its IPv4 address).
   */
  refusal(address: string): string | null {
    const addr = address.split('%')[0];
    const family = isIP(addr);
    if (!family) return `${address} is not an IP address`;
    const why = addressRefusal(addr);
    if (!why) return null;
    if (this.allowed.check(addr, family === 6 ? 'ipv6' : 'ipv4')) return null;
    return `${address} is a private, loopback, link-local or reserved address (${why}; not in WEBHOOK_ALLOW_PRIVATE_NETWORKS)`;
  }

  /** The addresses to connect to for a host; throws RefusedDestination when any of them is refused. */
  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    const literal = isIP(host);
    let addresses: ResolvedAddress[];
    if (literal) addresses = [{ address: host, family: literal as 4 | 6 }];
    else {
      try {
        addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
      } catch (e) {
        throw new RefusedDestination(`cannot resolve ${host}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    }
    if (!addresses.length) throw new RefusedDestination(`cannot resolve ${host}`);
    for (const a of addresses) {
      const why = this.refusal(a.address);
      if (why) throw new RefusedDestination(`destination ${host} refused: ${why}`);
    }
    return addresses;
  }

  /**
   * The registration-time check of a destination host: true when it is, or now resolves to, an
   * address deliveries would refuse. A name that does not resolve (yet), or not within a short
   * wait, is accepted: every delivery resolves and checks it again.
   */
  async refuses(hostname: string): Promise<boolean> {
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host)) return this.refusal(host) != null;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), SCREEN_LOOKUP_MS);
      timer.unref();
    });
    try {
      const found = await Promise.race([lookup(host, { all: true, verbatim: true }).catch(() => null), timeout]);
      return (found ?? []).some((a) => this.refusal(a.address) != null);
    } finally {
      clearTimeout(timer);
    }
  }
}

const guards = new Map<string, DestinationGuard>();

/** One guard per allow-list setting (building one parses the list). */
export function destinationGuard(allow?: string): DestinationGuard {
  const key = allow ?? '';
  let guard = guards.get(key);
  if (!guard) {
    guard = new DestinationGuard(allow);
    guards.set(key, guard);
  }
  return guard;
}
