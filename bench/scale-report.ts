/** What bench/scale.ts measured, and the tables and counts it prints from it. */
import { fmt, printTable } from './support';
import { PER_PAGE } from './scale-lists';

/** A page is flagged when its p50 or CPU per request grows more than this. */
export const FLAG_ABOVE = 1.5;

export type Door = 'rest' | 'graphql';
export type Which = 'first' | 'deep';
/** This build, or the --compare build ("before") serving the same database. */
export type Build = 'after' | 'before';

/** One measured target: a list's page through one door at one size. */
export interface Sample {
  engine: string;
  build: Build;
  list: string;
  door: Door;
  page: Which;
  size: number;
  /** Rows of the parent the list follows, and rows on the page. */
  parentRows: number;
  pageRows: number;
  /** The per_page asked: PER_PAGE, or the smallest world's row count (the equal-rows pages). */
  perPage: number;
  requests: number;
  p50Ms: number;
  cpuUsPerRequest: number;
}

/** The options the report reads (bench/scale.ts Options). */
export interface ReportOptions {
  engines: string[];
  sizes: number[];
  compare?: string;
}

const ms = (n: number) => (n >= 100 ? fmt(n, 0) : n >= 10 ? fmt(n, 1) : fmt(n, 2));

/**
 * Prints the tables of each engine (and build, with --compare); returns, per build, the pages that grew
 * more than FLAG_ABOVE from the smallest size to the largest (`grew`) and those that grew so with the same
 * rows on the page (`sameRows`: the parent's size alone, without the rows a 1x page lacks). The same rows
 * are the largest world's page asked with per_page = the smallest world's rows, when the bench measured
 * it (from 1x to 100x, as the issue asks); else the smallest world whose page is as full as the largest's.
 */
export function report(o: ReportOptions, samples: Sample[]): { grew: Record<Build, string[]>; sameRows: Record<Build, string[]> } {
  const lo = o.sizes[0];
  const hi = o.sizes[o.sizes.length - 1];
  const grew: Record<Build, string[]> = { after: [], before: [] };
  const sameRows: Record<Build, string[]> = { after: [], before: [] };
  for (const engine of o.engines) for (const build of ['before', 'after'] as const) {
    const flagged = grew[build];
    const all = samples.filter((s) => s.engine === engine && s.build === build);
    const mine = all.filter((s) => s.perPage === PER_PAGE);
    if (!mine.length) continue;
    const keys = [...new Set(mine.map((s) => s.list))];
    const rows: (string | number)[][] = [];
    for (const list of keys) {
      for (const door of ['rest', 'graphql'] as const) {
        for (const page of ['first', 'deep'] as const) {
          const at = (size: number) => mine.find((s) => s.list === list && s.door === door && s.page === page && s.size === size);
          const a = at(lo);
          const b = at(hi);
          const growth = a && b ? b.p50Ms / a.p50Ms : NaN;
          const cpuGrowth = a && b ? b.cpuUsPerRequest / a.cpuUsPerRequest : NaN;
          // The parent's size alone, without the rows a 1x page lacks: the largest world's page asked
          // for the smallest world's rows, against the smallest world's page; else growth from the
          // smallest world whose page holds as many rows as the largest one's.
          const short = a && b && a.pageRows < b.pageRows ? all.find((s) => s.list === list && s.door === door && s.page === page && s.size === hi && s.perPage === a.pageRows) : undefined;
          const [from, to] = short ? [a, short] : [b ? o.sizes.map(at).find((s) => s && s.pageRows === b.pageRows) : undefined, b];
          const same = from && to && from.size < hi;
          const fullGrowth = same ? to.cpuUsPerRequest / from.cpuUsPerRequest : NaN;
          const fullP50 = same ? to.p50Ms / from.p50Ms : NaN;
          const fromLabel = same ? `${from.size}x, ${to.pageRows} rows` : '';
          if (fullGrowth > FLAG_ABOVE || fullP50 > FLAG_ABOVE) {
            sameRows[build].push(`${engine} ${list} ${door} ${page}: p50 ${fmt(fullP50, 1)}x, CPU ${fmt(fullGrowth, 1)}x (from ${fromLabel})`);
          }
          const flag = hi > lo && (growth > FLAG_ABOVE || cpuGrowth > FLAG_ABOVE);
          if (flag) flagged.push(`${engine} ${list} ${door} ${page}: p50 ${fmt(growth, 1)}x, CPU ${fmt(cpuGrowth, 1)}x`);
          rows.push([
            door === 'rest' && page === 'first' ? list : '',
            door === 'rest' ? 'REST' : 'GraphQL',
            page,
            ...o.sizes.map((s) => (at(s) ? ms(at(s)!.p50Ms) : '-')),
            hi > lo ? `${fmt(growth, 1)}x` : '-',
            ...[lo, hi].filter((s, i, xs) => xs.indexOf(s) === i).map((s) => (at(s) ? fmt(at(s)!.cpuUsPerRequest, 0) : '-')),
            hi > lo ? `${fmt(cpuGrowth, 1)}x` : '-',
            // A parent smaller than a page (20 members, 11 groups) gives a smaller page at 1x: part of
            // the growth is then rows, not parent size.
            a && b ? `${a.pageRows}/${b.pageRows}` : '-',
            Number.isNaN(fullGrowth) ? '-' : `${fmt(fullP50, 1)}x / ${fmt(fullGrowth, 1)}x (${fromLabel})`,
            flag ? 'GROWS' : '',
          ]);
        }
      }
    }
    const title = o.compare ? `${engine}, ${build === 'before' ? `before (${o.compare})` : 'after (this build)'}` : engine;
    console.log(`\n${title}: p50 latency (ms) of a page of ${PER_PAGE} at each size; CPU µs per request of the server; growth ${hi}x/${lo}x`);
    printTable(
      [
        'list',
        'door',
        'page',
        ...o.sizes.map((s) => `p50 ${s}x`),
        `p50 ${hi}x/${lo}x`,
        ...[lo, hi].filter((s, i, xs) => xs.indexOf(s) === i).map((s) => `CPU ${s}x`),
        `CPU ${hi}x/${lo}x`,
        `rows ${lo}x/${hi}x`,
        `p50 / CPU ${hi}x, same rows`,
        `>${FLAG_ABOVE}x`,
      ],
      rows,
    );
  }
  return { grew, sameRows };
}

