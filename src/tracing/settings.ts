import { z } from 'zod';

/**
 * The tracing settings, part of the service's configuration (src/config.ts). The OpenTelemetry SDK
 * reads its own standard variables besides these (OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER,
 * OTEL_TRACES_SAMPLER_ARG, OTEL_BSP_MAX_QUEUE_SIZE …); see docs/CONFIGURATION.md#tracing.
 */
export const tracingSettings = z.object({
  /** An OTLP/HTTP collector, e.g. http://otel-collector:4318; spans go to <endpoint>/v1/traces. Unset: no tracing, nothing loaded. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .refine((v) => /^https?:\/\//.test(v), { message: 'must be an http(s) URL such as http://otel-collector:4318' })
    .optional(),
  /** The service.name resource attribute of every span. */
  OTEL_SERVICE_NAME: z.string().min(1).max(128).default('canvas-compatible-lms'),
  /** How long finished spans wait to be sent in a batch, in ms (the SDK's default). */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).max(60_000).default(5_000),
  /**
   * The share of requests (without a caller's sampled traceparent) traced when OTEL_TRACES_SAMPLER is
   * unset; the SDK's own OTEL_TRACES_SAMPLER/OTEL_TRACES_SAMPLER_ARG replace this when set.
   */
  OTEL_TRACES_SAMPLE_RATIO: z.coerce.number().min(0).max(1).default(0.05),
  /** A span per GraphQL field resolver: on request only, as wrapping every resolver costs much of GraphQL's speed. */
  OTEL_GRAPHQL_FIELDS: z.enum(['on', 'off']).default('off'),
});

export type TracingSettings = z.infer<typeof tracingSettings>;
