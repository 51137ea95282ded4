/**
 * REST compatibility router (graphql-jit) vs Apollo /graphql vs a raw node:http baseline, for the
 * same roster page. Prints figures only; it never asserts timings.
 *
 *   npm run bench                        # build, then node dist/bench/rest-vs-graphql.js
 *   BENCH_SECONDS=10 BENCH_CONCURRENCY=32 node dist/bench/rest-vs-graphql.js
 *
 * Knobs: BENCH_SECONDS (5), BENCH_WARMUP_SECONDS (1), BENCH_CONCURRENCY (16), BENCH_STUDENTS (40),
 * BENCH_SECTIONS (5), BENCH_PER_PAGE (40), BENCH_ROUNDS (1: with more, the three targets are measured
 * in turn that many times and the samples pooled, which evens out noise on a shared machine), DATABASE_URL (mysql://… to bench MariaDB/MySQL on a
 * throwaway database; in-memory SQLite otherwise).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { envInt, fmt, printTable, runBench, World } from './support';

const SECONDS = envInt('BENCH_SECONDS', 5);
const WARMUP_SECONDS = envInt('BENCH_WARMUP_SECONDS', 1);
const CONCURRENCY = Math.floor(envInt('BENCH_CONCURRENCY', 16));
const STUDENTS = Math.floor(envInt('BENCH_STUDENTS', 40));
const SECTIONS = Math.floor(envInt('BENCH_SECTIONS', 5));
const PER_PAGE = Math.floor(envInt('BENCH_PER_PAGE', 40));
const ROUNDS = Math.floor(envInt('BENCH_ROUNDS', 1));

/** The same fields the REST route's EnrollmentJson fragment selects, as a GraphQL client would ask. */
const GRAPHQL_QUERY = `query Roster($id: ID!, $first: Int) {
  course(id: $id) {
    enrollmentsConnection(first: $first) {
      nodes {
        _id courseId courseSectionId rootAccountId userId type role state associatedUserId
        limitPrivilegesToCourseSection createdAt updatedAt startAt endAt lastActivityAt
        user { _id name sortableName shortName loginId }
      }
      totalCount
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

interface Target {
  name: string;
  port: number;
  method: 'GET' | 'POST';
  path: string;
  headers: http.OutgoingHttpHeaders;
  body?: Buffer;
}

interface Samples {
  latencies: number[];
  errors: number;
  bytes: number;
  seconds: number;
}

interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  bytesPerResponse: number;
}

function once(agent: http.Agent, t: Target): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: t.port, method: t.method, path: t.path, headers: t.headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(t.body);
  });
}

/** `concurrency` closed-loop workers on keep-alive connections, each issuing requests back to back for `seconds`. */
async function load(t: Target, seconds: number, concurrency: number): Promise<Samples> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  let firstError: string | undefined;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const r = await once(agent, t);
        latencies.push(performance.now() - t0);
        bytes += r.bytes;
        if (r.status !== 200) {
          errors++;
          firstError ??= `HTTP ${r.status}`;
        }
      } catch (e) {
        errors++;
        firstError ??= (e as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  if (firstError) console.log(`  note: ${t.name}: ${errors} failed request(s), first: ${firstError}`);
  return { latencies, errors, bytes, seconds: elapsed };
}

function summarize({ latencies, errors, bytes, seconds: elapsed }: Samples): LoadResult {
  const sorted = Float64Array.from(latencies).sort();
  const n = sorted.length;
  const pct = (p: number) => (n ? sorted[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))] : NaN);
  return {
    requests: n,
    errors,
    seconds: elapsed,
    rps: n / elapsed,
    meanMs: n ? latencies.reduce((a, b) => a + b, 0) / n : NaN,
    p50Ms: pct(0.5),
    p99Ms: pct(0.99),
    maxMs: n ? sorted[n - 1] : NaN,
    bytesPerResponse: n ? Math.round(bytes / n) : 0,
  };
}

/** A trivial node:http server answering every request with the same precomputed body. */
async function rawServer(body: Buffer): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    // Drain any request body so keep-alive connections stay usable.
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

void runBench(async (server) => {
  const world = new World(server);
  const seedStart = performance.now();
  const { course, teacher } = await world.classroom({ students: STUDENTS, sections: SECTIONS });
  const seedMs = performance.now() - seedStart;
  const token = teacher.token!;

  const restPath = `/api/v1/courses/${course.id}/enrollments?per_page=${PER_PAGE}`;
  const gqlBody = Buffer.from(JSON.stringify({ query: GRAPHQL_QUERY, variables: { id: String(course.id), first: PER_PAGE } }));

  // Sanity checks before timing anything: both doors answer 200 with the same number of rows.
  const restCheck = await teacher.api!.get(restPath);
  if (restCheck.status !== 200 || !Array.isArray(restCheck.body)) throw new Error(`REST check failed: ${restCheck.status} ${restCheck.text.slice(0, 300)}`);
  const gqlCheck = await teacher.api!.graphql(GRAPHQL_QUERY, { id: String(course.id), first: PER_PAGE });
  const gqlNodes = gqlCheck.body?.data?.course?.enrollmentsConnection?.nodes;
  if (gqlCheck.status !== 200 || gqlCheck.body?.errors?.length || !Array.isArray(gqlNodes)) {
    throw new Error(`GraphQL check failed: ${gqlCheck.status} ${gqlCheck.text.slice(0, 300)}`);
  }
  if (gqlNodes.length !== restCheck.body.length) {
    console.log(`  note: REST returned ${restCheck.body.length} rows but GraphQL ${gqlNodes.length}`);
  }

  // The baseline serves a body byte-for-byte identical to the REST response.
  const rawBody = Buffer.from(restCheck.text, 'utf8');
  const raw = await rawServer(rawBody);

  const auth = { Authorization: `Bearer ${token}` };
  const targets: { label: string; target: Target }[] = [
    { label: 'raw node:http', target: { name: 'raw', port: raw.port, method: 'GET', path: restPath, headers: {} } },
    { label: 'REST (graphql-jit)', target: { name: 'rest', port: server.port, method: 'GET', path: restPath, headers: auth } },
    {
      label: 'GraphQL (Apollo)',
      target: {
        name: 'graphql',
        port: server.port,
        method: 'POST',
        path: '/graphql',
        headers: { ...auth, 'Content-Type': 'application/json', 'Content-Length': gqlBody.length },
        body: gqlBody,
      },
    },
  ];

  console.log('REST vs GraphQL vs raw node:http — GET a course roster page');
  console.log(
    `  database: ${server.db.label}; node ${process.version}; seeded 1 course, 1 teacher, ${STUDENTS} students, ${SECTIONS} sections in ${fmt(seedMs / 1000, 1)} s`,
  );
  console.log(`  viewer: the teacher; rows per response: ${restCheck.body.length} (per_page=${PER_PAGE})`);
  console.log(
    `  load: ${CONCURRENCY} keep-alive connections, closed loop, ${SECONDS} s per target${ROUNDS > 1 ? ` x ${ROUNDS} interleaved rounds` : ''} after ${WARMUP_SECONDS} s warm-up`,
  );
  console.log('  (client and servers share one process and event loop; compare ratios, not absolute figures)');
  console.log('');

  const pooled = new Map<string, Samples>();
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const { label, target } of targets) {
        if (round === 1) await load(target, WARMUP_SECONDS, CONCURRENCY);
        const r = await load(target, SECONDS, CONCURRENCY);
        const acc = pooled.get(target.name);
        if (acc) {
          for (const l of r.latencies) acc.latencies.push(l);
          acc.errors += r.errors;
          acc.bytes += r.bytes;
          acc.seconds += r.seconds;
        } else pooled.set(target.name, r);
        const roundLabel = ROUNDS > 1 ? ` (round ${round}/${ROUNDS})` : '';
        console.log(`  measured ${label}${roundLabel}: ${r.latencies.length} requests in ${fmt(r.seconds, 2)} s = ${fmt(r.latencies.length / r.seconds, 0)} req/s`);
      }
    }
  } finally {
    await raw.close();
  }
  const results = new Map([...pooled].map(([k, v]) => [k, summarize(v)]));
  console.log('');

  const base = results.get('raw')!;
  const rows = targets.map(({ label, target }) => {
    const r = results.get(target.name)!;
    return [
      label,
      fmt(r.rps, 0),
      `${fmt(r.meanMs, 2)} ms`,
      `${fmt(r.p50Ms, 2)} ms`,
      `${fmt(r.p99Ms, 2)} ms`,
      r.bytesPerResponse,
      r.errors,
      `${fmt(r.rps / base.rps, 3)}x`,
      `${fmt(r.meanMs / base.meanMs, 1)}x`,
    ];
  });
  printTable(['target', 'req/s', 'mean', 'p50', 'p99', 'bytes/resp', 'errors', 'req/s vs raw', 'mean lat. vs raw'], rows);
  const rest = results.get('rest')!;
  const gql = results.get('graphql')!;
  console.log('');
  console.log(`REST/raw throughput:    ${fmt(rest.rps / base.rps, 3)}  (mean latency ${fmt(rest.meanMs / base.meanMs, 1)}x raw)`);
  console.log(`GraphQL/raw throughput: ${fmt(gql.rps / base.rps, 3)}  (mean latency ${fmt(gql.meanMs / base.meanMs, 1)}x raw)`);
  console.log(`REST/GraphQL throughput: ${fmt(rest.rps / gql.rps, 2)}`);
});
