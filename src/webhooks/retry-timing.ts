/** Full-jitter exponential backoff: uniformly random in [0, min(max, base · 2^(attempt−1))]. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40));
  return Math.floor(random() * ceiling);
}

/** Answers by which a receiver asks to be sent less (RFC 9110 §15.5.30, §15.6.4; RFC 6585 §4). */
export const SLOW_DOWN_STATUSES = new Set([429, 503]);

/**
 * A Retry-After header as a delay in milliseconds: delay-seconds (a non-negative integer) or an
 * HTTP-date (a past date means now). Null when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return null;
  if (/^\d{1,10}$/.test(v)) return Number(v) * 1000;
  // Only an IMF-fixdate / RFC 850 / asctime date, not any text Date.parse happens to accept.
  if (!/^[A-Za-z]{3,9},? .*\d{2}:\d{2}:\d{2}/.test(v)) return null;
  // HTTP dates are GMT; asctime's form says so nowhere, and Date.parse would read it as local time.
  const at = Date.parse(/\b(GMT|UTC)$/.test(v) ? v : `${v} GMT`);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * When a failed message is tried next: after its full-jitter backoff and no sooner than the receiver
 * asked (Retry-After), but never later than its retry window's end (one last attempt is made there;
 * if that fails too, the message is dead-lettered).
 */
export function nextAttemptAt(now: Date, backoff: number, retryAfterMs: number | null, retryUntil: Date): Date {
  const wait = Math.max(backoff, retryAfterMs ?? 0);
  return new Date(Math.min(now.getTime() + wait, Math.max(retryUntil.getTime(), now.getTime())));
}
