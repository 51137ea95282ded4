import { addressRefusal, DestinationGuard, parseV6, RefusedDestination } from '../../src/webhooks/destination-guard';

/**
 * The private-address guard of webhook deliveries: every spelling under which IPv6 carries an
 * IPv4 address is decoded and judged by the IPv4 rules, and the IPv6 ranges that are not the
 * public internet are refused.
 */
describe('destination guard: addresses', () => {
  const strict = new DestinationGuard();
  const refused = (address: string) => expect([address, strict.refusal(address)]).toEqual([address, expect.stringMatching(/private, loopback, link-local or reserved/)]);
  const allowed = (address: string) => expect([address, strict.refusal(address)]).toEqual([address, null]);

  it.each([
    ['0.0.0.0', '"this network"'],
    ['10.20.30.40', 'private'],
    ['100.100.0.1', 'CGNAT'],
    ['127.0.0.2', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.20.0.1', 'private'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.10', 'documentation'],
    ['192.88.99.1', '6to4 relay'],
    ['192.168.100.1', 'private'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
  ])('refuses the IPv4 address %s (%s)', (address, why) => {
    refused(address);
    expect(addressRefusal(address)).toContain(why);
  });

  it.each([
    // IPv4-mapped, in both spellings (URL parsing turns [::ffff:127.0.0.1] into [::ffff:7f00:1]).
    ['::ffff:127.0.0.1', 'IPv4-mapped address of 127.0.0.1, loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped address of 127.0.0.1, loopback'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'IPv4-mapped address of 169.254.169.254, link-local'],
    ['::FFFF:10.0.0.1', 'IPv4-mapped address of 10.0.0.1, private'],
    // SIIT / IPv4-translated.
    ['::ffff:0:127.0.0.1', 'IPv4-translated (SIIT) address of 127.0.0.1, loopback'],
    ['::ffff:0:a00:1', 'IPv4-translated (SIIT) address of 10.0.0.1, private'],
    // NAT64: the well-known prefix with a private IPv4 address, and the local-use prefix.
    ['64:ff9b::10.1.2.3', 'NAT64 address of 10.1.2.3, private'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 address of 169.254.169.254, link-local'],
    ['64:ff9b:1::8.8.8.8', 'local-use NAT64'],
    ['64:ff9b:1:ffff::1', 'local-use NAT64'],
    // 6to4 embedding a private address (2002:AABB:CCDD::).
    ['2002:a00:1::1', '6to4 address of 10.0.0.1, private'],
    ['2002:7f00:1:0:0:0:0:1', '6to4 address of 127.0.0.1, loopback'],
    ['2002:c0a8:101::', '6to4 address of 192.168.1.1, private'],
    // Teredo: server 65.54.227.120, client 127.0.0.1 stored inverted (80ff:fffe), and a private server.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo address of 127.0.0.1, loopback'],
    ['2001:0:a00:1:0:0:f7f7:f7f7', 'Teredo address of 10.0.0.1, private'],
    // IPv4-compatible (deprecated): refused whatever it embeds.
    ['::127.0.0.1', 'IPv4-compatible'],
    ['::8.8.8.8', 'IPv4-compatible'],
    ['::a00:1', 'IPv4-compatible'],
    // Other special ranges.
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fec0::1', 'site-local'],
    ['feff:ffff::1', 'site-local'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['ff0e::101', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff:0:1::1', 'documentation'],
    ['100::1', 'discard-only'],
    ['2001:2::1', 'IETF protocol assignments'],
    ['2001:10::1', 'IETF protocol assignments'],
    ['5f00::1', 'SRv6'],
    ['1::1', 'reserved'],
    ['::1:0:0:0', 'reserved'],
    ['4000::1', 'reserved'],
    ['e000::1', 'reserved'],
  ])('refuses the IPv6 address %s (%s)', (address, why) => {
    refused(address);
    expect(addressRefusal(address)).toContain(why);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '192.0.3.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82b::200e',
    // Public IPv4 addresses behind the forms that reach them.
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('allows the public address %s', (address) => allowed(address));

  it('names what is not an address', () => {
    expect(strict.refusal('localhost')).toMatch(/not an IP address/);
    expect(strict.refusal('1.2.3')).toMatch(/not an IP address/);
    expect(strict.refusal(':::1')).toMatch(/not an IP address/);
  });

  it('parses every IPv6 spelling to the same number', () => {
    expect(parseV6('::ffff:127.0.0.1')).toBe(parseV6('0:0:0:0:0:ffff:7f00:0001'));
    expect(parseV6('1:2:3:4:5:6:1.2.3.4')).toBe(parseV6('1:2:3:4:5:6:102:304'));
    expect(parseV6('2001:DB8::')).toBe(0x20010db8n << 96n);
    expect(parseV6('127.0.0.1')).toBeNull();
  });
});

describe('destination guard: the allow-list', () => {
  it('allows listed addresses as they are connected to, IPv4-mapped forms included', () => {
    const guard = new DestinationGuard('127.0.0.0/8, 10.0.0.5, fd00::/8');
    expect(guard.refusal('127.0.0.1')).toBeNull();
    expect(guard.refusal('::ffff:127.0.0.1')).toBeNull();
    expect(guard.refusal('10.0.0.5')).toBeNull();
    expect(guard.refusal('fd00::1')).toBeNull();
    // Listing 127.0.0.0/8 does not open the tunnels and translators that embed it.
    expect(guard.refusal('2002:7f00:1::1')).toMatch(/6to4 address of 127\.0\.0\.1/);
    expect(guard.refusal('64:ff9b::7f00:1')).toMatch(/NAT64 address of 127\.0\.0\.1/);
    expect(guard.refusal('10.0.0.6')).not.toBeNull();
    expect(guard.refusal('fc00::1')).not.toBeNull();
  });
});

describe('destination guard: host names and literals', () => {
  const strict = new DestinationGuard();

  it('checks every address a name resolves to at delivery', async () => {
    await expect(strict.resolve('localhost')).rejects.toBeInstanceOf(RefusedDestination);
    await expect(strict.resolve('[::ffff:7f00:1]')).rejects.toThrow(/refused: ::ffff:7f00:1 is a private, loopback, link-local or reserved address \(IPv4-mapped address of 127\.0\.0\.1/);
    await expect(strict.resolve('[2002:a00:1::1]')).rejects.toThrow(/6to4 address of 10\.0\.0\.1/);
    await expect(strict.resolve('[fec0::1]')).rejects.toThrow(/site-local/);
    await expect(strict.resolve('8.8.8.8')).resolves.toEqual([{ address: '8.8.8.8', family: 4 }]);
  });

  it('screens a destination at registration: literals and names that resolve to refused addresses', async () => {
    // Hosts as URL parsing leaves them (decimal, hex and mapped spellings are normalized by then).
    for (const url of ['https://2130706433/', 'https://0x7f.1/', 'https://[::ffff:127.0.0.1]/', 'https://[::ffff:0:a00:1]/', 'https://[64:ff9b::a9fe:a9fe]/', 'https://localhost/', 'https://127.0.0.1./']) {
      expect([url, await strict.refuses(new URL(url).hostname)]).toEqual([url, true]);
    }
    expect(await strict.refuses('8.8.8.8')).toBe(false);
    expect(await strict.refuses('[2606:4700:4700::1111]')).toBe(false);
    // A name that does not resolve is left to the delivery-time check.
    expect(await strict.refuses('no-such-host.invalid')).toBe(false);
    expect(await new DestinationGuard('127.0.0.0/8,::1/128').refuses('localhost')).toBe(false);
  });
});
