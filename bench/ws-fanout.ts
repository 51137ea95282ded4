/**
 * `npm run bench:ws`: graphql-ws fan-out (issue 19). The server runs alone in its own process
 * (server-process.ts) and the sockets live in another (ws-fanout-client.ts). BENCH_WS_SOCKETS
 * (default 10,000) graphql-ws sockets of one user, all with one token, subscribe to plannerChanged;
 * then one planner note write, and the bench prints the delivery latency to every socket (from
 * just before the write is sent: p50, p99, max), the server's RSS per socket (after a collection,
 * against the same server before any socket opened), and the time for a revoke of that token to
 * close every socket (from just before the DELETE is sent to the last close).
 *
 * Targets on a 2-core machine: p99 < 250 ms, < 15 KB RSS per socket, every socket closed within 1 s.
 * BENCH_COMPARE=<another build's dist/> runs that build's server instead (e.g. the commit before), for
 * before/after rows. DATABASE_URL=mysql://… runs on MariaDB/MySQL (a database made for the run).
 *
 * The socket and subscription caps are raised for the run (one token holds every socket), and the
 * throttle is on with a high-water mark no run reaches, so its per-operation and per-event costs are
 * paid but nothing is refused.
 */
import { randomBytes } from 'node:crypto';
import { fork } from 'node:child_process';
import path from 'node:path';
import { Child, forkServer } from './children';
import { benchDatabase, envInt } from './support';

const SOCKETS = envInt('BENCH_WS_SOCKETS', 10_000);
const COMPARE = process.env.BENCH_COMPARE ?? '';
/** BENCH_PROFILE=<prefix>: server CPU profiles of the measured write (<prefix>-write.cpuprofile) and the revoke (-revoke). */
const PROFILE = process.env.BENCH_PROFILE ?? '';
/** BENCH_HEAP=<prefix>: heap snapshots of the server before any socket (<prefix>-empty.heapsnapshot) and with every socket open (-full). */
const HEAP = process.env.BENCH_HEAP ?? '';
const QUERY = 'subscription { plannerChanged { change plannableType plannableId } }';
const now = () => performance.timeOrigin + performance.now();

async function api(url: string, token: string, method: string, p: string, body?: object): Promise<any> {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : null;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

async function main(): Promise<void> {
  const db = benchDatabase();
  const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
  const env = {
    DATABASE_URL: db.url,
    LMS_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'silent',
    PORT: '0',
    RATE_LIMIT: 'on',
    RATE_LIMIT_HWM: '1000000000',
    RATE_LIMIT_MAX: '1000000000',
    GRAPHQL_WS_MAX_SOCKETS_PER_TOKEN: String(SOCKETS),
    WEBHOOK_DISPATCHER: 'off',
  };
  const server = forkServer(COMPARE ? 'server (compare build)' : 'server', COMPARE || undefined);
  const client = new Child('sockets', fork(path.join(__dirname, 'ws-fanout-client.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  try {
    const { port } = await server.request<{ port: number }>('start', { env });
    const url = `http://127.0.0.1:${port}`;
    const user = await api(url, adminToken, 'POST', '/api/v1/accounts/self/users', { user: { name: 'Fan Out' }, pseudonym: { unique_id: `fanout.${randomBytes(3).toString('hex')}@example.com` } });
    const issued = await api(url, adminToken, 'POST', `/api/v1/users/${user.id}/tokens`, { token: { purpose: 'sockets' } });
    const token = issued.visible_token as string;
    const writer = (await api(url, adminToken, 'POST', `/api/v1/users/${user.id}/tokens`, { token: { purpose: 'writer' } })).visible_token as string;
    const note = (title: string) => api(url, writer, 'POST', '/api/v1/planner_notes', { title, todo_date: '2099-01-01T12:00:00Z' });
    await note('warm the server');
    const empty = await server.request<{ rss: number; heapUsed: number }>('memory');
    if (HEAP) await server.request('heapSnapshot', { file: `${HEAP}-empty.heapsnapshot` });

    console.log(`graphql-ws fan-out: ${SOCKETS} sockets of one user (one token) on plannerChanged; ${db.label}${COMPARE ? `; build ${COMPARE}` : ''}`);
    let t = now();
    await client.request('open', { url: `${url.replace('http', 'ws')}/graphql`, token, count: SOCKETS, query: QUERY });
    console.log(`  opened and subscribed in ${ms(now() - t)}`);
    // Every subscription is live once each socket has had an event (a subscribe has no acknowledgement).
    await note('warm every subscription');
    await client.request('events', { n: 1 });
    const full = await server.request<{ rss: number; heapUsed: number }>('memory');
    const perSocket = (full.rss - empty.rss) / SOCKETS / 1024;
    const heapPerSocket = (full.heapUsed - empty.heapUsed) / SOCKETS / 1024;
    if (HEAP) await server.request('heapSnapshot', { file: `${HEAP}-full.heapsnapshot` });

    const cpu = async () => {
      const u = await server.request<{ user: number; system: number }>('cpu');
      return (u.user + u.system) / 1000;
    };
    if (PROFILE) await server.request('profileStart');
    let c = await cpu();
    t = now();
    await note('the measured write');
    const { at } = await client.request<{ at: (number | null)[] }>('events', { n: 2 });
    if (PROFILE) await server.request('profileStop', { file: `${PROFILE}-write.cpuprofile` });
    const writeCpu = (await cpu()) - c;
    const lat = at.filter((x): x is number => x != null).map((x) => x - t).sort((a, b) => a - b);
    console.log(`  one write to ${lat.length} sockets: p50 ${ms(quantile(lat, 0.5))}, p99 ${ms(quantile(lat, 0.99))}, max ${ms(lat[lat.length - 1])} (target p99 < 250 ms); server CPU ${ms(writeCpu)}`);
    console.log(`  server RSS per socket: ${perSocket.toFixed(1)} KB (${(empty.rss / 1048576).toFixed(0)} MB empty, ${(full.rss / 1048576).toFixed(0)} MB with sockets; target < 15 KB; of which JS heap ${heapPerSocket.toFixed(1)} KB)`);

    if (PROFILE) await server.request('profileStart');
    c = await cpu();
    t = now();
    await api(url, writer, 'DELETE', `/api/v1/users/self/tokens/${issued.id}`);
    const answered = now() - t;
    const closes = await Promise.race([
      client.request<{ at: number[]; codes: number[] }>('closes'),
      new Promise<null>((r) => setTimeout(() => r(null), 30_000)),
    ]);
    if (PROFILE) await server.request('profileStop', { file: `${PROFILE}-revoke.cpuprofile` });
    // The closes the server still has to read (clients' close frames) land after the last client saw its close.
    await new Promise((r) => setTimeout(r, 2000));
    const revokeCpu = (await cpu()) - c;
    if (!closes) console.log(`  revoke: DELETE answered in ${ms(answered)}; sockets still open 30 s later (no event or operation was sent to them)`);
    else console.log(`  revoke: every socket closed (codes ${closes.codes.join(',')}) ${ms(Math.max(...closes.at) - t)} after the DELETE was sent (answered in ${ms(answered)}; target < 1 s); server CPU ${ms(revokeCpu)} (with 2 s after)`);
  } finally {
    await client.close();
    await server.close();
    await db.drop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
