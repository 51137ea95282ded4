import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Config } from '../config';
import { packageInfo } from '../common/package-info';
import { installTracing } from '../tracing/tracing';

/**
 * Starts OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set: the SDK's tracer provider with a
 * batching OTLP/HTTP (JSON) exporter, registered globally, and the facade (src/tracing/) switched
 * on. Without the setting nothing here runs and no OpenTelemetry package is ever required: the SDK
 * modules are loaded by `require` inside this function only.
 */
let running: { processor: SpanProcessor; provider: { shutdown(): Promise<void> } } | null = null;

export function startTracing(config: Config): boolean {
  if (running) return true;
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return false;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { NodeTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  /* eslint-enable @typescript-eslint/no-require-imports */
  // The generic endpoint names the collector; traces go to its /v1/traces (the OTLP convention).
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` });
  const processor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: config.OTEL_BSP_SCHEDULE_DELAY });
  // Without OTEL_TRACES_SAMPLER the service records one request trace in twenty (OTEL_TRACES_SAMPLE_RATIO),
  // always following a caller's sampled traceparent: a traced request pays for carrying its span across
  // every await, which measured a third of the read bench's throughput with every request traced, and
  // 9% at one in twenty (docs/OPERATIONS.md). OTEL_TRACES_SAMPLER=parentbased_always_on traces all.
  const sampler = process.env.OTEL_TRACES_SAMPLER ? undefined : new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.OTEL_TRACES_SAMPLE_RATIO) });
  const provider = new NodeTracerProvider({
    ...(sampler ? { sampler } : {}),
    resource: resourceFromAttributes({ 'service.name': config.OTEL_SERVICE_NAME, 'service.version': packageInfo().version }),
    spanProcessors: [processor],
  });
  const propagator = new W3CTraceContextPropagator();
  // Global registration (with the async-local-storage context manager) makes the active span follow
  // the request across awaits, which the facade relies on.
  const contextManager = new AsyncLocalStorageContextManager();
  provider.register({ propagator, contextManager });
  installTracing({
    api,
    tracer: api.trace.getTracer('canvas-compatible-lms', packageInfo().version),
    propagator,
    fieldSpans: config.OTEL_GRAPHQL_FIELDS === 'on',
    // The facade pauses the async context while no recorded span is running (src/tracing/tracing.ts).
    pauseContext: () => void contextManager.disable(),
  });
  running = { processor, provider };
  return true;
}

/** Sends the spans still waiting in the batch (a process about to stop calls this). */
export async function flushTracing(): Promise<void> {
  await running?.processor.forceFlush().catch(() => undefined);
}

/** Flushes and stops the SDK; the facade goes back to doing nothing. */
export async function stopTracing(): Promise<void> {
  const r = running;
  if (!r) return;
  running = null;
  installTracing(null);
  await r.provider.shutdown().catch(() => undefined);
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api'); // eslint-disable-line @typescript-eslint/no-require-imports
  api.trace.disable();
  api.context.disable();
  api.propagation.disable();
}
