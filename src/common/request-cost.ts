import type { IncomingMessage } from 'node:http';

/**
 * Extra throttle cost a request adds beyond its time (e.g. a GraphQL operation's computed complexity).
 * Keyed by the raw Node request so the GraphQL layer can charge a cost that the HTTP rate limiter reads
 * when the response ends, without either module knowing the other.
 */
const extra = new WeakMap<IncomingMessage, number>();

export function addRequestCost(req: IncomingMessage, units: number): void {
  if (!Number.isFinite(units) || units <= 0) return;
  extra.set(req, (extra.get(req) ?? 0) + units);
}

export function requestCost(req: IncomingMessage): number {
  return extra.get(req) ?? 0;
}
