import { ConfigError, loadConfig } from '../../src/config';
import { DestinationLimiter } from '../../src/webhooks/destination-limiter';
import { nextAttemptAt, parseRetryAfter } from '../../src/webhooks/retry-timing';

describe('Retry-After', () => {
  const now = Date.parse('2025-01-06T12:00:00Z');

  it('reads delay-seconds and HTTP dates (IMF-fixdate, RFC 850, asctime)', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Mon, 06 Jan 2025 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Monday, 06-Jan-25 12:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Mon Jan  6 12:00:10 2025', now)).toBe(10_000);
    // A date in the past means now.
    expect(parseRetryAfter('Mon, 06 Jan 2025 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores what is not one of those', () => {
    for (const v of [undefined, '', '-5', '1.5', 'soon', '2025-01-06', '12345678901', 'Mon, 99 Foo 2025 12:00:00 GMT']) expect(parseRetryAfter(v, now)).toBeNull();
  });

  it('is honoured within the retry window: never sooner than asked, never after the window ends', () => {
    const t = new Date(now);
    const until = new Date(now + 3_600_000);
    expect(nextAttemptAt(t, 500, null, until).getTime()).toBe(now + 500);
    expect(nextAttemptAt(t, 500, 60_000, until).getTime()).toBe(now + 60_000);
    expect(nextAttemptAt(t, 90_000, 60_000, until).getTime()).toBe(now + 90_000);
    // Asked past the window: one last attempt as the window ends.
    expect(nextAttemptAt(t, 500, 7_200_000, until).getTime()).toBe(until.getTime());
  });
});

describe('per-destination limit (AIMD)', () => {
  const take = (l: DestinationLimiter, key: string, now = 0) => l.tryAcquire(key, now).ok;

  it('starts at the ceiling, halves on each slow-down down to 1, and grows back by 1/limit per success', () => {
    const l = new DestinationLimiter(8, 60_000);
    const k = 'https://a.example';
    for (let i = 0; i < 8; i++) expect(take(l, k)).toBe(true);
    expect(take(l, k)).toBe(false);
    l.release(k, 'slow-down');
    expect(l.limitOf(k)).toBe(4);
    for (let i = 0; i < 7; i++) l.release(k, 'slow-down');
    expect(l.limitOf(k)).toBe(1);
    expect(take(l, k)).toBe(true);
    expect(take(l, k)).toBe(false);
    l.release(k, 'ok');
    expect(l.limitOf(k)).toBe(2);
    take(l, k);
    l.release(k, 'ok'); // 2.5
    take(l, k);
    l.release(k, 'ok'); // 2.9
    expect(l.limitOf(k)).toBe(2);
    take(l, k);
    l.release(k, 'ok');
    expect(l.limitOf(k)).toBe(3);
    // Other answers (a 500, a timeout) neither slow it down nor speed it up.
    take(l, k);
    l.release(k, 'other');
    expect(l.limitOf(k)).toBe(3);
  });

  it('pauses a destination for its Retry-After (at most the cap), and only that one', () => {
    const l = new DestinationLimiter(4, 10_000);
    take(l, 'https://a.example', 0);
    l.release('https://a.example', 'slow-down', 5_000, 0);
    expect(l.tryAcquire('https://a.example', 4_999)).toEqual({ ok: false, pausedUntil: 5_000 });
    expect(take(l, 'https://b.example', 1)).toBe(true);
    expect(take(l, 'https://a.example', 5_000)).toBe(true);
    l.release('https://a.example', 'slow-down', 3_600_000, 6_000);
    expect(l.tryAcquire('https://a.example', 6_001)).toEqual({ ok: false, pausedUntil: 16_000 });
    // Destinations without a key (SQS) are not limited.
    for (let i = 0; i < 10; i++) expect(l.tryAcquire(null).ok).toBe(true);
  });

  it('keys destinations by origin', () => {
    expect(DestinationLimiter.keyOf('https://Hooks.Example:443/a?b')).toBe('https://hooks.example');
    expect(DestinationLimiter.keyOf('https://hooks.example:8443/x')).toBe('https://hooks.example:8443');
    expect(DestinationLimiter.keyOf('not a url')).toBeNull();
  });
});

describe('webhook configuration', () => {
  it('keeps delivered messages 30 days by default and allows a retry window of up to 72 hours', () => {
    const c = loadConfig({});
    expect(c.WEBHOOK_RETENTION_DAYS).toBe(30);
    expect(c.WEBHOOK_RETRY_WINDOW_MS).toBe(86_400_000);
    expect(c.WEBHOOK_SECRET_GRACE_MS).toBe(86_400_000);
    expect(loadConfig({ WEBHOOK_RETRY_WINDOW_MS: '259200000' }).WEBHOOK_RETRY_WINDOW_MS).toBe(259_200_000);
    expect(() => loadConfig({ WEBHOOK_RETRY_WINDOW_MS: '259200001' })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_RETRY_WINDOW_MS: '259200001' })).toThrow(/WEBHOOK_RETRY_WINDOW_MS/);
    expect(() => loadConfig({ WEBHOOK_DESTINATION_CONCURRENCY: '0' })).toThrow(/WEBHOOK_DESTINATION_CONCURRENCY/);
  });
});
