import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { In } from 'typeorm';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { Dispatcher } from '../src/webhooks/dispatcher';
import { WebhookAttempt } from '../src/webhooks/webhook-attempt.entity';
import { LocalSqs, startLocalSqs, subscription, toolProxy, waitFor, webhookRoom, WebhookRoom } from './support/webhooks';

/**
 * SQS subscriptions are sent in SendMessageBatch calls of up to 10 (src/webhooks/sqs-transport.ts).
 * Between the dispatcher and the local SQS server sits a proxy that sees every call (so the test
 * counts calls and entries where they arrive) and can refuse chosen entries of a batch the way SQS
 * does (the call succeeds, the entry is listed under `Failed`).
 */
interface Call {
  action: string;
  /** message_id attributes of the entries (SendMessage: one). */
  messageIds: string[];
}

let sqs: LocalSqs;
let proxy: http.Server;
let w: WebhookRoom;
const calls: Call[] = [];
/** message ids whose first batch entry the proxy refuses. */
const refuseOnce = new Set<string>();

const messageIdOf = (e: { MessageAttributes?: Record<string, { StringValue?: string }> }) => e.MessageAttributes?.message_id?.StringValue ?? '';

beforeAll(async () => {
  sqs = await startLocalSqs();
  const upstream = new URL(sqs.endpoint);
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const action = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
      let body = Buffer.concat(chunks);
      let refused: { Id: string; SenderFault: boolean; Code: string; Message: string }[] = [];
      if (action === 'SendMessageBatch' || action === 'SendMessage') {
        const doc = JSON.parse(body.toString('utf8'));
        const entries: { Id: string; MessageAttributes?: Record<string, { StringValue?: string }> }[] = action === 'SendMessage' ? [doc] : doc.Entries;
        calls.push({ action, messageIds: entries.map(messageIdOf) });
        if (action === 'SendMessageBatch') {
          const out = entries.filter((e) => refuseOnce.delete(messageIdOf(e)));
          refused = out.map((e) => ({ Id: e.Id, SenderFault: false, Code: 'InternalError', Message: 'refused by the test proxy' }));
          doc.Entries = entries.filter((e) => !out.includes(e));
          body = Buffer.from(JSON.stringify(doc));
        }
      }
      if (refused.length && action === 'SendMessageBatch' && JSON.parse(body.toString('utf8')).Entries.length === 0) {
        // Every entry refused: SQS answers the call itself (the emulator refuses an empty batch).
        const text = JSON.stringify({ Successful: [], Failed: refused });
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(Buffer.byteLength(text)) }).end(text);
        return;
      }
      const headers = { ...req.headers, host: upstream.host, 'content-length': String(body.length) };
      const up = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          let text = Buffer.concat(parts);
          if (refused.length && answer.statusCode === 200) {
            const doc = JSON.parse(text.toString('utf8'));
            doc.Failed = [...(doc.Failed ?? []), ...refused];
            text = Buffer.from(JSON.stringify(doc));
          }
          res.writeHead(answer.statusCode ?? 500, { ...answer.headers, 'content-length': String(text.length) }).end(text);
        });
      });
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  // local-aws-sqs names its queues under account 123456789012 (and finds a queue by name alone).
  w = await webhookRoom({ env: { WEBHOOK_DISPATCHER: 'off', SQS_ENDPOINT: endpoint, SQS_ACCESS_KEY_ID: 'test', SQS_SECRET_ACCESS_KEY: 'test', SQS_ALLOWED_ACCOUNT_IDS: '123456789012' } });
});
afterAll(async () => {
  await w.close();
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await sqs.close();
});

/** `n` SQS subscriptions of one tool to the course's grade changes, all to one new queue. */
async function sqsSubscriptions(n: number) {
  const queueUrl = await sqs.queue(`batch-${Date.now()}-${n}`);
  const tool = await toolProxy(w.server);
  for (let i = 0; i < n; i++) {
    await subscription(w.server, { tool, context: { type: 'course', id: w.room.course.id }, eventTypes: ['grade_change'], transport: 'sqs', url: queueUrl });
  }
  return { queueUrl, tool };
}

const dispatcher = (batch: number) =>
  new Dispatcher({ ds: w.server.app.ds, config: { ...w.server.app.config, WEBHOOK_BATCH_SIZE: batch, WEBHOOK_CONCURRENCY: batch }, tokenKey: w.server.app.tokenKey });

it('a burst to an SQS subscription arrives complete in SendMessageBatch calls of up to 10', async () => {
  const N = 25;
  const { queueUrl, tool } = await sqsSubscriptions(N);
  await w.gradeChange();
  const rows = await w.server.app.ds.getRepository(OutboxMessage).findBy({ toolProxyId: tool.id });
  expect(rows).toHaveLength(N);
  calls.length = 0;
  const d = dispatcher(N);
  expect(await d.drain()).toBe(N);
  await d.stop();

  // Batched: no single sends, at most 10 entries a call, and fewer calls than messages (25 in 3 when
  // one claim launches them together).
  expect(calls.filter((c) => c.action === 'SendMessage')).toHaveLength(0);
  const batches = calls.filter((c) => c.action === 'SendMessageBatch');
  expect(batches.every((c) => c.messageIds.length <= 10)).toBe(true);
  expect(batches.length).toBeLessThanOrEqual(Math.ceil(N / 10));
  expect(batches.flatMap((c) => c.messageIds).sort()).toEqual(rows.map((m) => m.messageId).sort());

  const received = await sqs.receiveAll(queueUrl);
  expect(received.map((r) => r.attributes.message_id).sort()).toEqual(rows.map((m) => m.messageId).sort());
  const after = await w.server.app.ds.getRepository(OutboxMessage).findBy({ toolProxyId: tool.id });
  expect(after.every((m) => m.status === 'delivered')).toBe(true);
});

it('a partly refused batch retries only the refused entries', async () => {
  const N = 12;
  const { queueUrl, tool } = await sqsSubscriptions(N);
  await w.gradeChange();
  const rows = await w.server.app.ds.getRepository(OutboxMessage).find({ where: { toolProxyId: tool.id }, order: { id: 'ASC' } });
  expect(rows).toHaveLength(N);
  const refusedIds = [rows[1], rows[4], rows[10]].map((m) => m.messageId);
  for (const id of refusedIds) refuseOnce.add(id);
  calls.length = 0;
  const d = dispatcher(N).start();
  try {
    await waitFor('every message delivered', async () => {
      const now = await w.server.app.ds.getRepository(OutboxMessage).findBy({ toolProxyId: tool.id });
      return now.every((m) => m.status === 'delivered');
    });
  } finally {
    await d.stop();
  }
  expect(refuseOnce.size).toBe(0);

  // Every message was sent once, and the refused ones once more: nothing accepted was sent again.
  const sent = calls.filter((c) => c.action === 'SendMessageBatch').flatMap((c) => c.messageIds);
  for (const m of rows) expect(sent.filter((id) => id === m.messageId)).toHaveLength(refusedIds.includes(m.messageId) ? 2 : 1);
  const received = await sqs.receiveAll(queueUrl);
  expect(received.map((r) => r.attributes.message_id).sort()).toEqual(rows.map((m) => m.messageId).sort());

  // The refused entries have a failed first attempt (with SQS's error) and a successful second one.
  const attempts = await w.server.app.ds.getRepository(WebhookAttempt).find({ where: { outboxMessageId: In(rows.map((m) => m.id)) }, order: { attempt: 'ASC' } });
  for (const m of rows) {
    const mine = attempts.filter((a) => a.outboxMessageId === m.id);
    if (refusedIds.includes(m.messageId)) {
      expect(mine.map((a) => [a.attempt, a.errorClass])).toEqual([
        [1, 'transport'],
        [2, null],
      ]);
      expect(mine[0].error).toContain('InternalError');
    } else expect(mine.map((a) => [a.attempt, a.errorClass])).toEqual([[1, null]]);
  }
});

it('the dispatcher sends nothing to a queue of an account SQS_ALLOWED_ACCOUNT_IDS does not list (issue 19, item 11)', async () => {
  // Subscriptions are checked when made; this row is written past the API (as one made before the list
  // changed would be), naming an existing queue under another owner account. The emulator finds queues
  // by name alone, so only the dispatcher's own check keeps the service's credentials off it.
  const queueUrl = await sqs.queue(`foreign-${Date.now()}`);
  const foreign = queueUrl.replace('/123456789012/', '/210987654321/');
  expect(foreign).not.toBe(queueUrl);
  const tool = await toolProxy(w.server);
  await subscription(w.server, { tool, context: { type: 'course', id: w.room.course.id }, eventTypes: ['grade_change'], transport: 'sqs', url: foreign });
  await w.gradeChange();
  const [row] = await w.server.app.ds.getRepository(OutboxMessage).findBy({ toolProxyId: tool.id });
  calls.length = 0;
  // The earlier tests' subscriptions get this grade change too (and are sent it).
  const d = dispatcher(50);
  expect(await d.drain()).toBeGreaterThanOrEqual(1);
  await d.stop();

  expect(calls.flatMap((c) => c.messageIds)).not.toContain(row.messageId);
  expect(await sqs.receiveAll(queueUrl)).toEqual([]);
  const [attempt] = await w.server.app.ds.getRepository(WebhookAttempt).findBy({ outboxMessageId: row.id });
  expect(attempt).toMatchObject({ attempt: 1, errorClass: 'refused_destination' });
  expect(attempt.error).toContain('SQS_ALLOWED_ACCOUNT_IDS');
  expect((await w.server.app.ds.getRepository(OutboxMessage).findOneByOrFail({ id: row.id })).status).not.toBe('delivered');
});
