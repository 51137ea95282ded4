/**
 * The load generator of `npm run bench:ws` (ws-fanout.ts), in its own process: opens graphql-ws
 * sockets (raw `ws`, graphql-transport-ws protocol, no client library, so the generator stays light),
 * subscribes each to plannerChanged, and reports when each socket receives its next event or closes.
 * Times are epoch milliseconds with sub-millisecond precision (performance.timeOrigin + now), the
 * same clock the parent stamps its write with.
 *
 * Messages (each answered with { id, ok, ... }): open { url, token, count, query }, events { n } (waits
 * until every socket has received n events; answers their arrival times), closes (waits until every
 * socket has closed; answers close times and codes), close.
 */
import WebSocket from 'ws';

interface Msg {
  id: number;
  type: 'open' | 'events' | 'closes' | 'close';
  url?: string;
  token?: string;
  count?: number;
  query?: string;
  n?: number;
}

interface Sock {
  ws: WebSocket;
  /** Arrival time of each event. */
  events: number[];
  closedAt?: number;
  code?: number;
}

const now = () => performance.timeOrigin + performance.now();
const sockets: Sock[] = [];
/** Sockets still awaited by the current wait, each re-checked only when something happens to it. */
const waiters = new Set<(s: Sock) => void>();
const poke = (s: Sock) => waiters.forEach((w) => w(s));

/**
 * Resolves once every socket satisfies `done`. Each event re-checks only its own socket: checking all
 * 10,000 on each of 10,000 arrivals made the generator, not the server, set the measured p99.
 */
function untilEach(done: (s: Sock) => boolean): Promise<void> {
  const pending = new Set(sockets.filter((s) => !done(s)));
  if (!pending.size) return Promise.resolve();
  return new Promise((resolve) => {
    const w = (s: Sock) => {
      if (!pending.has(s) || !done(s)) return;
      pending.delete(s);
      if (pending.size) return;
      waiters.delete(w);
      resolve();
    };
    waiters.add(w);
  });
}

function openOne(url: string, token: string, query: string): Promise<Sock> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'graphql-transport-ws');
    const s: Sock = { ws, events: [] };
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } })));
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as { type: string };
      if (m.type === 'connection_ack') {
        ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
        resolve(s);
      } else if (m.type === 'next') {
        s.events.push(now());
        poke(s);
      } else if (m.type === 'ping') ws.send(JSON.stringify({ type: 'pong' }));
    });
    ws.on('close', (code) => {
      s.closedAt = now();
      s.code = code;
      poke(s);
      reject(new Error(`closed ${code} before ack`));
    });
    ws.on('error', reject);
  });
}

async function handle(msg: Msg): Promise<object> {
  switch (msg.type) {
    case 'open': {
      // A few hundred handshakes at a time: the server (and this generator) share two cores.
      for (let i = 0; i < msg.count!; i += 200) {
        const batch = Math.min(200, msg.count! - i);
        sockets.push(...(await Promise.all(Array.from({ length: batch }, () => openOne(msg.url!, msg.token!, msg.query!)))));
      }
      return { opened: sockets.length };
    }
    case 'events':
      await untilEach((s) => s.events.length >= msg.n! || s.closedAt !== undefined);
      return { at: sockets.map((s) => s.events[msg.n! - 1] ?? null) };
    case 'closes':
      await untilEach((s) => s.closedAt !== undefined);
      return { at: sockets.map((s) => s.closedAt!), codes: [...new Set(sockets.map((s) => s.code))] };
    case 'close':
      for (const s of sockets) s.ws.terminate();
      setImmediate(() => process.exit(0));
      return {};
  }
}

process.on('message', (msg: Msg) => {
  handle(msg).then(
    (r) => process.send!({ id: msg.id, ok: true, ...r }),
    (e: Error) => process.send!({ id: msg.id, ok: false, error: e.message }),
  );
});
process.on('disconnect', () => process.exit(0));
