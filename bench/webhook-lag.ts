/**
 * Webhook delivery throughput and lag, to a local HTTPS receiver, on SQLite and MariaDB in one run:
 *
 *   npm run bench:webhooks
 *   BENCH_COMPARE=/path/to/other/checkout/dist npm run bench:webhooks   # "before" rows from another build
 *
 * For each engine (and each build, with BENCH_COMPARE), a server process (webhook-server.ts) with
 * BENCH_SUBSCRIPTIONS (25) root-account subscriptions to grade_change, all to one receiver:
 *
 * - burst: BENCH_EVENTS (400) grade changes are committed through the REST API with the dispatcher
 *   off (a backlog of 400 x 25 = 10,000 messages), then the server's dispatcher is started: messages
 *   per second from its start to the last receipt.
 * - steady: grade changes committed at BENCH_STEADY_RATE messages per second (500: 20 events/s x 25)
 *   for BENCH_STEADY_SECONDS (10) with the dispatcher running: lag from the event's time (taken in the
 *   committing transaction) to its receipt, p50/p99/max.
 * - workers (MariaDB only): the same burst drained by 1 and then by 4 `cli dispatch` processes
 *   (the server's dispatcher off), timed from the first receipt to the last so process start-up is
 *   not counted.
 *
 * The receiver runs in its own process with a certificate generated for the run. The machine's load
 * (1-minute load average, cores) is printed with every row: other work on the machine slows all of it.
 * Each burst row also has the CPU time (user + system, all threads, from /proc) per message of the
 * dispatching process(es), the receiver and the local MariaDB server, and how many cores each kept busy
 * on average — a process busy well under one core is waiting (round trips, locks), not computing — and
 * the dispatchers' claims: how many, how many found nothing, and rows one selected that another took.
 *
 * Knobs: BENCH_ENGINES (sqlite,mysql), BENCH_MYSQL_URL (default DATABASE_URL when it is mysql://, else
 * mysql://root@127.0.0.1:3306/; a database is created per run and dropped), BENCH_EVENTS,
 * BENCH_SUBSCRIPTIONS, BENCH_STEADY_RATE, BENCH_STEADY_SECONDS, BENCH_WORKERS (4), BENCH_FORMAT
 * (live-event | caliper), BENCH_COMPARE, BENCH_PROFILE_DIR (CPU profile of the server's dispatcher
 * during each burst, summarized), WEBHOOK_CONCURRENCY / WEBHOOK_BATCH_SIZE (passed to both builds).
 */
import { ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { generate } from 'selfsigned';
import { Child } from './children';
import { summarizeProfile } from './profile-summary';
import { BenchServer, Client, envInt, fmt, mapLimit, printTable, World } from './support';

const EVENTS = envInt('BENCH_EVENTS', 400);
const SUBSCRIPTIONS = envInt('BENCH_SUBSCRIPTIONS', 25);
const STEADY_RATE = envInt('BENCH_STEADY_RATE', 500);
const STEADY_SECONDS = envInt('BENCH_STEADY_SECONDS', 10);
const WORKERS = envInt('BENCH_WORKERS', 4);
const FORMAT = process.env.BENCH_FORMAT === 'caliper' ? 'caliper' : 'live-event';
const COMPARE = process.env.BENCH_COMPARE ?? '';
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR ?? '';
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,mysql').split(',').map((e) => e.trim());
const STUDENTS = 20;
const GRADERS = 8;

/** The receiver: records receipt time, message id and event time of every POST, answers 200. */
const RECEIVER = `
const https = require('node:https');
const fs = require('node:fs');
const server = https.createServer({ key: fs.readFileSync(process.env.KEY), cert: fs.readFileSync(process.env.CERT) }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const t = Date.now();
    const doc = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const eventTime = doc.metadata ? doc.metadata.event_time : doc.data[0].eventTime;
    process.stdout.write(JSON.stringify({ t, id: req.headers['x-message-id'], eventTime }) + '\\n');
    res.writeHead(200).end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write('PORT ' + server.address().port + '\\n'));
`;

interface Receipt {
  t: number;
  id: string;
  eventTime: string;
}

async function startReceiver(keyFile: string, certFile: string): Promise<{ child: ChildProcess; pid: number | undefined; port: number; receipts: Receipt[] }> {
  const child = spawn(process.execPath, ['-e', RECEIVER], { env: { KEY: keyFile, CERT: certFile }, stdio: ['ignore', 'pipe', 'inherit'] });
  const receipts: Receipt[] = [];
  let buffer = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`receiver exited (${code})`)));
    child.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.startsWith('PORT ')) resolve(Number(line.slice(5)));
        else if (line) receipts.push(JSON.parse(line) as Receipt);
      }
    });
  });
  return { child, pid: child.pid, port, receipts };
}

/** CPU time (user + system, all threads) a process has used so far, in ms, from /proc (Linux); null elsewhere. */
function cpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state is field 3, so utime (14) and stime (15) are the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** The local MariaDB/MySQL server's pid, when it runs on this machine (its CPU is counted per message). */
function databasePid(): number | undefined {
  try {
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      const comm = fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim();
      if (comm === 'mariadbd' || comm === 'mysqld') return Number(d);
    }
  } catch {
    // not Linux
  }
  return undefined;
}

/** CPU per message of the dispatching processes, the receiver and the database, and the cores they kept busy. */
class CpuMeter {
  private start: (number | null)[] = [];
  private t0 = 0;
  constructor(private readonly groups: { dispatch: () => (number | undefined)[]; receiver: number | undefined; db: number | undefined }) {}
  private read(): (number | null)[] {
    const sum = (xs: (number | null)[]) => (xs.some((x) => x == null) ? null : xs.reduce<number>((a, b) => a + (b ?? 0), 0));
    return [sum(this.groups.dispatch().map(cpuMs)), cpuMs(this.groups.receiver), cpuMs(this.groups.db)];
  }
  begin(): void {
    this.start = this.read();
    this.t0 = Date.now();
  }
  /** "ms/message dispatch / receiver / db (cores busy …)" over `messages` since begin(). */
  end(messages: number): string {
    const now = this.read();
    const wall = Date.now() - this.t0;
    const used = now.map((v, i) => (v == null || this.start[i] == null ? null : v - this.start[i]!));
    const per = used.map((u) => (u == null ? '–' : (u / messages).toFixed(2))).join(' / ');
    const cores = used.map((u) => (u == null ? '–' : (u / wall).toFixed(2))).join(' / ');
    return `${per} (${cores} cores)`;
  }
}

/**
 * InnoDB's row lock waits so far (SHOW GLOBAL STATUS: the whole server, so other databases' work on a
 * shared server counts too): a delta near zero over a burst means the dispatchers did not wait on
 * each other's locks.
 */
async function rowLockWaits(url: string): Promise<{ waits: number; ms: number } | null> {
  const ds = new DataSource({ type: 'mysql', url });
  try {
    await ds.initialize();
    const rows: { Variable_name: string; Value: string }[] = await ds.query("SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_%'");
    const v = (name: string) => Number(rows.find((r) => r.Variable_name === name)?.Value ?? 0);
    return { waits: v('Innodb_row_lock_waits'), ms: v('Innodb_row_lock_time') };
  } catch {
    return null;
  } finally {
    if (ds.isInitialized) await ds.destroy();
  }
}
const lockCell = (a: { waits: number; ms: number } | null, b: { waits: number; ms: number } | null) =>
  a && b ? `; InnoDB row lock waits ${b.waits - a.waits} (${b.ms - a.ms} ms)` : '';

interface WorkerStats {
  claims?: number;
  emptyClaims?: number;
  lostRows?: number;
}
const claimsCell = (s: WorkerStats[]) => {
  if (!s.length || s.some((x) => x.claims == null)) return '';
  const t = (k: keyof WorkerStats) => s.reduce((a, x) => a + (x[k] ?? 0), 0);
  return `${t('claims')} (${t('emptyClaims')} empty, ${t('lostRows')} rows lost)`;
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => `${os.loadavg()[0].toFixed(1)} / ${os.cpus().length} cores`;

interface Engine {
  kind: 'sqlite' | 'mysql';
  url: string;
  label: string;
  drop(): Promise<void>;
}

function mysqlBase(): string {
  if (process.env.BENCH_MYSQL_URL) return process.env.BENCH_MYSQL_URL;
  if (process.env.DATABASE_URL?.startsWith('mysql://')) return process.env.DATABASE_URL;
  return 'mysql://root@127.0.0.1:3306/';
}

async function database(kind: 'sqlite' | 'mysql'): Promise<Engine> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-bench-db-'));
    return { kind, url: `sqlite:${path.join(dir, 'bench.db')}`, label: 'SQLite (WAL file)', drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const base = mysqlBase();
  const name = `lms_whbench_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new URL(base);
  admin.pathname = '/';
  const u = new URL(base);
  u.pathname = `/${name}`;
  const run = async (sql: string) => {
    const ds = new DataSource({ type: 'mysql', url: admin.toString() });
    await ds.initialize();
    try {
      await ds.query(sql);
    } finally {
      await ds.destroy();
    }
  };
  await run(`CREATE DATABASE \`${name}\``);
  return { kind, url: u.toString(), label: `MariaDB/MySQL ${u.hostname}:${u.port || 3306}`, drop: () => run(`DROP DATABASE IF EXISTS \`${name}\``) };
}

type Row = (string | number)[];

interface Receiver {
  pid: number | undefined;
  port: number;
  receipts: Receipt[];
}

/** One build on one engine: burst and steady with the server's dispatcher, then (MariaDB) 1 and N cli workers. */
async function runCase(engine: Engine, build: { label: string; dist: string }, receiver: Receiver, certFile: string): Promise<Row[]> {
  const rows: Row[] = [];
  const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
  const env: Record<string, string> = {
    DATABASE_URL: engine.url,
    LMS_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'silent',
    PORT: '0',
    RATE_LIMIT: 'off',
    WEBHOOK_DISPATCHER: 'off',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
    WEBHOOK_CA_FILE: certFile,
    ...(process.env.WEBHOOK_CONCURRENCY ? { WEBHOOK_CONCURRENCY: process.env.WEBHOOK_CONCURRENCY } : {}),
    ...(process.env.WEBHOOK_BATCH_SIZE ? { WEBHOOK_BATCH_SIZE: process.env.WEBHOOK_BATCH_SIZE } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  };
  const serverProc = fork(path.join(__dirname, 'webhook-server.js'), [build.dist], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const server = new Child(`server (${build.label})`, serverProc);
  const workers: ChildProcess[] = [];
  const dbPid = engine.kind === 'mysql' ? databasePid() : undefined;
  try {
    const started = await server.request<{ port: number; concurrency: number; batch: number }>('start', { env });
    const url = `http://127.0.0.1:${started.port}`;
    const settings = `concurrency ${started.concurrency}, batch ${started.batch}`;
    const world = new World({ admin: new Client(url, adminToken), as: (token: string | null) => new Client(url, token) } as unknown as BenchServer);
    const course = await world.course('Webhook bench');
    const teacher = await world.user('Bench Teacher', { token: true });
    await world.enroll(course.id, teacher.id, 'TeacherEnrollment');
    const students = await world.users('Bench Student', STUDENTS);
    await mapLimit(students, 4, (s) => world.enroll(course.id, s.id, 'StudentEnrollment'));
    const t = new Client(url, teacher.token!);
    const a = await t.post(`/api/v1/courses/${course.id}/assignments`, { assignment: { name: 'Essay', published: true, points_possible: 100, submission_types: ['online_text_entry'] } });
    if (a.status !== 201) throw new Error(`assignment: ${a.status} ${a.text}`);
    await server.request('seed', { subscriptions: SUBSCRIPTIONS, url: `https://127.0.0.1:${receiver.port}/hook`, format: FORMAT });

    // Each call changes one student's grade to a value it does not have, so each commits one event.
    let seq = 0;
    const grade = async () => {
      const i = seq++;
      const res = await t.request('PUT', `/api/v1/courses/${course.id}/assignments/${a.body.id}/submissions/${students[i % STUDENTS].id}`, {
        submission: { posted_grade: String(10 + (Math.floor(i / STUDENTS) % 80)) },
      });
      if (res.status !== 200) throw new Error(`grade change: ${res.status} ${res.text}`);
    };
    const waitReceipts = async (n: number, timeoutMs = 600_000) => {
      const deadline = Date.now() + timeoutMs;
      while (receiver.receipts.length < n && Date.now() < deadline) await sleep(20);
      return receiver.receipts.slice();
    };
    const dups = (rs: Receipt[]) => rs.length - new Set(rs.map((r) => r.id)).size;

    // Warm-up (signing keys, TLS, first queries), not measured.
    await server.request('dispatch', { on: true });
    await grade();
    await waitReceipts(SUBSCRIPTIONS, 30_000);
    await server.request('dispatch', { on: false });

    const expected = EVENTS * SUBSCRIPTIONS;
    const queueBurst = async () => {
      await mapLimit(Array.from({ length: EVENTS }), GRADERS, grade);
      receiver.receipts.length = 0;
    };

    // Burst: drained by the server's dispatcher, timed from its start.
    await queueBurst();
    const loadBefore = load();
    const profile = PROFILE_DIR ? path.join(PROFILE_DIR, `webhooks-${engine.kind}-${build.label}-${Date.now()}.cpuprofile`) : '';
    if (profile) await server.request('profileStart');
    const meter = new CpuMeter({ dispatch: () => [serverProc.pid], receiver: receiver.pid, db: dbPid });
    meter.begin();
    const statsBefore = await server.request<WorkerStats>('stats');
    const t0 = Date.now();
    await server.request('dispatch', { on: true });
    let got = await waitReceipts(expected);
    const burstCpu = meter.end(expected);
    const statsAfter = await server.request<WorkerStats>('stats');
    const serverClaims: WorkerStats = {
      claims: statsAfter.claims == null ? undefined : statsAfter.claims - (statsBefore.claims ?? 0),
      emptyClaims: (statsAfter.emptyClaims ?? 0) - (statsBefore.emptyClaims ?? 0),
      lostRows: (statsAfter.lostRows ?? 0) - (statsBefore.lostRows ?? 0),
    };
    const burstS = (Math.max(...got.map((r) => r.t)) - t0) / 1000;
    if (profile) {
      await server.request('profileStop', { file: profile });
      console.log(`\nCPU profile of the ${build.label} server during the ${engine.kind} burst (${profile}):\n${summarizeProfile(JSON.parse(fs.readFileSync(profile, 'utf8')), 12)}`);
    }
    rows.push([
      engine.kind,
      build.label,
      'burst, server dispatcher',
      settings,
      `${got.length}/${expected}`,
      fmt(got.length / burstS),
      '',
      '',
      '',
      dups(got),
      burstCpu,
      claimsCell([serverClaims]),
      `${loadBefore} → ${load()}`,
    ]);

    // Steady: paced commits with the dispatcher running; lag per message.
    receiver.receipts.length = 0;
    const eventsPerSecond = STEADY_RATE / SUBSCRIPTIONS;
    const steadyEvents = Math.round(eventsPerSecond * STEADY_SECONDS);
    const steadyLoad = load();
    const s0 = Date.now();
    let committed = 0;
    await Promise.all(
      Array.from({ length: steadyEvents }, async (_, i) => {
        const at = s0 + (i * 1000) / eventsPerSecond;
        await sleep(Math.max(0, at - Date.now()));
        await grade();
        committed++;
      }),
    );
    const commitS = (Date.now() - s0) / 1000;
    got = await waitReceipts(steadyEvents * SUBSCRIPTIONS);
    await server.request('dispatch', { on: false });
    const lags = got.map((r) => r.t - Date.parse(r.eventTime)).sort((x, y) => x - y);
    rows.push([
      engine.kind,
      build.label,
      `steady ${STEADY_RATE}/s for ${STEADY_SECONDS} s`,
      settings,
      `${got.length}/${steadyEvents * SUBSCRIPTIONS}`,
      `${fmt((committed * SUBSCRIPTIONS) / commitS)} offered`,
      `${fmt(percentile(lags, 50))} ms`,
      `${fmt(percentile(lags, 99))} ms`,
      `${fmt(lags[lags.length - 1])} ms`,
      dups(got),
      '',
      '',
      `${steadyLoad} → ${load()}`,
    ]);

    // Scale-out: the same burst drained by `cli dispatch` processes.
    if (engine.kind === 'mysql') {
      const cli = path.join(build.dist, 'src', 'app', 'cli.js');
      for (const n of [1, WORKERS]) {
        await queueBurst();
        const loadAt = load();
        const locksBefore = await rowLockWaits(engine.url);
        // Workers log their totals (claims, empty claims, rows lost to another worker) when they stop.
        const logs: string[] = [];
        for (let w = 0; w < n; w++) {
          const worker = spawn(process.execPath, [cli, 'dispatch'], { env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'ignore'] });
          let out = '';
          worker.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
          worker.once('exit', () => logs.push(out));
          workers.push(worker);
        }
        // CPU from the first receipt on, so start-up (loading modules, connecting) is not counted.
        await waitReceipts(1);
        const meter = new CpuMeter({ dispatch: () => workers.map((w) => w.pid), receiver: receiver.pid, db: dbPid });
        meter.begin();
        const atFirst = receiver.receipts.length;
        got = await waitReceipts(expected);
        const cpu = meter.end(expected - atFirst);
        const locks = lockCell(locksBefore, await rowLockWaits(engine.url));
        const first = Math.min(...got.map((r) => r.t));
        const last = Math.max(...got.map((r) => r.t));
        await Promise.all(workers.splice(0).map((w) => new Promise((r) => (w.exitCode != null ? r(null) : (w.once('exit', r), w.kill('SIGTERM'))))));
        const stats = logs.flatMap((l) =>
          l
            .split('\n')
            .filter((line) => line.startsWith('{') && line.includes('webhook dispatcher stopped'))
            .map((line) => JSON.parse(line) as WorkerStats),
        );
        rows.push([
          engine.kind,
          build.label,
          `burst, ${n} cli dispatch worker${n > 1 ? 's' : ''}`,
          settings,
          `${got.length}/${expected}`,
          fmt((got.length - 1) / ((last - first) / 1000)),
          '',
          '',
          '',
          dups(got),
          cpu,
          claimsCell(stats) + locks,
          `${loadAt} → ${load()}`,
        ]);
      }
    }
  } finally {
    for (const w of workers) w.kill('SIGKILL');
    await server.close();
  }
  return rows;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-bench-'));
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  fs.writeFileSync(keyFile, pems.private);
  fs.writeFileSync(certFile, pems.cert);
  const receiver = await startReceiver(keyFile, certFile);
  const builds = [...(COMPARE ? [{ label: 'before', dist: path.resolve(COMPARE) }] : []), { label: COMPARE ? 'after' : 'this build', dist: path.resolve(__dirname, '..') }];
  const rows: Row[] = [];
  console.log(
    `Webhook delivery (${FORMAT}; ${EVENTS} events x ${SUBSCRIPTIONS} subscriptions per burst; ${GRADERS} graders committing; receiver, server and workers in their own processes)`,
  );
  console.log(`Machine: ${os.cpus().length} cores, load average at start ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (other work on the machine slows every row)`);
  try {
    for (const kind of ENGINES) {
      if (kind !== 'sqlite' && kind !== 'mysql') throw new Error(`BENCH_ENGINES: unknown engine ${kind}`);
      for (const build of builds) {
        let engine: Engine;
        try {
          engine = await database(kind);
        } catch (e) {
          console.log(`skipped ${kind}: ${(e as Error).message}`);
          break;
        }
        try {
          const done = await runCase(engine, build, receiver, certFile);
          // As each case ends, so a long run shows progress (the table at the end has them all).
          for (const r of done) console.log(`  ${r.slice(0, 6).join(' | ')}`);
          rows.push(...done);
        } finally {
          await engine.drop().catch(() => undefined);
        }
      }
    }
  } finally {
    receiver.child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    [
      'engine',
      'build',
      'phase',
      'dispatcher',
      'received',
      'messages/s',
      'p50 lag',
      'p99 lag',
      'max lag',
      'duplicates',
      'CPU ms/message: dispatch / receiver / db',
      'claims',
      'load (1 min) before → after',
    ],
    rows,
  );
}

main().catch((e) => {
  console.error(`bench failed: ${(e as Error).stack ?? String(e)}`);
  process.exitCode = 1;
});
