/**
 * Messages between a cluster's primary and its workers (WEB_CONCURRENCY > 1, src/app/cluster-primary.ts). They
 * carry what would otherwise be one process's memory when REDIS_URL is not configured: GraphQL
 * subscription events (relayed to every worker, as Redis channels would be), the throttle's leaky
 * buckets (kept by the primary, so a client's budget is one across workers), and named notices a worker
 * raises for the primary (the composition root decides what they mean: e.g. the nudge that wakes the
 * primary's webhook dispatcher after a worker commits outbox messages).
 *
 * Every message carries `lms` so other IPC traffic (prom-client, node:cluster's own) is left alone.
 */
export type ToPrimary =
  | { lms: 'pubsub'; channel: string; message: string }
  | { lms: 'throttle'; id: number; key: string; amount: number }
  | { lms: 'notice'; name: string; value: number };

export type ToWorker = { lms: 'pubsub'; channel: string; message: string } | { lms: 'throttle'; id: number; count: number };

export function isRelayMessage<T extends { lms: string }>(m: unknown): m is T {
  return typeof m === 'object' && m !== null && typeof (m as { lms?: unknown }).lms === 'string';
}
