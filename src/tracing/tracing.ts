import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Context, Link, Span, SpanContext, TextMapPropagator, Tracer } from '@opentelemetry/api';

/**
 * The tracing facade every layer may call. It holds nothing and loads nothing until the composition
 * root (src/app/tracing.ts) starts the OpenTelemetry SDK because OTEL_EXPORTER_OTLP_ENDPOINT is set;
 * until then each call is one null check and runs the work as it is. Only type imports of
 * @opentelemetry/api appear here (erased when compiled), so an untraced process never requires it.
 */
export interface TracingBackend {
  api: typeof OtelApi;
  tracer: Tracer;
  /** W3C trace context, to read and write `traceparent`. */
  propagator: TextMapPropagator;
  /** Per-field GraphQL resolver spans (OTEL_GRAPHQL_FIELDS=on). */
  fieldSpans: boolean;
  /** Stops carrying the active context across awaits (it resumes by itself on the next `context.with`). */
  pauseContext(): void;
}

let backend: TracingBackend | null = null;

/**
 * Recording spans whose context is being carried. The async context (AsyncLocalStorage on Node 20's
 * promise hooks) costs every await of the whole process while it is on, whether the awaiting work is
 * traced or not: measured, with one request in ten traced, untraced requests lost 15-30% of their
 * throughput to it. So it is on only while a recorded span's work runs: the last one to end pauses it.
 */
let carried = 0;
function carry(): void {
  carried++;
}
function release(): void {
  if (--carried === 0) backend?.pauseContext();
}

export function installTracing(b: TracingBackend | null): void {
  backend = b;
}

export function tracingOn(): boolean {
  return backend !== null;
}

export function fieldSpansOn(): boolean {
  return backend?.fieldSpans === true;
}

export type { Span };
export type SpanKindName = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

export interface SpanOptions {
  kind?: SpanKindName;
  attributes?: Attributes;
  /** Only inside a traced operation: work that no traced operation started (a background sweep) gets no span. */
  requireParent?: boolean;
  /**
   * The parent as a W3C traceparent (e.g. one stored with a row) instead of the active span; null
   * starts a new trace. Work started from another span's callback then still lands in its own story.
   */
  parent?: string | null;
  /** Other spans this one relates to, as W3C traceparents (null entries are skipped). */
  links?: (string | null | undefined)[];
}

const KINDS: Record<SpanKindName, number> = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 };
const carrierGetter = {
  get: (c: Record<string, unknown>, key: string) => {
    const v = c[key];
    return typeof v === 'string' ? v : Array.isArray(v) ? String(v[0]) : undefined;
  },
  keys: (c: Record<string, unknown>) => Object.keys(c),
};

function linksOf(b: TracingBackend, traceparents: (string | null | undefined)[] | undefined): Link[] | undefined {
  if (!traceparents) return undefined;
  const links: Link[] = [];
  for (const t of traceparents) {
    const sc = t ? b.api.trace.getSpanContext(b.propagator.extract(b.api.ROOT_CONTEXT, { traceparent: t }, carrierGetter)) : undefined;
    if (sc) links.push({ context: sc });
  }
  return links;
}

function parentContext(b: TracingBackend, parent: string | null | undefined): Context {
  if (parent === undefined) return b.api.context.active();
  if (parent === null) return b.api.ROOT_CONTEXT;
  return b.propagator.extract(b.api.ROOT_CONTEXT, { traceparent: parent }, carrierGetter);
}

/**
 * Marks a span failed by the error's class (or a given word, e.g. an HTTP status) only: messages can
 * carry SQL values, URLs or personal data.
 */
export function failSpan(span: Span | undefined, e: unknown): void {
  if (!span || !backend) return;
  const type = typeof e === 'string' ? e : (e as Error)?.name || 'Error';
  span.setAttribute('error.type', type);
  span.setStatus({ code: backend.api.SpanStatusCode.ERROR, message: type });
}

/**
 * Runs `fn` inside a new span (the active one's child, or `parent`'s), ended when `fn` returns or its
 * promise settles; a throw or rejection marks it failed. Without tracing: `fn(undefined)`, nothing else.
 */
export function withSpan<T>(name: string, opts: SpanOptions, fn: (span: Span | undefined) => T): T {
  const b = backend;
  if (!b) return fn(undefined);
  const { api } = b;
  const parent = parentContext(b, opts.parent);
  if (opts.requireParent && !api.trace.getSpan(parent)) return fn(undefined);
  const span = b.tracer.startSpan(name, { kind: KINDS[opts.kind ?? 'internal'], attributes: opts.attributes, links: linksOf(b, opts.links) }, parent);
  // Sampled out: nothing to record below it, and no async context to carry (see startServerSpan).
  if (!span.isRecording()) return fn(undefined);
  carry();
  const finish = () => {
    span.end();
    release();
  };
  return api.context.with(api.trace.setSpan(parent, span), () => {
    let result: T;
    try {
      result = fn(span);
    } catch (e) {
      failSpan(span, e);
      finish();
      throw e;
    }
    if (result && typeof (result as { then?: unknown }).then === 'function') {
      return (result as unknown as Promise<unknown>).then(
        (v) => {
          finish();
          return v;
        },
        (e) => {
          failSpan(span, e);
          finish();
          throw e;
        },
      ) as T;
    }
    finish();
    return result;
  });
}

/**
 * Records a span that has already happened (from `startTime`, epoch ms, to now) in a trace of its own,
 * for work worth a span only once its result is known (a claim that took messages: the empty polls
 * of an idle dispatcher would be a trace a second). Returns its traceparent, for links.
 */
export function recordSpan(name: string, startTime: number, attributes: Attributes): string | null {
  const b = backend;
  if (!b) return null;
  const span = b.tracer.startSpan(name, { kind: KINDS.internal, attributes, startTime }, b.api.ROOT_CONTEXT);
  span.end();
  return traceparentOf(span.spanContext());
}

function traceparentOf(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags.toString(16).padStart(2, '0')}`;
}

/** The active span, if tracing is on and some traced operation is running. */
export function activeSpan(): Span | undefined {
  return backend?.api.trace.getActiveSpan();
}

/** The W3C `traceparent` naming the active span (null without one), to store or send onward. */
export function activeTraceparent(): string | null {
  const span = activeSpan();
  if (!span) return null;
  const sc = span.spanContext();
  return backend!.api.isSpanContextValid(sc) ? traceparentOf(sc) : null;
}

/** An incoming request's span: started from the caller's `traceparent` when it sent one. */
export interface ServerSpan {
  span: Span;
  /** Runs `fn` with the span active. */
  run<T>(fn: () => T): T;
  /** Listeners later added to the emitter run with the span active (a request's body arrives through them). */
  bind<E extends object>(emitter: E): E;
  /** Ends the span (once). */
  end(): void;
}

export function startServerSpan(name: string, headers: Record<string, unknown>, attributes: Attributes): ServerSpan | null {
  const b = backend;
  if (!b) return null;
  const { api } = b;
  const parent = b.propagator.extract(api.ROOT_CONTEXT, headers, carrierGetter);
  const span = b.tracer.startSpan(name, { kind: KINDS.server, attributes }, parent);
  // A request the sampler leaves out runs outside any async context: carrying one costs every await
  // of the request (AsyncLocalStorage on Node 20), and nothing below it would be recorded anyway.
  if (!span.isRecording()) return { span, run: (fn) => fn(), bind: (emitter) => emitter, end: () => span.end() };
  const ctx = api.trace.setSpan(parent, span);
  carry();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    span.end();
    release();
  };
  return { span, run: (fn) => api.context.with(ctx, fn), bind: (emitter) => api.context.bind(ctx, emitter), end };
}
