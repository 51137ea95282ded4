/** The read bench's memory soak (BENCH_SOAK_SECONDS, rest-vs-graphql.ts). */
import { performance } from 'node:perf_hooks';
import type { Child, LoadGenerator } from './children';
import type { LoadTarget } from './load-worker';
import { fmt, printTable } from './support';

const MB = (n: number) => `${fmt(n / 1048576, 1)} MB`;

/** A mixed REST load for BENCH_o.seconds, with the server's heap after GC every 10 s. */
export async function soak(server: Child, loader: LoadGenerator, targets: LoadTarget[], o: { seconds: number; concurrency: number }): Promise<void> {
  console.log('');
  console.log(`Memory soak: ${o.seconds} s of REST load over ${targets.length} endpoints in turn (heap and RSS after GC every 10 s)`);
  const samples: { t: number; heap: number; rss: number }[] = [];
  const start = performance.now();
  const first = await server.request('memory');
  samples.push({ t: 0, heap: first.heapUsed, rss: first.rss });
  let i = 0;
  while ((performance.now() - start) / 1000 < o.seconds) {
    const slice = Math.min(10, o.seconds - (performance.now() - start) / 1000);
    if (slice < 1) break;
    // Each 10 s slice spreads over the endpoints, so all of them run between samples.
    for (const t of targets) await loader.run({ target: t, seconds: slice / targets.length, concurrency: o.concurrency });
    i++;
    const m = await server.request('memory');
    samples.push({ t: (performance.now() - start) / 1000, heap: m.heapUsed, rss: m.rss });
  }
  printTable(
    ['t', 'heap', 'rss'],
    samples.map((s) => [`${fmt(s.t, 0)} s`, MB(s.heap), MB(s.rss)]),
  );
  const half = samples.slice(Math.floor(samples.length / 2));
  const growth = samples[samples.length - 1].heap - Math.min(...half.map((s) => s.heap));
  console.log(`  heap growth over the second half: ${MB(Math.max(0, growth))} (${i} slices); ${growth < 4 * 1048576 ? 'no growth' : 'GROWING'}`);
}
