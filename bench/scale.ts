/**
 * The scaling bench: does a page cost the same whatever the size of the parent behind it? Builds the
 * 1x / 10x / 100x worlds of scale-world.ts (bulk inserts), and at each size measures every list of
 * scale-lists.ts, first page and deep page of 50, over REST and over GraphQL (the route's own operation),
 * on SQLite and/or MariaDB. Prints p50 latency and CPU per request at each size and the growth from the
 * smallest to the largest world, flagged above 1.5x, and counts the pages that grow so with the same
 * rows on the page (scale-report.ts): where the smallest world's page holds fewer rows than a page (a
 * group of 20, 11 groups), the largest world is also read with per_page = those rows, so a page of the
 * same rows is compared from a parent of 20 to a parent of 2,000. Prints figures and asserts nothing on timings; it
 * fails (exit 1) when a page does not answer, or the two doors answer different row counts.
 *
 *   npm run bench:scale                                  # SQLite and MariaDB, 1x/10x/100x (about 12 minutes)
 *   npm run bench:scale -- --quick                       # 1x/10x, shorter runs (under 2 minutes)
 *   npm run bench:scale -- --db sqlite --sizes 1,10,100 --rounds 5 --json scale.json --only modules,group-users
 *
 * Flags: --db sqlite|mysql|both (both), --mysql-url (mysql://root@127.0.0.1:3306/lms_scale: a database of
 * its own is made on that server and dropped), --sizes (1,10,100: the factors, a cap on the largest world),
 * --quick (--sizes 1,10 --rounds 1 --warmup 0.1), --seconds per target and round (0.5), --rounds (3: every
 * target is measured once per round, rounds interleaved, and the median kept: scale-measure.ts), --warmup (0.3),
 * --concurrency (1: latency is one request's, not a queue's), --only (list keys), --json FILE, --compare DIR (or
 * BENCH_COMPARE: another build's dist/, e.g. of the commit before the paging work, served on the same worlds
 * and measured beside this build in the same run: "before" and "after" tables). BENCH_PROFILE=list:door:page
 * (e.g. course-groups:graphql:first) writes and summarizes a CPU profile of the server at the largest size.
 *
 * Processes: each world size has a database of its own, seeded from this process (an in-process server
 * for the API templates and the data source for the bulk inserts) and served by a child of its own
 * (server-process.ts), so every size is measured in the same interleaved rounds; the load runs in another
 * child (load-worker.ts). CPU per request is the serving process's own CPU time over a run.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Child, forkServer, LoadGenerator } from './children';
import { findPages, PER_PAGE, scaleLists } from './scale-lists';
import { fetcher, loadTarget, measureTargets, Target } from './scale-measure';
import { countsAt, ScaleWorld, seedScaleWorld } from './scale-world';
import { fmt, startBenchServer } from './support';
import { Build, FLAG_ABOVE, report, Sample } from './scale-report';

interface Options {
  engines: ('sqlite' | 'mysql')[];
  mysqlUrl: string;
  sizes: number[];
  /** Seconds per target in each round. */
  seconds: number;
  /** Interleaved rounds per size (scale-measure.ts); a sample is the median over them. */
  rounds: number;
  warmup: number;
  concurrency: number;
  only: string[];
  json?: string;
  /** Another build's dist/ directory, measured as "before" on the same worlds in the same run. */
  compare?: string;
}

/** BENCH_PROFILE=list:door:page (e.g. course-groups:graphql:first): a CPU profile of the server at the largest size. */
const PROFILE = process.env.BENCH_PROFILE ?? '';

function options(argv: string[]): Options {
  const o: Options = { engines: ['sqlite', 'mysql'], mysqlUrl: 'mysql://root@127.0.0.1:3306/lms_scale', sizes: [1, 10, 100], seconds: 0.5, rounds: 3, warmup: 0.3, concurrency: 1, only: [] };
  const num = (flag: string, v: string | undefined) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${flag} needs a number (got ${v})`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    switch (a) {
      case '--db': {
        const v = next();
        if (v === 'both') o.engines = ['sqlite', 'mysql'];
        else if (v === 'sqlite' || v === 'mysql') o.engines = [v];
        else throw new Error(`--db sqlite|mysql|both (got ${v})`);
        break;
      }
      case '--mysql-url':
        o.mysqlUrl = next();
        break;
      case '--sizes':
        o.sizes = next().split(',').map((s) => num('--sizes', s)).filter((n) => n >= 1).sort((x, y) => x - y);
        break;
      case '--quick':
        o.sizes = [1, 10];
        o.seconds = 0.5;
        o.rounds = 1;
        o.warmup = 0.1;
        break;
      case '--seconds':
        o.seconds = num(a, next());
        break;
      case '--rounds':
        o.rounds = Math.max(1, Math.floor(num(a, next())));
        break;
      case '--warmup':
        o.warmup = num(a, next());
        break;
      case '--concurrency':
        o.concurrency = Math.max(1, Math.floor(num(a, next())));
        break;
      case '--only':
        o.only = next().split(',').filter(Boolean);
        break;
      case '--json':
        o.json = next();
        break;
      case '--compare':
        o.compare = next();
        break;
      default:
        throw new Error(`unknown flag ${a} (see bench/scale.ts)`);
    }
  }
  if (!o.sizes.length) throw new Error('--sizes needs at least one factor');
  o.compare ??= process.env.BENCH_COMPARE || undefined;
  return o;
}

type Server = { build: Build; child: Child; port: number };

/**
 * Seeds a world of `size` in a database of its own and starts the build(s) that serve it. Each part is
 * put on `closers` as soon as it exists, so a failure half-way still closes what was opened.
 */
async function openWorld(size: number, o: Options, closers: (() => Promise<void>)[]): Promise<{ world: ScaleWorld; servers: Server[] }> {
  const seed = await startBenchServer();
  closers.push(() => seed.close());
  let t0 = performance.now();
  const world = await seedScaleWorld(seed);
  const templates = (performance.now() - t0) / 1000;
  t0 = performance.now();
  const grown = await world.grow(size);
  const c = countsAt(size);
  console.log(
    `  ${size}x (${seed.db.label}): ${c.students} students, ${c.groups} groups, a group of ${c.members}, ${c.modules} modules x 2 items, a module of ${c.items} items, ${c.notes} notes` +
      ` (templates through the API in ${fmt(templates, 1)} s, ${grown.rows} rows inserted in ${fmt(grown.seconds, 2)} s)`,
  );
  const env = { DATABASE_URL: seed.db.url, LMS_ADMIN_TOKEN: seed.adminToken, LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT: 'off' };
  // The earlier build serves the same database (migrated by this one: its extra columns and indexes
  // are invisible to the old code's reads), so both builds answer on the very same rows.
  const servers: Server[] = [];
  for (const build of o.compare ? (['after', 'before'] as const) : (['after'] as const)) {
    const child = build === 'after' ? forkServer(`server ${size}x`) : forkServer(`server ${size}x (before)`, o.compare);
    closers.push(() => child.close());
    servers.push({ build, child, port: (await child.request<{ port: number }>('start', { env })).port });
  }
  return { world, servers };
}

/**
 * Every world size gets a database and servers of its own, so all sizes are measured in the same
 * interleaved rounds (scale-measure.ts): a growth compares sizes measured side by side, not minutes apart.
 */
async function runEngine(engine: 'sqlite' | 'mysql', o: Options, out: Sample[]): Promise<void> {
  if (engine === 'mysql') process.env.DATABASE_URL = o.mysqlUrl;
  else delete process.env.DATABASE_URL;
  // Closed last-opened first: each world's servers before its database.
  const closers: (() => Promise<void>)[] = [];
  const loader = new LoadGenerator();
  try {
    console.log(`\n== ${engine}`);
    // Rows of each list's first page in the smallest world: where fewer than a page, the largest world
    // is also measured with per_page = those rows, so growth is compared with the same rows on the page.
    const smallRows = new Map<string, number>();
    const targets: Target[] = [];
    for (const size of o.sizes) {
      const { world, servers } = await openWorld(size, o, closers);
      const lists = scaleLists(world).filter((l) => !o.only.length || o.only.includes(l.key));
      const largest = size === o.sizes[o.sizes.length - 1] && size > o.sizes[0];
      for (const l of lists) for (const { build, child, port } of servers) {
        const short = smallRows.get(l.key);
        for (const perPage of largest && short != null && short < PER_PAGE ? [PER_PAGE, short] : [PER_PAGE]) {
          const t0 = performance.now();
          // Each build finds its own deep page: its bookmarks are its own (an older build's are offsets).
          const pages = await findPages(l, fetcher(port), perPage).catch((e: Error) => {
            if (build === 'after') throw e;
            console.log(`    ${l.key} (before): not measured: ${e.message.slice(0, 200)}`);
            return null;
          });
          if (!pages) continue;
          if (size === o.sizes[0] && build === 'after') smallRows.set(l.key, pages.first.rows);
          const parentRows = world.counts[l.parent];
          for (const [which, page] of [['first', pages.first], ['deep', pages.deep]] as const)
            for (const door of ['rest', 'graphql'] as const) targets.push({ size, parentRows, list: l, build, server: child, which, door, page, load: loadTarget(port, l, page, door) });
          const walkedNote = pages.walked ? `, ${pages.walked} pages of 100 walked by bookmark` : '';
          const perPageNote = perPage === PER_PAGE ? '' : ` (per_page ${perPage}: the ${o.sizes[0]}x page's rows)`;
          console.log(`    ${l.key}${build === 'before' ? ' (before)' : ''}${perPageNote}: first ${pages.first.rows} rows, deep ${pages.deep.rows} rows (${pages.deep.path.replace(/^.*\?/, '')})${walkedNote}; found in ${fmt((performance.now() - t0) / 1000, 1)} s`);
        }
      }
    }
    const t0 = performance.now();
    out.push(...(await measureTargets(engine, targets, loader, { ...o, profile: PROFILE || undefined })));
    console.log(`  measured ${targets.length} targets of ${o.sizes.length} world size(s) in ${o.rounds} interleaved round(s): ${fmt((performance.now() - t0) / 1000, 1)} s`);
  } finally {
    loader.close();
    for (const close of closers.reverse()) await close();
  }
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  const started = performance.now();
  console.log('Scaling bench: a page of 50, first and deep, over REST and GraphQL, as the parents grow');
  console.log(`  node ${process.version}; ${os.cpus().length} CPUs; load average ${os.loadavg().map((n) => fmt(n, 1)).join(' ')}`);
  console.log(`  engines: ${o.engines.join(', ')}; sizes: ${o.sizes.map((s) => `${s}x`).join(', ')}; ${o.seconds} s per target after ${o.warmup} s warm-up, concurrency ${o.concurrency}`);
  const samples: Sample[] = [];
  for (const engine of o.engines) await runEngine(engine, o, samples);
  const { grew, sameRows } = report(o, samples);
  const flagged = grew.after;
  // Pages of a list at one size and door, not counting the equal-rows pages read only in the largest world.
  const measured = (b: Build) => samples.filter((s) => s.build === b && s.perPage === PER_PAGE).length / o.sizes.length;
  if (o.compare) console.log(`\nbefore: ${grew.before.length} of ${measured('before')} pages grew more than ${FLAG_ABOVE}x (p50 or CPU)`);
  console.log(`\n${o.compare ? 'after: ' : ''}${flagged.length} of ${measured('after')} pages grew more than ${FLAG_ABOVE}x (p50 or CPU) from ${o.sizes[0]}x to ${o.sizes[o.sizes.length - 1]}x${flagged.length ? ':' : ''}`);
  for (const f of flagged) console.log(`  ${f}`);
  // Both pages full: the growth the parent's size alone causes.
  if (o.compare) console.log(`\nbefore: ${sameRows.before.length} of ${measured('before')} pages grew more than ${FLAG_ABOVE}x with the same rows on the page`);
  console.log(`\n${o.compare ? 'after: ' : ''}${sameRows.after.length} of ${measured('after')} pages grew more than ${FLAG_ABOVE}x (p50 or CPU) with the same rows on the page${sameRows.after.length ? ':' : ''}`);
  for (const f of sameRows.after) console.log(`  ${f}`);
  console.log(`\nran in ${fmt((performance.now() - started) / 1000, 0)} s; load average now ${os.loadavg().map((n) => fmt(n, 1)).join(' ')}`);
  if (o.json) {
    fs.writeFileSync(o.json, JSON.stringify({ options: o, node: process.version, samples, flagged, grewBefore: grew.before, sameRows }, null, 2));
    console.log(`samples written to ${o.json}`);
  }
}

main().catch((e) => {
  console.error(`bench failed: ${(e as Error).stack ?? String(e)}`);
  process.exitCode = 1;
});
