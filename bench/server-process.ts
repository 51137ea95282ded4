/**
 * The server under test of `npm run bench`, in its own process (child_process.fork): the real
 * prepareApp + buildServer on the bench's database, alone on its event loop, so its heap and RSS are
 * its own and a CPU profile shows only server work. Forked with --expose-gc so memory is read after
 * a collection.
 *
 * argv[2], when given, is another build's dist/ directory: BENCH_COMPARE runs the build of an earlier
 * commit side by side with this one, against the same rows, in the same run.
 *
 * Messages (each answered with { id, ok, ... }): start { env }, memory, profileStart, profileStop { file }, close.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

interface Msg {
  id: number;
  type: 'start' | 'memory' | 'profileStart' | 'profileStop' | 'close';
  env?: Record<string, string>;
  file?: string;
}

const dist = process.argv[2] ? path.resolve(process.argv[2]) : path.resolve(__dirname, '..');
/* eslint-disable @typescript-eslint/no-require-imports */
const { loadConfig } = require(path.join(dist, 'src/config')) as typeof import('../src/config');
const { prepareApp } = require(path.join(dist, 'src/bootstrap')) as typeof import('../src/bootstrap');
const { buildServer } = require(path.join(dist, 'src/server')) as typeof import('../src/server');

let close: (() => Promise<void>) | undefined;
let session: Session | undefined;

function post(method: string, params?: object): Promise<any> {
  return new Promise((resolve, reject) => session!.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))));
}

function memory() {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, collected: Boolean(gc) };
}

async function handle(msg: Msg): Promise<object> {
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
    case 'profileStart':
      session = new Session();
      session.connect();
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 200 });
      await post('Profiler.start');
      return {};
    case 'profileStop': {
      const { profile } = await post('Profiler.stop');
      fs.writeFileSync(msg.file!, JSON.stringify(profile));
      session!.disconnect();
      session = undefined;
      return { file: msg.file };
    }
    case 'close':
      await close?.();
      close = undefined;
      return {};
  }
}

process.on('message', (msg: Msg) => {
  handle(msg).then(
    (r) => process.send!({ id: msg.id, ok: true, ...r }),
    (e: Error) => process.send!({ id: msg.id, ok: false, error: e.stack ?? e.message }),
  );
});
process.on('disconnect', () => {
  void (close?.() ?? Promise.resolve()).finally(() => process.exit(0));
});
