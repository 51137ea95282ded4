import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Deliveries go to the public internet only: a destination whose host is, or resolves to, a
 * loopback, private, link-local, shared (CGNAT), multicast or otherwise reserved address is refused,
 * unless the operator allow-lists it (WEBHOOK_ALLOW_PRIVATE_NETWORKS). The addresses checked are the
 * addresses connected to (the transport pins them), so a DNS answer cannot change in between.
 */
const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const V6_BLOCKED: [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64 (reaches IPv4 addresses)
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
];

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

export class DestinationGuard {
  private readonly blocked = new BlockList();
  private readonly allowed = new BlockList();

  /** `allow`: comma-separated IPs and CIDR ranges (config WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
  constructor(allow?: string) {
    for (const [net, bits] of V4_BLOCKED) this.blocked.addSubnet(net, bits, 'ipv4');
    for (const [net, bits] of V6_BLOCKED) this.blocked.addSubnet(net, bits, 'ipv6');
    for (const entry of (allow ?? '').split(',').map((e) => e.trim()).filter(Boolean)) {
      const [addr, bits] = entry.split('/');
      const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.allowed.addAddress(addr, type);
      else this.allowed.addSubnet(addr, Number(bits), type);
    }
  }

  /** Why an address may not be reached, or null when it may. */
  refusal(address: string): string | null {
    let addr = address;
    let family = isIP(addr);
    // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is the IPv4 address it maps.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
    if (mapped) {
      addr = mapped[1];
      family = 4;
    }
    if (!family) return `${address} is not an IP address`;
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (this.allowed.check(addr, type)) return null;
    if (this.blocked.check(addr, type)) return `${address} is a private, loopback, link-local or reserved address (not in WEBHOOK_ALLOW_PRIVATE_NETWORKS)`;
    return null;
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
}
