import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import { In } from 'typeorm';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { Dispatcher } from '../src/webhooks/dispatcher';
import { WebhookAttempt } from '../src/webhooks/webhook-attempt.entity';
import { subscription, testCertificate, toolProxy, webhookRoom, WebhookRoom } from './support/webhooks';

// Timing-sensitive (real processes, sockets and timers on a shared 2-core machine): a failure is retried
// twice before it counts, and every failed try is logged. A consistent failure still fails.
jest.retryTimes(2, { logErrorsBeforeRetry: true });

/**
 * Throughput (issue 13): a dispatcher records successful deliveries in batches (one transaction of
 * a few statements for many messages, src/webhooks/success-batch.ts) instead of a transaction per
 * message, and each message still gets its result and its own attempt row. The receiver here holds
 * every answer until all N requests have arrived and then answers them together, so the successes
 * come back at once, as they do under load.
 */
const N = 100;
let w: WebhookRoom;
let receiver: https.Server;
let held: ServerResponse[] = [];
let port = 0;
let caFile: string;

beforeAll(async () => {
  w = await webhookRoom({ env: { WEBHOOK_DISPATCHER: 'off' } });
  const tls = await testCertificate();
  caFile = tls.caFile;
  // Answers held requests together: once all N have arrived, or 300 ms after the latest arrival when a
  // dispatcher sends them in more than one wave (a claim need not take every due row at once).
  let timer: NodeJS.Timeout | undefined;
  const answerHeld = () => {
    clearTimeout(timer);
    for (const r of held.splice(0)) r.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
  };
  receiver = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      held.push(res);
      clearTimeout(timer);
      if (held.length >= N) answerHeld();
      else timer = setTimeout(answerHeld, 300);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await w.close();
});

it(`records ${N} successes with fewer statements than messages, each with its result and attempt row`, async () => {
  const tool = await toolProxy(w.server);
  for (let i = 0; i < N; i++) {
    await subscription(w.server, { tool, context: { type: 'course', id: w.room.course.id }, eventTypes: ['grade_change'], url: `https://127.0.0.1:${port}/batched/${i}` });
  }
  await w.gradeChange();
  const rows = await w.server.app.ds.getRepository(OutboxMessage).findBy({ toolProxyId: tool.id });
  expect(rows).toHaveLength(N);
  const dispatcher = new Dispatcher({
    ds: w.server.app.ds,
    config: { ...w.server.app.config, WEBHOOK_CA_FILE: caFile, WEBHOOK_BATCH_SIZE: N, WEBHOOK_CONCURRENCY: N },
    tokenKey: w.server.app.tokenKey,
  });
  const before = w.server.queryCount();
  const startedBy = Date.now();
  expect(await dispatcher.drain()).toBe(N);
  const endedBy = Date.now();
  const statements = w.server.queryCount() - before;
  await dispatcher.stop();

  const after = await w.server.app.ds.getRepository(OutboxMessage).findBy({ toolProxyId: tool.id });
  expect(after.every((m) => m.status === 'delivered' && m.lastStatusCode === 200 && m.deliveredAt && m.lastAttemptAt && m.firstAttemptAt && !m.leaseToken)).toBe(true);
  const attempts = await w.server.app.ds.getRepository(WebhookAttempt).findBy({ outboxMessageId: In(after.map((m) => m.id)) });
  expect(attempts).toHaveLength(N);
  expect(attempts.every((a) => a.attempt === 1 && a.statusCode === 200 && a.errorClass === null && a.responseBody === '{"ok":true}')).toBe(true);
  // The times written for the batch are each message's own, read back as the same instants.
  const within = (d: Date | null) => d != null && d.getTime() >= startedBy - 1000 && d.getTime() <= endedBy + 1000;
  for (const m of after) {
    const a = attempts.find((x) => x.outboxMessageId === m.id)!;
    expect(within(a.startedAt) && within(m.deliveredAt)).toBe(true);
    expect([m.lastAttemptAt!.getTime(), m.firstAttemptAt!.getTime()]).toEqual([a.startedAt.getTime(), a.startedAt.getTime()]);
  }
  // A transaction per message wrote at least three statements each (UPDATE, INSERT, COMMIT).
  expect(statements).toBeLessThan(N);
});
