import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** A span as an OTLP/HTTP JSON export carries it, attributes flattened to a plain object. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  status: { code?: number; message?: string };
  /** Resource attributes of the export that carried it. */
  resource: Record<string, string | number | boolean>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

function flat(attrs: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attrs ?? []) {
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? ''));
  }
  return out;
}

/**
 * A real OTLP/HTTP receiver: records every ExportTraceServiceRequest (JSON) posted to /v1/traces and
 * answers as a collector does. What the exporter sends is what the tests read, nothing mocked.
 */
export class OtlpReceiver {
  readonly bodies: unknown[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      this.bodies.push(JSON.parse(raw.toString('utf8')));
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  spans(): ExportedSpan[] {
    const out: ExportedSpan[] = [];
    for (const body of this.bodies as { resourceSpans?: any[] }[]) {
      for (const rs of body.resourceSpans ?? []) {
        const resource = flat(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            out.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              attributes: flat(s.attributes),
              links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({ traceId: l.traceId, spanId: l.spanId })),
              status: s.status ?? {},
              resource,
            });
          }
        }
      }
    }
    return out;
  }

  /** Every span of one trace. */
  trace(traceId: string): ExportedSpan[] {
    return this.spans().filter((s) => s.traceId === traceId);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A fresh W3C trace context, as a client that traces would send it. */
export function clientTraceparent(): { traceId: string; spanId: string; header: string } {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  const traceId = hex(32);
  const spanId = hex(16);
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
}
