/** Full-jitter exponential backoff: uniformly random in [0, min(max, base · 2^(attempt−1))]. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40));
  return Math.floor(random() * ceiling);
}
