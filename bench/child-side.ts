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
 * The first of these modules that the build has: builds from before the composition root moved to
 * src/app/ keep bootstrap and server at src/, and BENCH_COMPARE must still run them.
 */
export function fromDistFirst<T>(...paths: string[]): T {
  const found = paths.find((p) => fs.existsSync(path.join(dist, `${p}.js`)));
  if (!found) throw new Error(`none of ${paths.join(', ')} in the build at ${dist}`);
  return fromDist<T>(found);
}

/** What profileStart records: CPU samples, every allocation, or only what outlives a young collection. */
export type ProfileKind = 'cpu' | 'heap' | 'heap-survivors';

/**
 * Answers each message with { id, ok: true, ...its result } or { id, ok: false, error }. profileStart
 * { kind } and profileStop { file } (a profile of this process: CPU samples every `profileIntervalUs`
 * microseconds by default, see ProfileKind), cpu (process.cpuUsage()) and close (`close()`) are answered here, every other type by `handle`. When the parent
 * goes away, runs `close()` and exits.
 */
export function answerParent<M extends { id: number; type: string; file?: string; kind?: ProfileKind }>(opts: {
  handle: (msg: M) => Promise<object | undefined>;
  close: () => Promise<void>;
  profileIntervalUs: number;
}): void {
  const profiler = new Profiler(opts.profileIntervalUs);
  const answer = async (msg: M): Promise<object | undefined> => {
    switch (msg.type) {
      case 'profileStart':
        await profiler.start(msg.kind ?? 'cpu');
        return {};
      case 'profileStop':
        await profiler.stop(msg.file!);
        return { file: msg.file };
      case 'close':
        await opts.close();
        return {};
      case 'cpu':
        // CPU time this process has used: the bench divides the difference over a run by its requests.
        return process.cpuUsage();
      default:
        return opts.handle(msg);
    }
  };
  process.on('message', (msg: M) => {
    answer(msg).then(
      (r) => process.send!({ id: msg.id, ok: true, ...r }),
      (e: Error) => process.send!({ id: msg.id, ok: false, error: e.stack ?? e.message }),
    );
  });
  process.on('disconnect', () => {
    void opts.close().finally(() => process.exit(0));
  });
}

/**
 * A sampling profile of this process through node:inspector: CPU (.cpuprofile), or allocations
 * (.heapprofile: every allocation including what the next collection frees, or with heap-survivors
 * only what outlived a young collection, which is what promotion and old-space collections cost).
 */
class Profiler {
  private kind: ProfileKind = 'cpu';
  private session?: Session;

  /** `intervalUs`: microseconds between samples. */
  constructor(private readonly intervalUs: number) {}

  private post(method: string, params: object = {}): Promise<any> {
    return new Promise((resolve, reject) => this.session!.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  }

  async start(kind: ProfileKind): Promise<void> {
    this.kind = kind;
    this.session = new Session();
    this.session.connect();
    if (kind !== 'cpu') {
      await this.post('HeapProfiler.enable');
      await this.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: kind === 'heap' });
      return;
    }
    await this.post('Profiler.enable');
    await this.post('Profiler.setSamplingInterval', { interval: this.intervalUs });
    await this.post('Profiler.start');
  }

  async stop(file: string): Promise<void> {
    const { profile } = await this.post(this.kind === 'cpu' ? 'Profiler.stop' : 'HeapProfiler.stopSampling');
    fs.writeFileSync(file, JSON.stringify(profile));
    this.session!.disconnect();
    this.session = undefined;
  }
}
