import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { reportDrift } from './drift';
import { wsResultProblem } from './event-catalog';

export interface WsClient {
  client: Client;
  /** Resolves with the close code once the socket closes. */
  closed: Promise<number>;
}

/** A graphql-ws client against the test server, authenticating in connection_init. */
export function wsClient(httpUrl: string, token: string | null): WsClient {
  let onClose!: (code: number) => void;
  const closed = new Promise<number>((resolve) => (onClose = resolve));
  const client = createClient({
    url: `${httpUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { Authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
    on: { closed: (e) => onClose((e as { code: number }).code) },
  });
  // Every subscription result is held to its channel in the event catalog (a drift fails the test).
  const subscribe = client.subscribe.bind(client);
  client.subscribe = ((payload, sink) =>
    subscribe(payload, {
      ...sink,
      next: (result) => {
        const problem = wsResultProblem(result as { data?: Record<string, unknown> | null });
        if (problem) reportDrift(problem);
        sink.next(result as never);
      },
    })) as Client['subscribe'];
  return { client, closed };
}

/** Runs one operation over the socket and returns its first result. */
export function wsRequest<T = any>(client: Client, query: string, variables: Record<string, unknown> = {}): Promise<{ data?: T; errors?: unknown[] }> {
  return new Promise((resolve, reject) => {
    let result: { data?: T; errors?: unknown[] } | undefined;
    client.subscribe<T>(
      { query, variables },
      {
        next: (r) => (result = r as { data?: T; errors?: unknown[] }),
        error: reject,
        complete: () => (result ? resolve(result) : reject(new Error('no result'))),
      },
    );
  });
}
