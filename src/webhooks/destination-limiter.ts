/**
 * How many deliveries one dispatcher has in flight to each destination (an HTTPS origin), with an
 * AIMD limit: it starts at the ceiling (WEBHOOK_DESTINATION_CONCURRENCY), halves each time the
 * destination answers 429 or 503 (down to 1), and grows back by 1/limit per success (about one more
 * per round of deliveries), as TCP congestion control does. A Retry-After also pauses the destination
 * until then. A message for a destination at its limit or paused is not sent now: the dispatcher
 * hands it back to the outbox for later (see Dispatcher), so it takes no delivery slot and other
 * destinations are not held up behind it.
 *
 * The state is per dispatcher process and kept in memory: a restart starts every destination afresh,
 * and several dispatchers each apply their own limit.
 */
interface DestinationState {
  limit: number;
  inFlight: number;
  pausedUntil: number;
}

export type DeliverySignal = 'ok' | 'slow-down' | 'other';

export class DestinationLimiter {
  private readonly destinations = new Map<string, DestinationState>();

  constructor(
    private readonly ceiling: number,
    /** Longest pause a Retry-After can impose on a destination. */
    private readonly maxPauseMs: number,
  ) {}

  /** The origin a URL is limited by, or null for destinations that are not limited (unparsable). */
  static keyOf(url: string): string | null {
    try {
      return new URL(url).origin;
    } catch {
      return null;
    }
  }

  private state(key: string): DestinationState {
    let s = this.destinations.get(key);
    if (!s) this.destinations.set(key, (s = { limit: this.ceiling, inFlight: 0, pausedUntil: 0 }));
    return s;
  }

  /**
   * Takes a slot for one delivery to `key` when the destination has room and is not paused; otherwise
   * returns the time worth trying again at (the end of its pause, or null when it is only full).
   */
  tryAcquire(key: string | null, now = Date.now()): { ok: true } | { ok: false; pausedUntil: number | null } {
    if (key == null) return { ok: true };
    const s = this.state(key);
    if (s.pausedUntil > now) return { ok: false, pausedUntil: s.pausedUntil };
    if (s.inFlight >= Math.floor(s.limit)) return { ok: false, pausedUntil: null };
    s.inFlight++;
    return { ok: true };
  }

  /** Gives the slot back with what the destination answered. */
  release(key: string | null, signal: DeliverySignal, retryAfterMs: number | null = null, now = Date.now()): void {
    if (key == null) return;
    const s = this.state(key);
    s.inFlight = Math.max(0, s.inFlight - 1);
    if (signal === 'slow-down') {
      s.limit = Math.max(1, s.limit / 2);
      if (retryAfterMs != null && retryAfterMs > 0) s.pausedUntil = Math.max(s.pausedUntil, now + Math.min(retryAfterMs, this.maxPauseMs));
    } else if (signal === 'ok') {
      s.limit = Math.min(this.ceiling, s.limit + 1 / s.limit);
    }
    // Forget destinations back at rest, so the map holds only those being slowed down or in use.
    if (s.inFlight === 0 && s.limit >= this.ceiling && s.pausedUntil <= now) this.destinations.delete(key);
  }

  /** The current limit of a destination (for logs). */
  limitOf(key: string): number {
    return Math.floor(this.destinations.get(key)?.limit ?? this.ceiling);
  }
}
