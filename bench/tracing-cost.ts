/**
 * BENCH_TRACING=1 for the read bench (rest-vs-graphql.ts): a second server runs the same build with
 * tracing on at its defaults (OTEL_EXPORTER_OTLP_ENDPOINT set, nothing else), its spans sent to a
 * local OTLP/HTTP sink that accepts and discards them; its REST and GraphQL rows are measured
 * interleaved with the untraced server's, and the cost is printed as ratios.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fmt, printTable } from './support';

export interface OtlpSink {
  url: string;
  /** Export requests and bytes received so far. */
  stats: { requests: number; bytes: number };
  close(): Promise<void>;
}

/** Answers every OTLP export as a collector would, keeping only counts. */
export async function startOtlpSink(): Promise<OtlpSink> {
  const stats = { requests: 0, bytes: 0 };
  const server = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (stats.bytes += c.length));
    req.on('end', () => {
      stats.requests++;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export interface DoorStat {
  rps: number;
  /** CPU µs of the serving process per request. */
  cpu: number;
  p50: number;
  p99: number;
}

/** Traced over untraced, per endpoint and door: throughput kept, CPU per request, latency. */
export function printTracingCost(rows: { endpoint: string; door: string; off: DoorStat; on: DoorStat }[], sink: OtlpSink, goal = 0.9): void {
  console.log('');
  console.log('Tracing cost: the same build with OTEL_EXPORTER_OTLP_ENDPOINT set (defaults otherwise) vs without, interleaved');
  printTable(
    ['endpoint', 'door', 'req/s off', 'req/s on', 'throughput kept', 'CPU/req off', 'CPU/req on', 'p50 off', 'p50 on'],
    rows.map((r) => [
      r.endpoint,
      r.door,
      fmt(r.off.rps, 0),
      fmt(r.on.rps, 0),
      `${fmt((100 * r.on.rps) / r.off.rps, 1)}%`,
      `${fmt(r.off.cpu, 0)} µs`,
      `${fmt(r.on.cpu, 0)} µs`,
      `${fmt(r.off.p50, 1)} ms`,
      `${fmt(r.on.p50, 1)} ms`,
    ]),
  );
  const kept = rows.map((r) => r.on.rps / r.off.rps);
  const cpu = rows.map((r) => r.off.cpu / r.on.cpu);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(`  throughput kept with tracing on: mean ${fmt(100 * mean(kept), 1)}%, worst ${fmt(100 * Math.min(...kept), 1)}% (target: loses under ${fmt(100 * (1 - goal), 0)}%)`);
  console.log(`  CPU per request, off over on: mean ${fmt(100 * mean(cpu), 1)}%, worst ${fmt(100 * Math.min(...cpu), 1)}%`);
  console.log(`  ${mean(kept) >= goal ? 'met  ' : 'below'} tracing on keeps ${fmt(100 * mean(kept), 1)}% of the untraced throughput (mean over the rows above)`);
  console.log(`  the sink received ${sink.stats.requests} OTLP exports, ${fmt(sink.stats.bytes / 1048576, 1)} MB of spans`);
}
