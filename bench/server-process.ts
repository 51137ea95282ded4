/**
 * The server under test of `npm run bench`, in its own process (child_process.fork): the real
 * prepareApp + buildServer on the bench's database, alone on its event loop, so its heap and RSS are
 * its own and a CPU profile shows only server work. Forked with --expose-gc so memory is read after
 * a collection.
 *
 * argv[2], when given, is another build's dist/ directory: BENCH_COMPARE runs the build of an earlier
 * commit side by side with this one, against the same rows, in the same run.
 *
 * Messages (each answered with { id, ok, ... }): start { env }, memory, heapSnapshot { file },
 * profileStart, profileStop { file }, close.
 */
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import { answerParent, fromDist, fromDistFirst } from './child-side';

interface Msg {
  id: number;
  type: 'start' | 'memory' | 'heapSnapshot' | 'profileStart' | 'profileStop' | 'close';
  env?: Record<string, string>;
  file?: string;
}

const { loadConfig } = fromDist<typeof import('../src/config')>('src/config');
const { prepareApp } = fromDistFirst<typeof import('../src/app/bootstrap')>('src/app/bootstrap', 'src/bootstrap');
const { buildServer } = fromDistFirst<typeof import('../src/app/server')>('src/app/server', 'src/server');

let close: (() => Promise<void>) | undefined;

function memory() {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, collected: Boolean(gc) };
}

async function handle(msg: Msg): Promise<object | undefined> {
  switch (msg.type) {
    case 'start': {
      const app = (await prepareApp(loadConfig(msg.env!))).app;
      const server = await buildServer(app);
      await server.fastify.listen({ port: 0, host: '127.0.0.1' });
      close = async () => {
        await server.close();
        await app.ds.destroy();
      };
      return { port: (server.fastify.server.address() as AddressInfo).port };
    }
    case 'memory':
      return memory();
    case 'heapSnapshot':
      return { file: v8.writeHeapSnapshot(msg.file) };
  }
}

answerParent<Msg>({
  handle,
  close: async () => {
    await close?.();
    close = undefined;
  },
  profileIntervalUs: 200,
});
