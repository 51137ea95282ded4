/**
 * The bench's child processes: the server under test (server-process.ts), the hand-written baseline
 * (baseline-server.ts) and the load generator (load-worker.ts), each forked from the compiled bench
 * and driven by request/answer messages over IPC.
 */
import { ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import type { LoadJob, LoadReport } from './load-worker';

export class Child {
  private seq = 0;
  private readonly waiting = new Map<number, { resolve(v: any): void; reject(e: Error): void }>();

  constructor(
    readonly name: string,
    private readonly proc: ChildProcess,
  ) {
    proc.on('message', (m: { id?: number; ok: boolean; error?: string }) => {
      const w = m.id != null ? this.waiting.get(m.id) : undefined;
      if (!w) return;
      this.waiting.delete(m.id!);
      if (m.ok) w.resolve(m);
      else w.reject(new Error(`${name}: ${m.error}`));
    });
    proc.on('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`${name} exited (${code})`));
      this.waiting.clear();
    });
  }

  request<T = any>(type: string, payload: object = {}): Promise<T> {
    const id = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.proc.send({ id, type, ...payload });
    });
  }

  async close(): Promise<void> {
    if (!this.proc.connected) return;
    await this.request('close').catch(() => undefined);
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.disconnect();
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
    if (this.proc.exitCode == null) this.proc.kill();
  }
}

const script = (name: string) => path.join(__dirname, name);
/** BENCH_SERVER_NODE_ARGS: extra node flags for the servers under test (e.g. --trace-gc), space-separated. */
const serverArgs = ['--expose-gc', ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];

/** The server under test; `dist` is another build's dist/ (BENCH_COMPARE), else this one. */
export function forkServer(name: string, dist?: string): Child {
  return new Child(name, fork(script('server-process.js'), dist ? [dist] : [], { execArgv: serverArgs, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
}

export function forkBaseline(): Child {
  return new Child('baseline', fork(script('baseline-server.js'), [], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
}

/** The load generator: one job at a time. */
export class LoadGenerator {
  private readonly proc = fork(script('load-worker.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });

  run(job: LoadJob): Promise<LoadReport> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`load worker exited (${code})`));
      this.proc.once('exit', onExit);
      this.proc.once('message', (m: { ok: boolean; report?: LoadReport; error?: string }) => {
        this.proc.off('exit', onExit);
        if (m.ok) resolve(m.report!);
        else reject(new Error(`load worker: ${m.error}`));
      });
      this.proc.send(job);
    });
  }

  close(): void {
    if (this.proc.connected) this.proc.disconnect();
  }
}
