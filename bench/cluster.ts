/**
 * WEB_CONCURRENCY (issue 14): the read benchmark's endpoints against the real service process
 * (dist/src/app/main.js) at WEB_CONCURRENCY=1 and then =2, on one database, printed side by side. Prints
 * figures only; it never asserts timings.
 *
 *   npm run bench:cluster                                # build, then node dist/bench/cluster.js
 *   BENCH_SECONDS=5 BENCH_ONLY=items,self npm run bench:cluster
 *   DATABASE_URL=mysql://root@127.0.0.1:3306/x npm run bench:cluster   # a throwaway database on that server
 *
 * The world and endpoints are the read bench's (read-world.ts, read-endpoints.ts) and so is the load
 * generator (load-worker.ts, its own process), at smaller default sizes. A cluster cannot share an
 * in-memory SQLite database, so without DATABASE_URL the service runs on a temporary SQLite file. The
 * service logs at its default level (info, a line per request) to a temporary file.
 *
 * Both services run at once on the one database (the one not being measured is idle), and the targets
 * are measured in BENCH_ROUNDS rounds, alternating, so a shared machine's noise falls on both columns.
 *
 * Knobs: BENCH_SECONDS (3 per target), BENCH_ROUNDS (2), BENCH_WARMUP_SECONDS (1), BENCH_CONCURRENCY (16), BENCH_ONLY
 * (endpoint keys), BENCH_WORKERS (the second column's WEB_CONCURRENCY, 2), world size: BENCH_MODULES (20) x
 * BENCH_ITEMS (10), BENCH_STUDENTS (20), BENCH_GROUPS (30), BENCH_ASSIGNMENTS (10), BENCH_NOTES (10).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { LoadGenerator } from './children';
import type { LoadReport, LoadTarget } from './load-worker';
import { readEndpoints } from './read-endpoints';
import { seedReadWorld } from './read-world';
import { benchDatabase, BenchServer, Client, envInt, fmt, printTable, World } from './support';

const optInt = (name: string, dflt: number) => (process.env[name] === '0' ? 0 : Math.floor(envInt(name, dflt)));
const SECONDS = envInt('BENCH_SECONDS', 3);
const WARMUP_SECONDS = optInt('BENCH_WARMUP_SECONDS', 1);
const CONCURRENCY = optInt('BENCH_CONCURRENCY', 16);
const WORKERS = optInt('BENCH_WORKERS', 2);
const ROUNDS = optInt('BENCH_ROUNDS', 2);
const ONLY = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
const SIZE = {
  students: optInt('BENCH_STUDENTS', 20),
  modules: optInt('BENCH_MODULES', 20),
  items: optInt('BENCH_ITEMS', 10),
  groups: optInt('BENCH_GROUPS', 30),
  assignments: optInt('BENCH_ASSIGNMENTS', 10),
  notes: optInt('BENCH_NOTES', 10),
};
const MAIN = path.join(__dirname, '..', 'src', 'main.js');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

interface Service {
  port: number;
  stop(): Promise<number | null>;
}

/**
 * The service as `npm start` runs it, at the default LOG_LEVEL (info: a line per request, as in
 * production), its output in a file; resolves once the primary (or the single process) says it listens.
 */
async function startService(env: Record<string, string>, logFile: string): Promise<Service> {
  const port = await freePort();
  const log = fs.openSync(logFile, 'w');
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', RATE_LIMIT: 'off', ...env },
    stdio: ['ignore', log, 'inherit'],
  });
  fs.closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = Number(env.WEB_CONCURRENCY) > 1 ? /"workers":\d+,[^\n]*"msg":"listening"/ : /"msg":"listening"/;
  const deadline = Date.now() + 180_000;
  while (!listening.test(fs.readFileSync(logFile, 'utf8'))) {
    if (child.exitCode !== null) throw new Error(`the service exited at start (${child.exitCode}); see ${logFile}`);
    if (Date.now() > deadline) throw new Error(`the service did not start within 180 s; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    port,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A SQLite file (cluster workers share it) or a throwaway MySQL/MariaDB database. */
function database(dir: string): { url: string; label: string; drop(): Promise<void> } {
  if (process.env.DATABASE_URL?.startsWith('mysql://')) return benchDatabase();
  return { url: `sqlite:${path.join(dir, 'lms.sqlite')}`, label: 'sqlite file (WAL)', drop: async () => undefined };
}

interface Stat {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function stat(r: LoadReport): Stat {
  const pct = (p: number) => (r.latencies.length ? r.latencies[Math.min(r.latencies.length - 1, Math.max(0, Math.ceil(p * r.latencies.length) - 1))] : NaN);
  return { rps: r.requests / r.seconds, p50: pct(0.5), p99: pct(0.99), errors: r.errors };
}

/** Pools the reports of one target over rounds: latencies merged, throughput over the summed time. */
function pool(a: LoadReport | undefined, b: LoadReport): LoadReport {
  if (!a) return b;
  return { requests: a.requests + b.requests, errors: a.errors + b.errors, seconds: a.seconds + b.seconds, bytes: a.bytes + b.bytes, latencies: [...a.latencies, ...b.latencies].sort((x, y) => x - y) };
}

async function main(): Promise<void> {
  if (WORKERS < 2) throw new Error('BENCH_WORKERS must be 2 or more (it is compared with WEB_CONCURRENCY=1)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-bench-cluster-'));
  const db = database(dir);
  const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
  const env = { DATABASE_URL: db.url, LMS_ADMIN_TOKEN: adminToken };
  const loader = new LoadGenerator();
  const services = new Map<number, Service>();
  try {
    // Seeded through the public API of the service itself (one process), as in the read bench.
    const single = await startService({ ...env, WEB_CONCURRENCY: '1' }, path.join(dir, 'service-1.log'));
    services.set(1, single);
    const url = `http://127.0.0.1:${single.port}`;
    const seedServer = { url, port: single.port, adminToken, admin: new Client(url, adminToken), as: (t: string | null) => new Client(url, t) } as unknown as BenchServer;
    const started = performance.now();
    const w = await seedReadWorld(new World(seedServer), SIZE);
    const seedSeconds = (performance.now() - started) / 1000;
    // Both stay up (idle while the other is measured), so the rounds can alternate between them.
    services.set(WORKERS, await startService({ ...env, WEB_CONCURRENCY: String(WORKERS) }, path.join(dir, `service-${WORKERS}.log`)));
    const endpoints = readEndpoints(w, { items: 100, modules: 50, groups: 100, planner: 50 }).filter((e) => !ONLY.length || ONLY.includes(e.key));

    console.log(`WEB_CONCURRENCY=1 vs WEB_CONCURRENCY=${WORKERS}: the read bench's endpoints against dist/src/app/main.js`);
    console.log(`  database: ${db.label}; node ${process.version}; ${os.availableParallelism()} cores; load average ${os.loadavg().map((l) => fmt(l, 1)).join(' ')}`);
    console.log(`  world: ${SIZE.modules} modules x ${SIZE.items} items, ${SIZE.students} students, ${SIZE.groups} groups; seeded in ${fmt(seedSeconds, 1)} s`);
    console.log(
      `  load: separate process, ${CONCURRENCY} keep-alive connections (spread over the workers), closed loop, ${SECONDS} s per target x ${ROUNDS} rounds alternating N=1 and N=${WORKERS}, after ${WARMUP_SECONDS} s warm-up`,
    );
    console.log('  (the load generator takes a core too: on a 2-core machine two workers and the client share two cores)');
    console.log('');

    const targets = endpoints.flatMap((e) => {
      const auth = { Authorization: `Bearer ${e.token}` };
      return [...services.entries()].flatMap(([workers, { port }]) => [
        { key: `${e.key}/REST/${workers}`, load: { port, method: 'GET', path: e.path, headers: auth } as LoadTarget },
        { key: `${e.key}/GraphQL/${workers}`, load: { port, method: 'POST', path: '/graphql', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(e.graphql) } as LoadTarget },
      ]);
    });
    if (WARMUP_SECONDS) for (const t of targets) await loader.run({ target: t.load, seconds: WARMUP_SECONDS, concurrency: CONCURRENCY });
    const pooled = new Map<string, LoadReport>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of targets) {
        const r = await loader.run({ target: t.load, seconds: SECONDS, concurrency: CONCURRENCY });
        if (r.firstError) console.log(`  note: ${t.key}: ${r.errors} failed request(s), first: ${r.firstError}`);
        pooled.set(t.key, pool(pooled.get(t.key), r));
        console.log(`  measured ${t.key.replace(/\/(\d+)$/, ' at WEB_CONCURRENCY=$1')}${ROUNDS > 1 ? ` (round ${round})` : ''}: ${fmt(r.requests / r.seconds, 0)} req/s`);
      }
    }
    const results = new Map([...pooled].map(([k, r]) => [k, stat(r)]));
    for (const [workers, service] of services) {
      const code = await service.stop();
      services.delete(workers);
      if (code !== 0) console.log(`  note: the service at WEB_CONCURRENCY=${workers} exited with ${code} on SIGTERM`);
    }
    console.log('');

    const rows: (string | number)[][] = [];
    for (const e of endpoints) {
      for (const door of ['REST', 'GraphQL']) {
        const one = results.get(`${e.key}/${door}/1`)!;
        const n = results.get(`${e.key}/${door}/${WORKERS}`)!;
        rows.push([
          door === 'REST' ? e.label : '',
          door,
          fmt(one.rps, 0),
          fmt(n.rps, 0),
          `${fmt(n.rps / one.rps, 2)}x`,
          `${fmt(one.p50, 1)} ms`,
          `${fmt(n.p50, 1)} ms`,
          `${fmt(one.p99, 1)} ms`,
          `${fmt(n.p99, 1)} ms`,
          one.errors + n.errors,
        ]);
      }
    }
    const N = WORKERS;
    printTable(['endpoint', 'door', 'req/s N=1', `req/s N=${N}`, `N=${N}/N=1`, 'p50 N=1', `p50 N=${N}`, 'p99 N=1', `p99 N=${N}`, 'errors'], rows);
  } finally {
    for (const service of services.values()) await service.stop();
    loader.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`bench failed: ${(e as Error).stack ?? String(e)}`);
  process.exitCode = 1;
});
