import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { generate } from 'selfsigned';
import { Account } from '../../src/accounts/account.entity';
import { encryptSecret } from '../../src/lti/lti-keys';
import { ToolProxy } from '../../src/lti/tool-proxy.entity';
import { WebhookSubscription } from '../../src/webhooks/webhook-subscription.entity';
import { contentRoom, ContentRoom } from './content';
import { reportDrift } from './drift';
import { deliveryProblem } from './event-catalog';
import { startTestServer, TestServer } from './server';
import { World, WorldUser } from './world';

// ---- a real HTTPS receiver ---------------------------------------------------------------------

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  at: number;
}

/** A certificate for localhost and 127.0.0.1, generated for this test run, and its PEM file. */
export async function testCertificate(): Promise<{ key: string; cert: string; caFile: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    notAfterDate: new Date(Date.now() + 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const caFile = path.join(os.tmpdir(), `webhook-test-ca-${process.pid}-${randomBytes(4).toString('hex')}.pem`);
  fs.writeFileSync(caFile, pems.cert);
  return { key: pems.private, cert: pems.cert, caFile };
}

/** The receiver's answer: a status after an optional delay, with extra headers (e.g. Retry-After) and a body ('{}' by default). */
export type Responder = (r: Received) => { status: number; delayMs?: number; headers?: Record<string, string>; body?: string } | 'hang';

/**
 * A local HTTPS server that records every webhook POST. `respond` decides the answer (200 by
 * default, 'hang' never answers); `down()` stops listening and `up()` listens again on the same port.
 */
export class HttpsReceiver {
  readonly received: Received[] = [];
  respond: Responder = () => ({ status: 200 });
  private server: https.Server;
  private readonly sockets = new Set<import('node:stream').Duplex>();
  port = 0;

  constructor(private readonly tls: { key: string; cert: string }) {
    this.server = this.make();
  }

  private make(): https.Server {
    const server = https.createServer({ key: this.tls.key, cert: this.tls.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(body);
        } catch {
          // recorded as text
        }
        const r: Received = { path: req.url ?? '', headers: req.headers as Record<string, string>, body, json, at: Date.now() };
        this.received.push(r);
        // Every webhook delivery is held to the event catalog (a drift fails the test it arrives in).
        if (r.headers['x-event-name']) {
          const problem = deliveryProblem('https', r.headers, body);
          if (problem) reportDrift(problem);
        }
        const answer = this.respond(r);
        if (answer === 'hang') return;
        setTimeout(() => res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers }).end(answer.body ?? '{}'), answer.delayMs ?? 0);
      });
    });
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    return server;
  }

  async up(): Promise<this> {
    if (this.server.listening) return this;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Stops listening and drops open connections (deliveries then fail with ECONNREFUSED). */
  async down(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
    this.server = this.make();
  }

  url(pathname = '/hook', host = '127.0.0.1'): string {
    return `https://${host}:${this.port}${pathname}`;
  }

  /** Messages received at one path, once each (deduplicated by X-Message-Id, as receivers should). */
  at(pathname: string): Received[] {
    const seen = new Set<string>();
    return this.all(pathname).filter((r) => {
      const id = r.headers['x-message-id'];
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  }

  /** Every request received at one path, repeats included. */
  all(pathname: string): Received[] {
    return this.received.filter((r) => r.path === pathname);
  }

  clear(): void {
    this.received.length = 0;
  }
}

// ---- a local SQS-compatible server ------------------------------------------------------------

export interface LocalSqs {
  endpoint: string;
  client: SQSClient;
  queue(name: string): Promise<string>;
  receiveAll(queueUrl: string): Promise<{ body: string; json: any; attributes: Record<string, string> }[]>;
  close(): Promise<void>;
}

export async function startLocalSqs(): Promise<LocalSqs> {
  const server = await createSqsServer({ port: 0, hostname: '127.0.0.1', emulateQueueCreationLifecycle: false } as never);
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new SQSClient({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, useQueueUrlAsEndpoint: false });
  return {
    endpoint,
    client,
    async queue(name) {
      const res = await client.send(new CreateQueueCommand({ QueueName: name }));
      return res.QueueUrl!;
    },
    async receiveAll(queueUrl) {
      const out: { body: string; json: any; attributes: Record<string, string> }[] = [];
      for (;;) {
        const res = await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], WaitTimeSeconds: 0 }));
        const msgs = res.Messages ?? [];
        if (!msgs.length) return out;
        for (const m of msgs) {
          const attributes = Object.fromEntries(Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue ?? '']));
          // Once each (a send that timed out yet arrived is sent again: at-least-once).
          if (!out.some((o) => o.attributes.message_id === attributes.message_id)) {
            const problem = deliveryProblem('sqs', attributes, m.Body ?? '');
            if (problem) reportDrift(problem);
            out.push({ body: m.Body ?? '', json: JSON.parse(m.Body ?? 'null'), attributes });
          }
          await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle! }));
        }
      }
    },
    async close() {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---- tool proxies and subscriptions, straight into the database --------------------------------

export const ALL_EVENTS = ['submission_created', 'submission_updated', 'grade_change', 'attachment_created', 'quiz_submitted', 'plagiarism_resubmit'];

export async function rootAccount(server: TestServer): Promise<Account> {
  return server.app.ds.getRepository(Account).findOneOrFail({ where: {}, order: { id: 'ASC' } });
}

export async function toolProxy(server: TestServer, name = 'Plagiarism Tool'): Promise<ToolProxy> {
  const root = await rootAccount(server);
  const repo = server.app.ds.getRepository(ToolProxy);
  return repo.save(
    repo.create({
      guid: randomUUID(),
      name,
      sharedSecretEncrypted: encryptSecret(server.app.tokenKey, randomBytes(32).toString('hex')),
      capabilities: JSON.stringify(['vnd.instructure.webhooks.root_account.all']),
      contextType: 'Account',
      contextId: root.id,
      accountId: root.id,
      rootAccountId: root.id,
      createdById: null,
      workflowState: 'active',
    }),
  );
}

export interface SubscriptionSpec {
  tool: ToolProxy;
  context: { type: 'assignment' | 'course' | 'account' | 'root_account'; id: number };
  eventTypes: string[];
  format?: 'live-event' | 'caliper';
  transport?: 'https' | 'sqs';
  url: string;
}

const MATCH: Record<SubscriptionSpec['context']['type'], string> = { assignment: 'Assignment', course: 'Course', account: 'Account', root_account: 'Account' };

export async function subscription(server: TestServer, spec: SubscriptionSpec): Promise<WebhookSubscription> {
  const root = await rootAccount(server);
  const repo = server.app.ds.getRepository(WebhookSubscription);
  const now = new Date();
  now.setMilliseconds(0);
  return repo.save(
    repo.create({
      id: randomUUID(),
      toolProxyId: spec.tool.id,
      contextType: spec.context.type,
      contextId: spec.context.type === 'root_account' ? root.uuid : String(spec.context.id),
      matchType: MATCH[spec.context.type],
      matchId: spec.context.id,
      rootAccountId: root.id,
      eventTypes: JSON.stringify(spec.eventTypes),
      format: spec.format ?? 'live-event',
      transportType: spec.transport ?? 'https',
      transportUrl: spec.url,
      developerKey: '10000000000001',
      state: 'Active',
      consecutiveFailures: 0,
      deactivatedAt: null,
      deactivationReason: null,
      createdAt: now,
      updatedAt: now,
    }),
  );
}

// ---- waiting --------------------------------------------------------------------------------------

export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Configuration for a test server that delivers to local receivers quickly. */
export function fastDeliveryEnv(caFile: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
    WEBHOOK_CA_FILE: caFile,
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_RETRY_BASE_MS: '20',
    WEBHOOK_RETRY_MAX_MS: '200',
    WEBHOOK_TIMEOUT_MS: '2000',
    ...extra,
  };
}

// ---- the delivery tests' common start: receivers, a server delivering to them, a graded course -----

export interface WebhookRoom {
  server: TestServer;
  world: World;
  room: ContentRoom;
  /** Local HTTPS receivers, listening, whose certificate the server trusts. */
  receivers: HttpsReceiver[];
  /** A published assignment in the course, already submitted to once by the student. */
  assignmentId: number;
  /** The teacher changes the student's grade: grade_change (and submission_updated) for the course. */
  gradeChange(): Promise<void>;
  /** A new attempt by the student: submission_created. */
  submit(): Promise<void>;
  /** Stops the server, then the receivers, and removes the certificate file. */
  close(): Promise<void>;
}

/**
 * A test certificate, `receivers` HTTPS receivers using it, a server delivering to them quickly
 * (fastDeliveryEnv plus `env`), and a course whose student has submitted to one assignment, so a
 * grade change has a submission to grade. Call in beforeAll; close() in afterAll.
 */
export async function webhookRoom(opts: { receivers?: number; env?: Record<string, string> } = {}): Promise<WebhookRoom> {
  const tls = await testCertificate();
  const receivers: HttpsReceiver[] = [];
  for (let i = 0; i < (opts.receivers ?? 1); i++) receivers.push(await new HttpsReceiver(tls).up());
  const server = await startTestServer(fastDeliveryEnv(tls.caFile, opts.env));
  const world = new World(server);
  const room = await contentRoom(world);
  const assignmentId = await essayAssignment(room.teacher, room.course.id);
  const submissions = `/api/v1/courses/${room.course.id}/assignments/${assignmentId}/submissions`;
  // Counters make each grade and attempt differ from the one before, so each is a change.
  let grade = 0;
  let attempt = 0;
  const gradeChange = async () => {
    grade++;
    const res = await room.teacher.api.put(`${submissions}/${room.student.id}`, { submission: { posted_grade: String(grade % 10) } });
    expect(res.status).toBe(200);
  };
  const submit = async () => {
    attempt++;
    const res = await room.student.api.post(submissions, { submission: { submission_type: 'online_text_entry', body: `attempt ${attempt}` } });
    expect(res.status).toBe(201);
  };
  await submit();
  const close = async () => {
    await server.close();
    for (const r of receivers) await r.down();
    fs.rmSync(tls.caFile, { force: true });
  };
  return { server, world, room, receivers, assignmentId, gradeChange, submit, close };
}

/** A published essay (online text entries, 10 points) the teacher makes in the course; its id. */
export async function essayAssignment(teacher: WorldUser, courseId: number): Promise<number> {
  const created = await teacher.api.post(`/api/v1/courses/${courseId}/assignments`, {
    assignment: { name: 'Essay', published: true, points_possible: 10, submission_types: ['online_text_entry'] },
  });
  return created.body.id;
}

/**
 * A classroom with an essay, and a subscription (straight into the database) to the essay's
 * submission_created at `url`: the student submitting causes one delivery.
 */
export async function essaySubscription(server: TestServer, url: string) {
  const room = await new World(server).classroom();
  const assignmentId = await essayAssignment(room.teacher, room.course.id);
  const sub = await subscription(server, { tool: await toolProxy(server), context: { type: 'assignment', id: assignmentId }, eventTypes: ['submission_created'], url });
  return { room, assignmentId, sub };
}
