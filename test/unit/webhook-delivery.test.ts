import { loadConfig } from '../../src/config';
import { DestinationGuard, RefusedDestination } from '../../src/webhooks/destination-guard';
import { backoffMs } from '../../src/webhooks/dispatcher';
import { queueRegion } from '../../src/webhooks/sqs-transport';

describe('destination guard', () => {
  const strict = new DestinationGuard();

  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ])('refuses %s', (address) => {
    expect(strict.refusal(address)).toMatch(/private, loopback, link-local or reserved/);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111'])('allows the public address %s', (address) => {
    expect(strict.refusal(address)).toBeNull();
  });

  it('lets the operator allow-list addresses and ranges', () => {
    const guard = new DestinationGuard('127.0.0.0/8, 10.0.0.5, ::1/128');
    expect(guard.refusal('127.0.0.1')).toBeNull();
    expect(guard.refusal('10.0.0.5')).toBeNull();
    expect(guard.refusal('::1')).toBeNull();
    expect(guard.refusal('10.0.0.6')).not.toBeNull();
    expect(guard.refusal('192.168.0.1')).not.toBeNull();
  });

  it('checks every address a name resolves to', async () => {
    await expect(strict.resolve('localhost')).rejects.toBeInstanceOf(RefusedDestination);
    await expect(strict.resolve('[::1]')).rejects.toThrow(/refused/);
    await expect(new DestinationGuard('127.0.0.0/8,::1/128').resolve('localhost')).resolves.not.toHaveLength(0);
  });
});

describe('full-jitter exponential backoff', () => {
  it('draws uniformly below min(max, base · 2^(attempt−1))', () => {
    expect(backoffMs(1, 1000, 60_000, () => 0.999)).toBe(999);
    expect(backoffMs(3, 1000, 60_000, () => 0.5)).toBe(2000);
    expect(backoffMs(30, 1000, 60_000, () => 0.5)).toBe(30_000);
    expect(backoffMs(5, 1000, 60_000, () => 0)).toBe(0);
  });

  it('retries for at least 24 hours with the defaults before dead-lettering', () => {
    const c = loadConfig({});
    expect(c.WEBHOOK_RETRY_WINDOW_MS).toBe(24 * 3600 * 1000);
    expect(c.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    // Expected number of attempts in the window at the defaults: dozens, each at most an hour apart.
    let t = 0;
    let n = 0;
    while (t < c.WEBHOOK_RETRY_WINDOW_MS) t += Math.min(c.WEBHOOK_RETRY_MAX_MS, c.WEBHOOK_RETRY_BASE_MS * 2 ** n++) / 2;
    expect(n).toBeGreaterThan(40);
  });
});

describe('webhook configuration', () => {
  it('validates the allow-list and the SQS credentials', () => {
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128,10.0.0.1' })).not.toThrow();
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'localhost' })).toThrow(/WEBHOOK_ALLOW_PRIVATE_NETWORKS: must be comma-separated IP addresses or CIDR ranges/);
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: '10.0.0.0/33' })).toThrow(/WEBHOOK_ALLOW_PRIVATE_NETWORKS/);
    expect(() => loadConfig({ SQS_ACCESS_KEY_ID: 'key' })).toThrow(/SQS_ACCESS_KEY_ID and SQS_SECRET_ACCESS_KEY go together/);
    expect(() => loadConfig({ WEBHOOK_DISPATCHER: 'maybe' })).toThrow(/WEBHOOK_DISPATCHER/);
    expect(() => loadConfig({ SQS_ENDPOINT: 'not a url' })).toThrow(/SQS_ENDPOINT/);
  });

  it('reads the region of AWS queue URLs', () => {
    expect(queueRegion('https://sqs.eu-west-1.amazonaws.com/123456789012/q')).toBe('eu-west-1');
    expect(queueRegion('https://us-east-2.queue.amazonaws.com/123456789012/q')).toBe('us-east-2');
    expect(queueRegion('http://127.0.0.1:9324/000000000000/q')).toBeNull();
  });
});
