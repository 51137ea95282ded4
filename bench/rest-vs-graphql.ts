/**
 * The read-path bench (issue 11): REST, GraphQL over HTTP and a hand-written node:http baseline on the
 * same rows, per endpoint, in one run. Prints figures and each as a share of the baseline; it fails
 * (exit 1) only when REST or GraphQL answer different rows from the baseline, never on timings.
 *
 *   npm run bench                                   # build, then node --expose-gc dist/bench/rest-vs-graphql.js
 *   BENCH_SECONDS=10 BENCH_ROUNDS=3 npm run bench
 *   DATABASE_URL=mysql://root@127.0.0.1:3306/x npm run bench      # a throwaway database on that server
 *
 * Processes: this one seeds the world through the public REST API (an in-process server), then the
 * server under test runs in a child (server-process.ts), the baseline in another (baseline-server.ts)
 * and the load generator in a third (load-worker.ts): no client work on the measured event loops.
 *
 * Knobs: BENCH_SECONDS (3 per target), BENCH_WARMUP_SECONDS (1), BENCH_CONCURRENCY (16), BENCH_ROUNDS (1:
 * more interleaves the targets that many times and pools the samples), BENCH_ONLY (endpoint keys, e.g.
 * items,modules), BENCH_SOAK_SECONDS (0: with 60, a 60-second mixed REST load afterwards with the
 * server's heap after GC every 10 s — the memory growth check), BENCH_PROFILE (endpoint:door, e.g.
 * modules:rest, or several, comma-separated, e.g. items:rest,items:rest-before — a CPU profile of the
 * server while that target is measured in round 1, summarised here and written to BENCH_PROFILE_DIR),
 * BENCH_PROFILE_KIND (cpu; heap: a sampling allocation profile instead; heap-survivors: only what
 * outlived a young-generation collection; snapshot: a heap snapshot halfway through the target),
 * BENCH_SERVER_NODE_ARGS (node flags for the servers under test, e.g. --trace-gc-nvp), BENCH_COMPARE (another build's dist/ directory, e.g. of the commit
 * before a change: its server runs side by side on the same rows as "REST before" / "GraphQL before"),
 * BENCH_TRACING (1: a second server of this build with tracing on, its spans sent to a local OTLP sink,
 * as "REST traced" / "GraphQL traced", with the cost as ratios; see tracing-cost.ts),
 * world size: BENCH_MODULES (50) x BENCH_ITEMS (20), BENCH_STUDENTS (40), BENCH_GROUPS (100),
 * BENCH_ASSIGNMENTS (30), BENCH_NOTES (30); per_page as in issue 11.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ProfileKind } from './child-side';
import { forkBaseline, forkServer, LoadGenerator } from './children';
import type { LoadReport, LoadTarget } from './load-worker';
import { summarizeProfile } from './profile-summary';
import { Endpoint, readEndpoints } from './read-endpoints';
import { seedReadWorld } from './read-world';
import { envInt, fetchParsed, fmt, printTable, runBench, World } from './support';
import { DoorStat, printTracingCost, startOtlpSink } from './tracing-cost';
import { soak } from './soak';

const optInt = (name: string, dflt: number) => (process.env[name] === '0' ? 0 : Math.floor(envInt(name, dflt)));
const SECONDS = envInt('BENCH_SECONDS', 3);
const WARMUP_SECONDS = optInt('BENCH_WARMUP_SECONDS', 1);
const CONCURRENCY = optInt('BENCH_CONCURRENCY', 16);
const ROUNDS = optInt('BENCH_ROUNDS', 1);
const SOAK_SECONDS = optInt('BENCH_SOAK_SECONDS', 0);
const ONLY = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
const PROFILE = process.env.BENCH_PROFILE ?? '';
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR || os.tmpdir();
const PROFILE_KIND = profileKind(process.env.BENCH_PROFILE_KIND);
const COMPARE = process.env.BENCH_COMPARE ?? '';
const TRACING = /^(1|on|true)$/.test(process.env.BENCH_TRACING ?? '');
const SIZE = {
  students: optInt('BENCH_STUDENTS', 40),
  modules: optInt('BENCH_MODULES', 50),
  items: optInt('BENCH_ITEMS', 20),
  groups: optInt('BENCH_GROUPS', 100),
  assignments: optInt('BENCH_ASSIGNMENTS', 30),
  notes: optInt('BENCH_NOTES', 30),
};
const TARGETS = { rest: 0.5, graphql: 0.35 };

type Door = 'baseline' | 'rest' | 'graphql' | 'rest-before' | 'graphql-before' | 'rest-traced' | 'graphql-traced';
interface Target {
  door: Door;
  label: string;
  load: LoadTarget;
}
interface Pooled {
  latencies: number[];
  requests: number;
  /** Microseconds of CPU the serving process used over the measured runs (user + system). */
  cpuUs: number;
  errors: number;
  bytes: number;
  seconds: number;
}

const MB = (n: number) => `${fmt(n / 1048576, 1)} MB`;

function targetsFor(e: Endpoint, ports: { baseline: number; after: number; before?: number; traced?: number }): Target[] {
  const auth = { Authorization: `Bearer ${e.token}` };
  const gql = (port: number): LoadTarget => ({
    port,
    method: 'POST',
    path: '/graphql',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(e.graphql),
  });
  const out: Target[] = [
    { door: 'baseline', label: 'baseline (node:http)', load: { port: ports.baseline, method: 'GET', path: e.path, headers: auth } },
    { door: 'rest', label: 'REST', load: { port: ports.after, method: 'GET', path: e.path, headers: auth } },
    { door: 'graphql', label: 'GraphQL (HTTP)', load: gql(ports.after) },
  ];
  if (ports.before) {
    out.push({ door: 'rest-before', label: 'REST before', load: { port: ports.before, method: 'GET', path: e.path, headers: auth } });
    out.push({ door: 'graphql-before', label: 'GraphQL before', load: gql(ports.before) });
  }
  if (ports.traced) {
    out.push({ door: 'rest-traced', label: 'REST traced', load: { port: ports.traced, method: 'GET', path: e.path, headers: auth } });
    out.push({ door: 'graphql-traced', label: 'GraphQL traced', load: gql(ports.traced) });
  }
  return out;
}

function fetchTarget(t: LoadTarget): Promise<{ status: number; json: any; text: string }> {
  return fetchParsed(t.port, t.path, { method: t.method, headers: t.headers as Record<string, string>, body: t.body });
}

/** Every door answers 200 with the baseline's rows in the baseline's order; returns the row count. */
async function checkRows(e: Endpoint, targets: Target[]): Promise<{ rows: number; problems: string[] }> {
  const problems: string[] = [];
  let reference: string[] | null = null;
  for (const t of targets) {
    const r = await fetchTarget(t.load);
    if (r.status !== 200 || (t.door.startsWith('graphql') && r.json?.errors?.length)) {
      problems.push(`${t.label}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
      continue;
    }
    const rows = t.door.startsWith('graphql') ? e.graphqlRows(r.json?.data) : e.restRows(r.json);
    if (reference == null) reference = rows;
    else if (rows.join(',') !== reference.join(',')) {
      problems.push(`${t.label}: ${rows.length} rows differ from the baseline's ${reference.length} (first: ${rows.slice(0, 3)} vs ${reference.slice(0, 3)})`);
    }
  }
  return { rows: reference?.length ?? 0, problems };
}

function pct(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] : NaN;
}

void runBench(async (seedServer) => {
  const world = new World(seedServer);
  const seedStart = performance.now();
  const w = await seedReadWorld(world, SIZE);
  const seedSeconds = (performance.now() - seedStart) / 1000;

  const env = { DATABASE_URL: seedServer.db.url, LMS_ADMIN_TOKEN: seedServer.adminToken, LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT: 'off' };
  const after = forkServer('server');
  const before = COMPARE ? forkServer('server (before)', COMPARE) : null;
  const sink = TRACING ? await startOtlpSink() : null;
  const traced = sink ? forkServer('server (traced)') : null;
  const baseline = forkBaseline();
  const loader = new LoadGenerator();
  const problems: string[] = [];
  try {
    const ports = {
      after: (await after.request<{ port: number }>('start', { env })).port,
      before: before ? (await before.request<{ port: number }>('start', { env })).port : undefined,
      traced: traced ? (await traced.request<{ port: number }>('start', { env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: sink!.url } })).port : undefined,
      baseline: (await baseline.request<{ port: number }>('start', { dbUrl: seedServer.db.url, tokenKey: seedServer.tokenKey })).port,
    };
    const endpoints = readEndpoints(w, { items: 100, modules: 50, groups: 100, planner: 50 }).filter((e) => !ONLY.length || ONLY.includes(e.key));

    console.log('Read path: REST and GraphQL over HTTP vs a hand-written node:http baseline on the same rows (issue 11)');
    console.log(`  database: ${seedServer.db.label}; node ${process.version}; ${os.cpus().length} CPUs`);
    console.log(
      `  world: ${SIZE.modules} modules x ${SIZE.items} items, ${SIZE.students} students, ${SIZE.groups} groups, ${SIZE.assignments} assignments + ${SIZE.notes} notes; seeded in ${fmt(seedSeconds, 1)} s`,
    );
    console.log(
      `  load: separate process, ${CONCURRENCY} keep-alive connections, closed loop, ${SECONDS} s per target${ROUNDS > 1 ? ` x ${ROUNDS} interleaved rounds` : ''} after ${WARMUP_SECONDS} s warm-up`,
    );
    if (COMPARE) console.log(`  compare: "before" rows run the build in ${COMPARE} against the same database`);
    console.log('');

    const plan = [];
    for (const e of endpoints) {
      const targets = targetsFor(e, ports);
      const check = await checkRows(e, targets);
      problems.push(...check.problems.map((p) => `${e.key}: ${p}`));
      console.log(`  checked ${e.label}: ${check.rows} rows${check.problems.length ? ` — ${check.problems.join('; ')}` : ', same rows in the same order through every door'}`);
      plan.push({ e, targets, rows: check.rows });
    }
    console.log('');

    for (const p of plan) for (const t of p.targets) if (WARMUP_SECONDS) await loader.run({ target: t.load, seconds: WARMUP_SECONDS, concurrency: CONCURRENCY });
    const memStart = await after.request('memory');

    const pooled = new Map<string, Pooled>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const { e, targets } of plan) {
        // Every other round measures the doors in reverse order, so a door's place in the round (after
        // which door, how long into the run) falls on every door alike: with a fixed order, the same
        // build in both the "after" and "before" slots read 15% apart.
        for (const t of round % 2 ? targets : [...targets].reverse()) {
          const profiling = round === 1 && PROFILE.split(',').includes(`${e.key}:${t.door}`);
          const server = t.door.endsWith('before') ? before! : t.door.endsWith('traced') ? traced! : after;
          const serving = t.door === 'baseline' ? baseline : server;
          const sampling = profiling && PROFILE_KIND !== 'snapshot';
          if (sampling) await server.request('profileStart', { kind: PROFILE_KIND });
          const cpu0 = await serving.request<NodeJS.CpuUsage>('cpu');
          // BENCH_PROFILE_KIND=snapshot: a heap snapshot of the server halfway through the profiled target.
          const snapshot =
            profiling && PROFILE_KIND === 'snapshot'
              ? new Promise((r) => setTimeout(r, (SECONDS * 1000) / 2)).then(() => server.request('heapSnapshot', { file: path.join(PROFILE_DIR, `bench-${e.key}-${t.door}-${Date.now()}.heapsnapshot`) }))
              : null;
          const r: LoadReport = await loader.run({ target: t.load, seconds: SECONDS, concurrency: CONCURRENCY });
          await snapshot;
          const cpu1 = await serving.request<NodeJS.CpuUsage>('cpu');
          if (sampling) {
            const file = path.join(PROFILE_DIR, `bench-${e.key}-${t.door}-${Date.now()}.${PROFILE_KIND === 'cpu' ? 'cpuprofile' : 'heapprofile'}`);
            await server.request('profileStop', { file });
            console.log(`  ${PROFILE_KIND} profile of the server under ${e.label} / ${t.label}: ${file}`);
            if (PROFILE_KIND === 'cpu') console.log(summarizeProfile(JSON.parse(fs.readFileSync(file, 'utf8'))));
          }
          if (r.firstError) console.log(`  note: ${e.key} ${t.label}: ${r.errors} failed request(s), first: ${r.firstError}`);
          const key = `${e.key}/${t.door}`;
          const acc = pooled.get(key) ?? { latencies: [], requests: 0, cpuUs: 0, errors: 0, bytes: 0, seconds: 0 };
          for (const l of r.latencies) acc.latencies.push(l);
          acc.requests += r.requests;
          acc.cpuUs += cpu1.user + cpu1.system - (cpu0.user + cpu0.system);
          acc.errors += r.errors;
          acc.bytes += r.bytes;
          acc.seconds += r.seconds;
          pooled.set(key, acc);
          console.log(`  measured ${e.key} ${t.label}${ROUNDS > 1 ? ` (round ${round})` : ''}: ${fmt(r.requests / r.seconds, 0)} req/s`);
        }
      }
    }
    const memEnd = await after.request('memory');
    console.log('');

    const rows: (string | number)[][] = [];
    const verdicts: string[] = [];
    const tracingRows: { endpoint: string; door: string; off: DoorStat; on: DoorStat }[] = [];
    for (const { e, targets, rows: n } of plan) {
      const stat = (t: Target) => {
        const p = pooled.get(`${e.key}/${t.door}`)!;
        p.latencies.sort((a, b) => a - b);
        const cpu = p.requests ? p.cpuUs / p.requests : NaN;
        return { rps: p.requests / p.seconds, cpu, p50: pct(p.latencies, 0.5), p99: pct(p.latencies, 0.99), bytes: p.requests ? Math.round(p.bytes / p.requests) : 0, errors: p.errors };
      };
      const base = stat(targets[0]);
      for (const t of targets) {
        const s = stat(t);
        const share = s.rps / base.rps;
        rows.push([
          t === targets[0] ? `${e.label} [${n} rows]` : '',
          t.label,
          fmt(s.rps, 0),
          `${fmt(s.p50, 1)} ms`,
          `${fmt(s.p99, 1)} ms`,
          `${fmt(100 * share, 1)}%`,
          `${fmt(s.cpu, 0)} µs`,
          `${fmt((100 * base.cpu) / s.cpu, 1)}%`,
          s.bytes,
          s.errors,
        ]);
        if (t.door.endsWith('traced')) {
          const untraced = targets.find((x) => x.door === t.door.replace('-traced', ''))!;
          tracingRows.push({ endpoint: e.label, door: t.door.startsWith('rest') ? 'REST' : 'GraphQL', off: stat(untraced), on: s });
        }
        const goal = e.key === 'floor' ? null : t.door === 'rest' ? TARGETS.rest : t.door === 'graphql' ? TARGETS.graphql : null;
        if (goal != null) verdicts.push(`  ${share >= goal ? 'met  ' : 'below'} ${e.key} ${t.label}: ${fmt(100 * share, 1)}% of the baseline (target ${100 * goal}%)`);
      }
    }
    printTable(['endpoint', 'door', 'req/s', 'p50', 'p99', 'share of baseline', 'CPU/req', 'CPU share', 'bytes/resp', 'errors'], rows);
    console.log('  CPU/req: CPU time of the serving process per request; CPU share: the baseline\'s CPU/req over the door\'s,');
    console.log('  which other load on a shared machine disturbs far less than req/s (the load generator shares the cores too).');
    console.log('');
    console.log('Targets (shares of the baseline in this run):');
    for (const v of verdicts) console.log(v);
    console.log('');
    console.log(
      `Server memory (after GC): heap ${MB(memStart.heapUsed)} -> ${MB(memEnd.heapUsed)}, RSS ${MB(memStart.rss)} -> ${MB(memEnd.rss)} over the measured run`,
    );

    if (sink && tracingRows.length) printTracingCost(tracingRows, sink);

    if (SOAK_SECONDS) await soak(after, loader, plan.map((p) => p.targets.find((t) => t.door === 'rest')!.load), { seconds: SOAK_SECONDS, concurrency: CONCURRENCY });
  } finally {
    loader.close();
    await Promise.all([after.close(), before?.close(), traced?.close(), baseline.close()]);
    await sink?.close();
  }
  if (problems.length) {
    console.log('');
    console.log('ROW MISMATCH (the doors do not answer the same rows):');
    for (const p of problems) console.log(`  ${p}`);
    process.exitCode = 1;
  }
});

/** BENCH_PROFILE_KIND: a profile the server takes (see ProfileKind), or a heap snapshot halfway through the target. */
function profileKind(raw: string | undefined): ProfileKind | 'snapshot' {
  const kind = raw || 'cpu';
  if (kind === 'cpu' || kind === 'heap' || kind === 'heap-survivors' || kind === 'snapshot') return kind;
  throw new Error(`BENCH_PROFILE_KIND: cpu, heap, heap-survivors or snapshot, not ${kind}`);
}
