import type { Runtime } from '../request/runtime';
import { reauthenticateMany } from './authenticate';
import type { SocketAuth } from './socket-auth';
import { tokenFlushOf, type FlushKey } from './token-flush';

/** One open graphql-ws socket, as the registry sees it. */
export interface LiveSocket {
  auth: SocketAuth;
  /** Closes the socket with 4403: its credentials no longer hold. */
  revoke(): void;
}

/** Tokens re-read in one statement (an IN list this long is fine on SQLite and MySQL). */
const BATCH = 500;
/** setTimeout's ceiling; a later expiry is left to the periodic re-verify. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The open graphql-ws sockets of this instance by token, so revocation reaches them without a read per
 * event (a read per delivered event would cost more than the event): a revoke, regenerate or user
 * deletion through the service is announced by token-flush.ts on every instance, and the sockets of the
 * named token or user are re-read then (one statement for all sockets of a token) and closed with 4403
 * if it no longer holds. A timer at the token's expiry closes them when it passes, and every
 * GRAPHQL_WS_REVERIFY_MS all tokens are re-read in batches: the backstop for edits no flush announces
 * (raw SQL by an operator).
 */
export class LiveSockets {
  private readonly byToken = new Map<number, Set<LiveSocket>>();
  private readonly tools = new Set<LiveSocket>();
  /** The token id each socket is filed under (its auth forgets the token once revoked). */
  private readonly filedUnder = new WeakMap<LiveSocket, number>();
  private readonly expiries = new Map<number, NodeJS.Timeout>();
  /** Tokens to re-read (null: every one), and whether a pass is running (passes run one at a time). */
  private dirty: Set<number> | null = new Set();
  private passing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly unlisten: () => void;

  constructor(
    private readonly app: Runtime,
    reverifyMs: number,
  ) {
    this.unlisten = tokenFlushOf(app).on((keys) => this.flushed(keys));
    this.timer = setInterval(() => this.reverifyAll(), reverifyMs);
    this.timer.unref();
  }

  /** Sockets open with this token (or, for a tool, with this tool's JWTs). */
  count(socket: LiveSocket): number {
    const id = socket.auth.token?.id;
    if (id != null) return this.byToken.get(id)?.size ?? 0;
    const tool = socket.auth.tool?.id;
    return [...this.tools].filter((s) => s.auth.tool?.id === tool).length;
  }

  add(socket: LiveSocket): void {
    const token = socket.auth.token;
    if (!token) {
      if (socket.auth.isTool) this.tools.add(socket);
      return;
    }
    let set = this.byToken.get(token.id);
    if (!set) this.byToken.set(token.id, (set = new Set()));
    // Sockets of one token share one reading of it (as a re-read gives them): 10,000 sockets of a
    // token hold one copy of its row and its user's, not 10,000.
    const first = set.values().next().value as LiveSocket | undefined;
    if (first) socket.auth.share(first.auth);
    set.add(socket);
    this.filedUnder.set(socket, token.id);
    this.scheduleExpiry(token.id, token.expiresAt);
  }

  remove(socket: LiveSocket): void {
    this.tools.delete(socket);
    const id = this.filedUnder.get(socket);
    const set = id == null ? undefined : this.byToken.get(id);
    if (!set?.delete(socket)) return;
    if (set.size === 0) this.forget(id!);
  }

  close(): void {
    clearInterval(this.timer);
    this.unlisten();
    for (const t of this.expiries.values()) clearTimeout(t);
    this.expiries.clear();
  }

  /** Re-reads the named tokens (a user's: all of theirs that sockets hold). */
  private flushed(keys: FlushKey[]): void {
    if (keys.some((k) => 'all' in k)) return this.reverifyAll();
    const users = new Set(keys.flatMap((k) => ('user' in k ? [k.user] : [])));
    const ids = keys.flatMap((k) => ('token' in k ? [k.token] : []));
    if (users.size) {
      for (const [id, set] of this.byToken) {
        const first = set.values().next().value as LiveSocket | undefined;
        if (first?.auth.token && users.has(first.auth.token.userId)) ids.push(id);
      }
    }
    this.mark(ids.filter((id) => this.byToken.has(id)));
  }

  private reverifyAll(): void {
    this.dirty = null;
    this.run();
    for (const s of [...this.tools]) void s.auth.recheck().then((ok) => ok || this.revoke(s), () => undefined);
  }

  private mark(ids: number[]): void {
    if (!ids.length) return;
    for (const id of ids) this.dirty?.add(id);
    this.run();
  }

  /**
   * One pass at a time; marks made during a pass start another, so a re-read always follows the
   * latest announced write (a flush can arrive while the previous re-read is in flight).
   */
  private run(): void {
    if (this.passing) return;
    this.passing = (async () => {
      while (this.dirty === null || this.dirty.size) {
        const ids = this.dirty === null ? [...this.byToken.keys()] : [...this.dirty];
        this.dirty = new Set();
        for (let i = 0; i < ids.length; i += BATCH) await this.reread(ids.slice(i, i + BATCH)).catch(() => undefined);
      }
    })().finally(() => (this.passing = null));
  }

  /** Re-reads these tokens in one statement; every socket of a token that no longer holds is closed. */
  private async reread(ids: number[]): Promise<void> {
    // Each socket is judged against the keyed hash it connected with (a regenerated token does not match).
    const held = new Map<string, { id: number; cryptedToken: string; sockets: LiveSocket[] }>();
    for (const id of ids) {
      for (const s of this.byToken.get(id) ?? []) {
        const t = s.auth.token;
        if (!t) continue;
        const k = `${t.id}:${t.cryptedToken}`;
        const h = held.get(k) ?? held.set(k, { id: t.id, cryptedToken: t.cryptedToken, sockets: [] }).get(k)!;
        h.sockets.push(s);
      }
    }
    // Usually one hash per token: read each id once per distinct hash.
    const groups = [...held.values()];
    const seen = new Set<number>();
    const firsts = groups.filter((g) => !seen.has(g.id) && seen.add(g.id));
    const rest = groups.filter((g) => !firsts.includes(g));
    for (const part of [firsts, rest]) {
      if (!part.length) continue;
      const results = await reauthenticateMany(this.app.ds, part);
      for (const g of part) {
        const result = results.get(g.id) ?? { kind: 'invalid' as const };
        for (const s of g.sockets) if (!s.auth.apply(result)) this.revoke(s);
        if (result.kind === 'ok') this.scheduleExpiry(g.id, result.token.expiresAt);
      }
    }
  }

  private revoke(socket: LiveSocket): void {
    this.remove(socket);
    socket.revoke();
  }

  /** A re-read of the token just after it expires (the read closes its sockets, or finds a new expiry). */
  private scheduleExpiry(id: number, expiresAt: Date | null | undefined): void {
    clearTimeout(this.expiries.get(id));
    this.expiries.delete(id);
    if (!expiresAt) return;
    const wait = expiresAt.getTime() - Date.now() + 1;
    if (wait > MAX_TIMER_MS) return;
    const t = setTimeout(() => this.mark([id]), Math.max(wait, 0));
    t.unref();
    this.expiries.set(id, t);
  }

  private forget(id: number): void {
    this.byToken.delete(id);
    clearTimeout(this.expiries.get(id));
    this.expiries.delete(id);
  }
}
