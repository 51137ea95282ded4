import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { testDatabase, TestDatabase } from './db';

const MAIN = path.join(__dirname, '..', '..', 'dist', 'src', 'app', 'main.js');

/**
 * A port for a child process to listen on. It is taken below the kernel's ephemeral range: a port from
 * listen(0) (what every in-process test server and outgoing connection gets) could be handed to another
 * test file's server between this check and the child's own listen, and the child's health check would
 * then reach that server (seen in CI: the admin token of the child refused as an invalid token).
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let i = 0; i < 100; i++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    if (await canListen(port)) return port;
  }
  throw new Error('no free port below the ephemeral range');
}

function ephemeralLow(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 11_000) return low;
  } catch {
    // not Linux: the IANA ephemeral range starts at 49152
  }
  return fs.existsSync('/proc') ? 32_768 : 49_152;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * Fresh databases for service processes, which keep their data across restarts: each call gives a new
 * SQLite file (in a temporary directory, as in-memory SQLite dies with the process) or a new MariaDB
 * database. Registers beforeAll/afterAll that create the directory and remove everything at the end.
 *
 * A MariaDB database is a copy of the migrated template (test/support/db.ts), so a started process finds
 * nothing to migrate: on an empty one a first start took 6.7 s to ready instead of 5.3 s (plus 0.3 s for
 * the copy), and a start under load ran into runServiceToExit's 15 s bound. `{ blank: true }` gives an
 * empty one, which the process migrates itself as a new deployment's does, for tests of that. A SQLite
 * file is always empty: migrating it takes about 0.1 s.
 */
export function processDatabases(prefix: string): (opts?: { blank?: boolean }) => Promise<string> {
  let tmp: string;
  const dbs: TestDatabase[] = [];
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterAll(async () => {
    for (const db of dbs) await db.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  return async (opts = {}) => {
    const db = testDatabase(opts);
    dbs.push(db);
    if (db.kind === 'sqlite') return `sqlite:${path.join(tmp, `lms-${dbs.length}.sqlite`)}`;
    await db.ready?.();
    return db.url;
  };
}

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts the compiled service (`npm start` runs the same file) as a separate process. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  let out = '';
  let err = '';
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  // A bound for a hung start, not a speed check: two workers on a loaded 2-core machine took 24 s.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/health/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`service did not start: ${err || out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url, stdout: () => out, stderr: () => err, exited };
}

/** Runs the service to completion (for start-up failures) and returns its exit code and output. */
export function runServiceToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
