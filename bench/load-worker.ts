/**
 * The load generator of `npm run bench`, run as a child process (child_process.fork) so the client's
 * work never shares an event loop with the server it measures. The parent sends one LoadJob per
 * message; the worker answers with a LoadReport. Closed loop: `concurrency` keep-alive connections,
 * each issuing the next request as soon as the previous answer has been read.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface LoadTarget {
  port: number;
  method: 'GET' | 'POST';
  path: string;
  headers: http.OutgoingHttpHeaders;
  /** Request body (GraphQL POSTs), as text. */
  body?: string;
}

export interface LoadJob {
  target: LoadTarget;
  seconds: number;
  concurrency: number;
}

export interface LoadReport {
  requests: number;
  errors: number;
  seconds: number;
  bytes: number;
  firstError?: string;
  /** Latencies in ms, sorted ascending (the parent pools them across rounds). */
  latencies: number[];
}

function once(agent: http.Agent, t: LoadTarget, body: Buffer | undefined): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: t.port, method: t.method, path: t.path, headers: t.headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function runLoad({ target, seconds, concurrency }: LoadJob): Promise<LoadReport> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  const body = target.body === undefined ? undefined : Buffer.from(target.body);
  const headers = body ? { ...target.headers, 'Content-Length': body.length } : target.headers;
  const t: LoadTarget = { ...target, headers };
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  let firstError: string | undefined;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const r = await once(agent, t, body);
        latencies.push(performance.now() - t0);
        bytes += r.bytes;
        if (r.status !== 200) {
          errors++;
          firstError ??= `HTTP ${r.status}`;
        }
      } catch (e) {
        errors++;
        firstError ??= (e as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  return { requests: latencies.length, errors, seconds: elapsed, bytes, firstError, latencies: Array.from(Float64Array.from(latencies).sort()) };
}

if (require.main === module && process.send) {
  process.on('message', (job: LoadJob) => {
    runLoad(job).then(
      (report) => process.send!({ ok: true, report }),
      (e: Error) => process.send!({ ok: false, error: e.message }),
    );
  });
  // The parent closing the IPC channel ends the worker.
  process.on('disconnect', () => process.exit(0));
}
