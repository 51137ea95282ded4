import net from 'node:net';

/**
 * Throttle settings for a bucket two anonymous error reports fill: each costs 1.2 units (an expensive
 * route, nothing reserved up front), so a third would pass the high-water mark of 3; the leak, 0.01
 * units a second, is too slow to matter in a test.
 */
export const SMALL_BUCKET: Readonly<Record<string, string>> = {
  RATE_LIMIT: 'on',
  RATE_LIMIT_HWM: '3',
  RATE_LIMIT_MAX: '4',
  RATE_LIMIT_OUTFLOW: '0.01',
  RATE_LIMIT_UP_FRONT: '0',
  RATE_LIMIT_EXPENSIVE_COST: '1.2',
};

/**
 * Throttle settings for a bucket one error report fills: an expensive route costs 60 units, so a
 * second would pass the high-water mark of 100; for tests that share a bucket between processes.
 */
export const ONE_REPORT_BUCKET: Readonly<Record<string, string>> = {
  RATE_LIMIT: 'on',
  RATE_LIMIT_HWM: '100',
  RATE_LIMIT_MAX: '200',
  RATE_LIMIT_OUTFLOW: '0.01',
  RATE_LIMIT_UP_FRONT: '0',
  RATE_LIMIT_EXPENSIVE_COST: '60',
};

/**
 * A TCP relay in front of a real Redis, for tests of a throttle store that goes slow or away:
 * `stall()` keeps connections open but stops passing commands on (Redis never answers them, as when
 * it is overloaded or a network path hangs); `close()` drops every connection and refuses new ones.
 */
export interface RedisRelay {
  url: string;
  stall(): void;
  close(): Promise<void>;
}

export async function redisRelay(redisUrl: string): Promise<RedisRelay> {
  const target = new URL(redisUrl);
  const sockets = new Set<net.Socket>();
  let stalled = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined).on('close', () => sockets.delete(s));
    }
    client.on('data', (chunk) => stalled || upstream.write(chunk));
    upstream.on('data', (chunk) => stalled || client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    stall: () => void (stalled = true),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
