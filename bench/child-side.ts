/**
 * The child's side of children.ts's request/answer messages, for the bench's server processes
 * (server-process.ts, webhook-server.ts): answering the parent, and CPU profiles of the child itself.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

/** The build the child runs: argv[2] when given (another build's dist/, for BENCH_COMPARE), else this one. */
const dist = process.argv[2] ? path.resolve(process.argv[2]) : path.resolve(__dirname, '..');

/** A module of that build, e.g. fromDist<typeof import('../src/config')>('src/config'). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const fromDist = <T>(p: string): T => require(path.join(dist, p)) as T;

/**
 * Answers each message with { id, ok: true, ...what `handle` returns } or { id, ok: false, error };
 * when the parent goes away, runs `close()` (whatever is open then) and exits.
 */
export function answerParent<M extends { id: number }>(handle: (msg: M) => Promise<object>, close: () => Promise<void> | undefined): void {
  process.on('message', (msg: M) => {
    handle(msg).then(
      (r) => process.send!({ id: msg.id, ok: true, ...r }),
      (e: Error) => process.send!({ id: msg.id, ok: false, error: e.stack ?? e.message }),
    );
  });
  process.on('disconnect', () => {
    void (close() ?? Promise.resolve()).finally(() => process.exit(0));
  });
}

/** A sampling CPU profile of this process through node:inspector, written as a .cpuprofile file. */
export class CpuProfiler {
  private session?: Session;

  /** `intervalUs`: microseconds between samples. */
  constructor(private readonly intervalUs: number) {}

  private post(method: string, params: object = {}): Promise<any> {
    return new Promise((resolve, reject) => this.session!.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  }

  async start(): Promise<void> {
    this.session = new Session();
    this.session.connect();
    await this.post('Profiler.enable');
    await this.post('Profiler.setSamplingInterval', { interval: this.intervalUs });
    await this.post('Profiler.start');
  }

  async stop(file: string): Promise<void> {
    const { profile } = await this.post('Profiler.stop');
    fs.writeFileSync(file, JSON.stringify(profile));
    this.session!.disconnect();
    this.session = undefined;
  }
}
