import type { ExecutionResult, GraphQLError } from 'graphql';
import type { WebSocket } from 'ws';
import { formatResultErrors } from './format-error';

/** Sockets handed their copy of one event before the loop yields (a 10,000-socket group must not hold it). */
const SLICE = 500;

/** How a group charges delivered events: false when the bucket is full (the subscription ends with `refused()`). */
export interface GroupCharges {
  charge(bucket: string, units?: number): boolean;
  refused(): GraphQLError;
}

/**
 * One subscription source shared by every identical subscription of one viewer, so one event costs one execution whatever the number of sockets: the same
 * document, operation, variables, token and origin (groupKey in ws.ts), so the same result for each.
 * An event is executed once, serialised once, and the same bytes are written to every socket that
 * holds the subscription, straight to the socket (graphql-ws only sees the subscription start and
 * end): no per-socket execution, payload copy or promise chain, and no per-socket pubsub listener,
 * so neither a fan-out nor a mass close costs more than one write per socket.
 */
export class SubscriptionGroup {
  private readonly members = new Set<Member>();
  private ended = false;
  private pumping = false;

  constructor(
    private readonly source: AsyncIterator<ExecutionResult>,
    private readonly charges: GroupCharges | null,
    /** Called once the group takes no more members (the registry forgets it). */
    private readonly onEnd: () => void,
  ) {}

  get open(): boolean {
    return !this.ended;
  }

  /** A subscription (`id` on `socket`) joining the group: the iterator graphql-ws holds until it ends. */
  join(socket: WebSocket, id: string, bucket: string | undefined): AsyncGenerator<ExecutionResult> {
    const m = new Member(this, socket, id, bucket);
    this.members.add(m);
    if (!this.pumping) {
      this.pumping = true;
      void this.pump();
    }
    return m;
  }

  leave(m: Member): void {
    this.members.delete(m);
    if (this.members.size || this.ended) return;
    this.finish();
    void this.source.return?.(undefined)?.catch(() => undefined);
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        const r = await this.source.next();
        if (r.done) break;
        await this.deliver(r.value);
      }
      this.finish();
      for (const m of [...this.members]) m.end();
    } catch (e) {
      this.finish();
      for (const m of [...this.members]) m.fail(e);
    }
  }

  /** One event to every member: the payload serialised once, one frame per distinct subscription id. */
  private async deliver(result: ExecutionResult): Promise<void> {
    const payload = JSON.stringify(formatResultErrors(result as { errors?: readonly GraphQLError[] }));
    const frames = new Map<string, Buffer>();
    const frame = (id: string) => {
      let f = frames.get(id);
      if (!f) frames.set(id, (f = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":${payload}}`)));
      return f;
    };
    const members = [...this.members];
    const charged = this.charges ? this.chargeAll(members) : null;
    for (let i = 0; i < members.length; i++) {
      if (i && i % SLICE === 0) await new Promise<void>((r) => setImmediate(r));
      const m = members[i];
      if (m.done) continue;
      if (charged && m.bucket && !charged.get(m.bucket)) {
        m.fail(this.charges!.refused());
        continue;
      }
      // A socket closing (revoked, or gone) sends nothing more: ws drops a send after close().
      if (m.socket.readyState === m.socket.OPEN) m.socket.send(frame(m.id), { binary: false });
    }
  }

  /** One charge per bucket for all of its members' copies; whether each bucket may still receive. */
  private chargeAll(members: Member[]): Map<string, boolean> {
    const counts = new Map<string, number>();
    for (const m of members) if (m.bucket) counts.set(m.bucket, (counts.get(m.bucket) ?? 0) + 1);
    const ok = new Map<string, boolean>();
    for (const [bucket, n] of counts) ok.set(bucket, this.charges!.charge(bucket, n));
    return ok;
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
  }
}

/**
 * One subscription's handle on a group: an async iterator that yields nothing (events go straight to
 * the socket) and settles when the subscription ends, so graphql-ws sends `complete` or `error` then.
 */
class Member implements AsyncGenerator<ExecutionResult> {
  done = false;
  private waiting: { resolve(r: IteratorResult<ExecutionResult>): void; reject(e: unknown): void } | null = null;
  private error: { e: unknown } | null = null;

  constructor(
    private readonly group: SubscriptionGroup,
    readonly socket: WebSocket,
    readonly id: string,
    readonly bucket: string | undefined,
  ) {}

  end(): void {
    this.close();
  }

  fail(e: unknown): void {
    if (this.done) return;
    const w = this.waiting;
    if (w) {
      this.waiting = null;
      this.close();
      w.reject(e);
    } else {
      this.error = { e };
      this.close();
    }
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    if (this.error) {
      const { e } = this.error;
      this.error = null;
      return Promise.reject(e);
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  async return(): Promise<IteratorResult<ExecutionResult>> {
    this.close();
    return { value: undefined, done: true };
  }

  async throw(e: unknown): Promise<IteratorResult<ExecutionResult>> {
    this.close();
    throw e;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.close();
  }

  /** Ends the subscription: a pending next() answers done, and the group hears it left. */
  private close(): void {
    if (this.done) return;
    this.done = true;
    const w = this.waiting;
    this.waiting = null;
    w?.resolve({ value: undefined, done: true });
    this.group.leave(this);
  }
}
