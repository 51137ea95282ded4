import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { DataSource } from 'typeorm';
import type { Config } from '../config';
import { OUTBOX_WRITTEN_TOPIC, outboxSignal } from './outbox-signal';
import type { AppPubSub } from '../messaging/pubsub';
import { DeliveryResults, DispatcherLog, DispatchStats } from './delivery-results';
import { DeliverySignal, DestinationLimiter } from './destination-limiter';
import { Claimed, claimDue, releaseClaimed } from './outbox-claim';
import { purgeOutbox } from './outbox-retention';
import { SLOW_DOWN_STATUSES } from './retry-timing';
import { ClaimedSender } from './claimed-sender';
import type { DeliveryOutcome } from './transports';

export type { DispatcherLog } from './delivery-results';
export { backoffMs } from './retry-timing';

/** How soon a message held back because its destination had no free slot is due again. */
const DESTINATION_FULL_RETRY_MS = 250;
/** After a failed claim (a busy or briefly unreachable database), the loop tries again this soon, or at its poll if sooner. */
const CLAIM_FAILED_RETRY_MS = 1_000;

const silent: DispatcherLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface DispatcherOptions {
  ds: DataSource;
  config: Config;
  tokenKey: string;
  log?: DispatcherLog;
  /** Names this dispatcher in claimed rows (host, pid and a random suffix by default). */
  workerId?: string;
  /** With Redis: woken by commits in other processes too (outbox-signal.ts), not only by polls. */
  pubsub?: AppPubSub;
}

/**
 * Delivers outbox messages: claims due ones (and ones whose claim lease ran out), sends each through
 * its subscription's transport and records the outcome. Several dispatchers can share one database:
 * on MySQL/MariaDB the claim is SELECT … FOR UPDATE SKIP LOCKED, and everywhere the claiming UPDATE
 * re-checks that the row is still due, so a row is only ever claimed by one of them at a time.
 *
 * At-least-once: a dispatcher that dies mid-delivery leaves its rows `delivering` until the lease
 * (WEBHOOK_LEASE_MS) runs out; another then sends them again, with the same message id.
 *
 * Failures are retried with full-jitter exponential backoff until `retry_until` (24 hours after the
 * event by default), then dead-lettered. A subscription is deactivated once it has failed
 * WEBHOOK_DEACTIVATE_FAILURES attempts in a row and its endpoint has been failing, with no success
 * in between, for WEBHOOK_DEACTIVATE_WINDOW_MS (24 hours), as Canvas deactivates endpoints that keep
 * failing; its pending messages are then dead-lettered.
 */
export class Dispatcher {
  readonly workerId: string;
  private readonly ds: DataSource;
  private readonly config: Config;
  private readonly log: DispatcherLog;
  private readonly sender: ClaimedSender;
  private readonly mysql: boolean;
  private running = false;
  /** Set when stopped as if the process died: outcomes of in-flight deliveries are not recorded. */
  private abandoned = false;
  private loopDone: Promise<void> | null = null;
  private readonly inFlight = new Map<number, { abort: AbortController; done: Promise<void> }>();
  /**
   * Deliveries still holding a slot (the rest of inFlight are successes being recorded). Slots are
   * counted by these: a success frees its slot when the receiver has answered, while its result waits
   * for the next batched write, so slow commits (MariaDB's log flush) no longer idle the connections;
   * a failure keeps its slot until recorded (claimed-sender.ts).
   */
  private sending = 0;
  /** Claimed messages waiting for a slot (the loop claims the next batch while these go out). */
  private ready: Claimed[] = [];
  /** Hand-backs of messages held for a full or paused destination, under way (the loop's end waits for them). */
  private readonly releasing = new Set<Promise<void>>();
  private wakeUp: (() => void) | null = null;
  private woken = false;
  /** The last claim filled its batch: more is probably due, so freed slots wake the loop. */
  private backlog = false;
  private lastPurge = Date.now();
  /** New messages committed: claim now, or as soon as slots free up. */
  private readonly onWritten = () => {
    this.backlog = true;
    this.wake();
  };
  /** Totals since start, for logs and benches. */
  readonly stats: DispatchStats = { delivered: 0, failed: 0, dead: 0, claims: 0, emptyClaims: 0, lostRows: 0 };
  private readonly results: DeliveryResults;
  /** Per-destination concurrency (AIMD on 429/503) and Retry-After pauses (destination-limiter.ts). */
  private readonly limiter: DestinationLimiter;
  private readonly pubsub?: AppPubSub;
  private wakeups: AsyncIterator<unknown> | null = null;

  constructor(opts: DispatcherOptions) {
    this.ds = opts.ds;
    this.config = opts.config;
    this.log = opts.log ?? silent;
    this.workerId = opts.workerId ?? `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.mysql = opts.ds.options.type === 'mysql' || opts.ds.options.type === 'mariadb';
    const c = opts.config;
    this.results = new DeliveryResults(opts.ds, c, this.log, this.stats, (at) => this.claimAt(at.getTime()));
    this.sender = new ClaimedSender(opts.ds, c, opts.tokenKey, this.results, () => this.abandoned);
    this.pubsub = opts.pubsub;
    // A Retry-After pauses a destination for at most a retry window: no message waits longer than that anyway.
    this.limiter = new DestinationLimiter(c.WEBHOOK_DESTINATION_CONCURRENCY ?? c.WEBHOOK_CONCURRENCY, c.WEBHOOK_RETRY_WINDOW_MS);
  }

  /** A claim outlives the longest possible attempt, so a live dispatcher never loses its rows. */
  private get leaseMs(): number {
    return Math.max(this.config.WEBHOOK_LEASE_MS, this.config.WEBHOOK_TIMEOUT_MS + 1_000);
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Starts the delivery loop (in the background). */
  start(): this {
    if (this.running) return this;
    this.running = true;
    this.abandoned = false;
    outboxSignal.on('written', this.onWritten);
    // The first claim waits for Redis to confirm the subscription: a commit announced before that
    // wakes nobody, and must be one the first claim finds.
    const listening = this.pubsub?.kind === 'redis' ? this.listenForCommits(this.pubsub) : Promise.resolve();
    this.loopDone = listening.then(() => this.loop()).catch((e) => this.log.error({ err: { message: (e as Error).message } }, 'webhook dispatcher stopped on an error'));
    this.log.info({ worker: this.workerId }, 'webhook dispatcher started');
    return this;
  }

  /**
   * Stops claiming. By default waits for in-flight deliveries (bounded by the timeout) and records
   * them; `abandon` aborts them unrecorded, as if the process had died (their leases then expire).
   */
  async stop(opts: { abandon?: boolean } = {}): Promise<void> {
    if (!this.running && !this.loopDone) return;
    this.running = false;
    outboxSignal.off('written', this.onWritten);
    void this.wakeups?.return?.();
    this.wakeups = null;
    if (opts.abandon) {
      this.abandoned = true;
      for (const f of this.inFlight.values()) f.abort.abort();
    }
    this.wake();
    await this.loopDone;
    this.loopDone = null;
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
    this.sender.close();
    this.log.info({ worker: this.workerId, ...this.stats }, 'webhook dispatcher stopped');
  }

  /**
   * Commits announced by other processes wake the loop like local ones. Resolves once Redis has
   * answered the SUBSCRIBE (or gave up waiting: the poll still covers what a lost wake-up misses).
   */
  private listenForCommits(pubsub: AppPubSub): Promise<void> {
    const it = pubsub.subscribe(OUTBOX_WRITTEN_TOPIC)[Symbol.asyncIterator]();
    this.wakeups = it;
    const next = (): void => {
      it.next().then(
        (r) => {
          if (r.done || this.wakeups !== it) return;
          this.onWritten();
          next();
        },
        () => undefined,
      );
    };
    next();
    // next() asked for the first message, which sends the SUBSCRIBE: wait for Redis's answer.
    return pubsub.subscribed();
  }

  /** Claim now rather than at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private idle(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        this.woken = false;
        done();
      };
    });
  }

  /** Claim when fewer than this many claimed messages wait for a slot: half a batch (or of the slots). */
  private get lowWater(): number {
    return Math.max(1, Math.floor(Math.min(this.config.WEBHOOK_BATCH_SIZE, this.config.WEBHOOK_CONCURRENCY) / 2));
  }

  /** Results waiting to be recorded are bounded too: past this many, claims wait for the writes. */
  private get recordingLimit(): number {
    return 4 * this.config.WEBHOOK_CONCURRENCY;
  }

  /** Whether to claim more: the claimed messages waiting for a slot run low (and the results have room). */
  private hungry(): boolean {
    return this.ready.length < this.lowWater && this.inFlight.size + this.ready.length < this.recordingLimit;
  }

  /**
   * Claims a batch at a time, ahead of need: the next claim is made while the messages already claimed
   * go out, so its round trips (several, each slow when the database is busy) overlap deliveries
   * instead of leaving slots empty. Claiming the one slot each finished delivery frees would cost a
   * claim's statements per message, so it waits until fewer than half a batch are left to send.
   */
  private async loop(): Promise<void> {
    const c = this.config;
    while (this.running) {
      let claimed = 0;
      if (this.hungry()) {
        try {
          const limit = Math.min(c.WEBHOOK_BATCH_SIZE, this.recordingLimit - this.inFlight.size - this.ready.length);
          const batch = await this.claim(limit);
          claimed = batch.length;
          this.backlog = claimed === limit;
          if (this.running) {
            this.ready.push(...batch);
            this.launchReady();
          } else await this.release(batch);
        } catch (e) {
          this.log.error({ err: { message: (e as Error).message } }, 'webhook claim failed');
          // What was due is still due: try again soon rather than at a poll that may be long.
          this.claimAt(Date.now() + CLAIM_FAILED_RETRY_MS);
        }
      }
      if (!this.running) break;
      if (Date.now() - this.lastPurge > 10 * 60_000) await this.purge();
      // Enough claimed: wait for slots. Nothing more due: wait for a poll, a commit that wrote messages, or a slot.
      if (claimed === 0 || !this.backlog || !this.hungry()) await this.idle(c.WEBHOOK_POLL_MS);
    }
    // Claimed but never sent: back to the outbox now (abandoned, they wait for their lease, as after a crash).
    const unsent = this.ready.splice(0);
    if (!this.abandoned) await this.release(unsent).catch((e) => this.log.error({ err: { message: (e as Error).message } }, 'webhook release failed'));
    await Promise.allSettled(this.releasing);
  }

  /**
   * Launches waiting messages into free slots, each only when its destination has room; hands the
   * others back to the outbox, due when their destination's pause ends (or shortly, when it is only
   * full), so they hold no delivery slot and messages to other destinations go ahead of them.
   */
  private launchReady(): void {
    if (!this.running) return;
    const now = Date.now();
    const later = new Map<number, Claimed[]>();
    while (this.ready.length && this.sending < this.config.WEBHOOK_CONCURRENCY) {
      const b = this.ready.shift()!;
      const key = b.subscription?.transportType === 'https' ? DestinationLimiter.keyOf(b.subscription.transportUrl) : null;
      const slot = this.limiter.tryAcquire(key, now);
      if (slot.ok) {
        this.launch(b, key);
        continue;
      }
      const due = slot.pausedUntil ?? now + DESTINATION_FULL_RETRY_MS;
      later.set(due, [...(later.get(due) ?? []), b]);
    }
    for (const [due, held] of later) {
      const released: Promise<void> = this.release(held, new Date(due))
        .catch((e) => this.log.error({ err: { message: (e as Error).message } }, 'webhook release failed'))
        .finally(() => this.releasing.delete(released));
      this.releasing.add(released);
      this.claimAt(due);
    }
  }

  /**
   * Claims at `due` (ms), when that comes before the next poll: a retry's backoff, a held message's
   * turn or a failed claim's pause is kept to, whatever WEBHOOK_POLL_MS says.
   */
  private claimAt(due: number): void {
    const wait = Math.max(0, due - Date.now());
    if (!this.running || wait >= this.config.WEBHOOK_POLL_MS) return;
    // A timer may fire a millisecond before the wall clock reaches `due` (the claim compares the row's
    // due time with Date.now()): then it waits again, or the claim would find nothing and the loop idle
    // until its next poll.
    const fire = () => {
      if (!this.running) return;
      const left = due - Date.now();
      if (left >= 0) setTimeout(fire, left + 1).unref();
      else this.onWritten();
    };
    setTimeout(fire, wait + 1).unref();
  }

  private launch(b: Claimed, destination: string | null = null): void {
    const abort = new AbortController();
    this.sending++;
    const sent = () => {
      this.sending--;
      this.launchReady();
      // Claiming ahead is worth it only when the last claim found more than it could take.
      if (this.backlog && this.hungry()) this.wake();
    };
    const done = this.deliver(b, abort.signal, destination, sent)
      .catch((e) => this.log.error({ err: { message: (e as Error).message }, messageId: b.message.messageId }, 'webhook delivery failed unexpectedly'))
      .finally(() => {
        this.inFlight.delete(b.message.id);
        if (this.backlog && this.hungry()) this.wake();
      });
    this.inFlight.set(b.message.id, { abort, done });
  }

  /**
   * One pass: delivers what is due now (not the retries it schedules) and returns how many attempts
   * were made (CLI `dispatch --once`, tests).
   */
  async drain(): Promise<number> {
    const dueBy = new Date();
    let total = 0;
    for (;;) {
      const batch = await this.claim(this.config.WEBHOOK_BATCH_SIZE, dueBy);
      if (!batch.length) return total;
      total += batch.length;
      const pool = [...batch];
      const workers = Array.from({ length: Math.min(this.config.WEBHOOK_CONCURRENCY, pool.length) }, async () => {
        for (let b = pool.shift(); b; b = pool.shift()) await this.deliver(b, new AbortController().signal);
      });
      await Promise.all(workers);
    }
  }

  // ---- claiming (outbox-claim.ts) ---------------------------------------------------------------

  private async claim(limit: number, dueBy?: Date): Promise<Claimed[]> {
    const claimed = await claimDue(this.ds, {
      mysql: this.mysql,
      workerId: this.workerId,
      leaseMs: this.leaseMs,
      limit,
      dueBy,
      onClaim: (selected, got) => (this.stats.lostRows += selected - got),
    });
    this.stats.claims++;
    if (!claimed.length) this.stats.emptyClaims++;
    return claimed;
  }

  /** Gives claimed rows back (claimed while stopping, or held back for their destination), per claim. */
  private async release(batch: Claimed[], dueAt?: Date): Promise<void> {
    const byClaim = new Map<string, Claimed[]>();
    for (const b of batch) byClaim.set(b.token, [...(byClaim.get(b.token) ?? []), b]);
    for (const claim of byClaim.values()) await releaseClaimed(this.ds, claim, dueAt);
  }

  // ---- delivering ------------------------------------------------------------------------------

  /**
   * `destination`: the limiter slot this delivery holds, given back with the receiver's answer when
   * the sender says the slot is free (a success: at once; a failure: once recorded); `sent` then too.
   */
  private async deliver(claimed: Claimed, signal: AbortSignal, destination: string | null = null, sent: () => void = () => undefined): Promise<void> {
    let released = false;
    const answered = (outcome?: DeliveryOutcome): void => {
      if (released) return;
      released = true;
      let answer: DeliverySignal = 'other';
      let retryAfterMs: number | null = null;
      if (outcome?.ok) answer = 'ok';
      else if (outcome?.statusCode != null && SLOW_DOWN_STATUSES.has(outcome.statusCode)) {
        answer = 'slow-down';
        retryAfterMs = outcome.retryAfterMs ?? null;
      }
      this.limiter.release(destination, answer, retryAfterMs);
      sent();
    };
    try {
      await this.sender.attempt(claimed, signal, answered);
    } finally {
      answered();
    }
  }

  /** Purges delivered and cancelled messages past retention with their attempts (the loop runs it every 10 minutes). */
  async purge(): Promise<void> {
    this.lastPurge = Date.now();
    await purgeOutbox(this.ds, this.config.WEBHOOK_RETENTION_DAYS, this.log);
  }
}
