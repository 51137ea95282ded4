/**
 * How the scaling bench measures: every (size, list, build, page, door) target is warmed once, then
 * measured in `rounds` interleaved rounds (each round visits every target of every world size once, in
 * the same order), and a sample is the median over the rounds. On this shared machine a burst of load
 * lasts seconds and drifts over minutes; one long run per target lets such a burst land on a single
 * target, and measuring one size after the other lets a drift land on the last size, each turning into
 * a false growth. Interleaving spreads both over every target and the median drops the round it hit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Child, LoadGenerator } from './children';
import type { LoadTarget } from './load-worker';
import { summarizeProfile } from './profile-summary';
import { fetchParsed } from './support';
import { type Page, PER_PAGE, type ScaleList } from './scale-lists';
import type { Build, Door, Sample, Which } from './scale-report';

/** One page of one list in one world, served by one build, over one door. */
export interface Target {
  /** The world's size factor, and the rows of the parent the list follows there. */
  size: number;
  parentRows: number;
  list: ScaleList;
  build: Build;
  server: Child;
  which: Which;
  door: Door;
  page: Page;
  load: LoadTarget;
}

export interface MeasureOptions {
  seconds: number;
  warmup: number;
  concurrency: number;
  rounds: number;
  /** `list:door:page` of the target (in the largest world) whose server is profiled during the first round, if any. */
  profile?: string;
}

export function pct(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] : NaN;
}

const median = (xs: number[]) => pct([...xs].sort((a, b) => a - b), 0.5);

/** The load worker's request for a page over a door. */
export function loadTarget(port: number, l: ScaleList, p: Page, door: Door): LoadTarget {
  const auth = { Authorization: `Bearer ${l.token}` };
  return door === 'rest'
    ? { port, method: 'GET', path: p.path, headers: auth }
    : { port, method: 'POST', path: '/graphql', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(p.graphql) };
}

/** A fetch that reads the body as text and JSON, for finding a list's pages. */
export function fetcher(port: number) {
  return (urlPath: string, init: { method: string; headers: Record<string, string>; body?: string }) => fetchParsed(port, urlPath, init);
}

/**
 * Measures every target, of every world size, in the same interleaved rounds; one sample per target
 * (medians over the rounds). A growth is a ratio between sizes, so the sizes share the rounds: load
 * drifting over the minutes of a run then lands on every size alike instead of on the last one.
 */
export async function measureTargets(engine: 'sqlite' | 'mysql', targets: Target[], loader: LoadGenerator, o: MeasureOptions): Promise<Sample[]> {
  const largest = Math.max(...targets.map((t) => t.size));
  const runs = targets.map(() => ({ cpu: [] as number[], p50: [] as number[], requests: 0 }));
  if (o.warmup) for (const t of targets) await loader.run({ target: t.load, seconds: o.warmup, concurrency: o.concurrency });
  for (let round = 0; round < o.rounds; round++) {
    for (const [i, t] of targets.entries()) {
      const profiling = round === 0 && t.build === 'after' && t.size === largest && t.page.perPage === PER_PAGE && o.profile === `${t.list.key}:${t.door}:${t.which}`;
      if (profiling) await t.server.request('profileStart');
      const cpu0 = await t.server.request<NodeJS.CpuUsage>('cpu');
      const r = await loader.run({ target: t.load, seconds: o.seconds, concurrency: o.concurrency });
      const cpu1 = await t.server.request<NodeJS.CpuUsage>('cpu');
      if (profiling) {
        const file = path.join(os.tmpdir(), `scale-${engine}-${o.profile!.replace(/:/g, '-')}-${Date.now()}.cpuprofile`);
        await t.server.request('profileStop', { file });
        console.log(`    CPU profile of the server, ${o.profile} at ${t.size}x: ${file}`);
        console.log(summarizeProfile(JSON.parse(fs.readFileSync(file, 'utf8'))));
      }
      if (r.errors) throw new Error(`${engine} ${t.build} ${t.list.key} ${t.door} ${t.which} page at ${t.size}x: ${r.errors} failed request(s), first: ${r.firstError}`);
      if (!r.requests) continue;
      runs[i].cpu.push((cpu1.user + cpu1.system - cpu0.user - cpu0.system) / r.requests);
      runs[i].p50.push(pct(r.latencies, 0.5));
      runs[i].requests += r.requests;
    }
  }
  return targets.map((t, i) => ({
    engine,
    build: t.build,
    list: t.list.key,
    door: t.door,
    page: t.which,
    size: t.size,
    parentRows: t.parentRows,
    pageRows: t.page.rows,
    perPage: t.page.perPage,
    requests: runs[i].requests,
    p50Ms: median(runs[i].p50),
    cpuUsPerRequest: median(runs[i].cpu),
  }));
}
