import net from 'node:net';
import type Redis from 'ioredis';

/** The Redis of the tests across instances (CI starts one): TEST_REDIS_URL, or the local default. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether something listens at the URL's host and port (6379 when it names none), waiting a second at most. */
export function reachable(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(u.port || 6379), u.hostname);
    socket.setTimeout(1000);
    socket.on('connect', () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => (socket.destroy(), resolve(false)));
  });
}

/** Fails the tests that need Redis with how to point them at one, rather than with their first timeout. */
export async function requireRedis(): Promise<void> {
  if (!(await reachable(TEST_REDIS_URL))) throw new Error(`these tests need Redis at ${TEST_REDIS_URL} (set TEST_REDIS_URL)`);
}

/** How many connections Redis counts as subscribed to `channel` (PUBSUB NUMSUB). */
export async function subscriberCount(redis: Redis, channel: string): Promise<number> {
  const [, count] = (await redis.pubsub('NUMSUB', channel)) as [string, number | string];
  return Number(count);
}
