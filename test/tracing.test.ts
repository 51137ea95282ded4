import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { ContentRoom, contentRoom } from './support/content';
import { Instance, SharedDatabase, sharedDatabase, startInstance } from './support/instances';
import { ExportedSpan, OtlpReceiver, clientTraceparent } from './support/otlp';
import { processDatabases } from './support/process';
import type { TestServer } from './support/server';
import { wsClient, wsRequest } from './support/ws';
import { essayAssignment, fastDeliveryEnv, HttpsReceiver, LocalSqs, startLocalSqs, subscription, testCertificate, toolProxy, waitFor } from './support/webhooks';
import { World } from './support/world';

/**
 * OpenTelemetry end to end: the compiled service, started as its own process with
 * OTEL_EXPORTER_OTLP_ENDPOINT, sends its spans to a real OTLP/HTTP receiver started here; a REST
 * request, a GraphQL operation, a graphql-ws operation and a webhook delivery are read back from what
 * arrived. Each request carries a client traceparent, so its spans are found by trace id, as a traced
 * client's would be. (A process, not the in-process test server: the OTLP exporter loads node:http
 * with a dynamic import, which jest's module sandbox refuses.)
 */
const databaseUrl = processDatabases('lms-tracing-');
let otlp: OtlpReceiver;
let sqs: LocalSqs;
let env: Record<string, string>;
let receiver: HttpsReceiver;
let caFile: string;
let instance: Instance;
let shared: SharedDatabase;
let server: TestServer;
let room: ContentRoom;
let assignmentId: number;

beforeAll(async () => {
  otlp = await new OtlpReceiver().start();
  sqs = await startLocalSqs();
  const tls = await testCertificate();
  caFile = tls.caFile;
  receiver = await new HttpsReceiver(tls).up();
  const url = await databaseUrl();
  const secret = randomBytes(24).toString('hex');
  // A short batch delay: spans arrive within milliseconds instead of the default 5 s.
  env = {
    ...fastDeliveryEnv(caFile),
    DATABASE_URL: url,
    LMS_SECRET_KEY: secret,
    RATE_LIMIT: 'off',
    // local-aws-sqs names its queues under account 123456789012.
    SQS_ENDPOINT: sqs.endpoint,
    SQS_ACCESS_KEY_ID: 'test',
    SQS_SECRET_ACCESS_KEY: 'test',
    SQS_ALLOWED_ACCOUNT_IDS: '123456789012',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    // The service samples one request in twenty by default: every request is traced here.
    OTEL_TRACES_SAMPLE_RATIO: '1',
    OTEL_BSP_SCHEDULE_DELAY: '20',
    OTEL_SERVICE_NAME: 'lms-under-test',
  };
  instance = await startInstance(env, `test-admin-${randomBytes(12).toString('hex')}`);
  shared = await sharedDatabase(url, secret);
  server = shared.serverFor(instance);
  room = await contentRoom(new World(server));
  assignmentId = await essayAssignment(room.teacher, room.course.id);
  const first = await room.student.api.post(`/api/v1/courses/${room.course.id}/assignments/${assignmentId}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'essay' } });
  expect(first.status).toBe(201);
});
afterAll(async () => {
  await instance?.stop();
  await shared?.close();
  await receiver?.down();
  await otlp?.close();
  await sqs?.close();
  if (caFile) fs.rmSync(caFile, { force: true });
});

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;

/** The spans below `root` (children, their children …). */
function descendants(spans: ExportedSpan[], root: ExportedSpan): ExportedSpan[] {
  const out: ExportedSpan[] = [];
  const walk = (id: string) => {
    for (const s of spans.filter((x) => x.parentSpanId === id)) {
      out.push(s);
      walk(s.spanId);
    }
  };
  walk(root.spanId);
  return out;
}

/** A request's server span, once its trace holds it and its SQL children. */
async function requestTrace(traceId: string, name: string) {
  const root = await waitFor(`span ${name}`, () => otlp.trace(traceId).find((s) => s.name === name && s.kind === SERVER));
  // Children end (and are exported) before their parent: they are all here once it is.
  return { root, below: descendants(otlp.trace(traceId), root) };
}

/** SQL spans name the statement kind and table, with no SQL text or values anywhere. */
function expectCleanSql(sql: ExportedSpan[], secrets: string[]) {
  expect(sql.length).toBeGreaterThan(0);
  for (const s of sql) {
    expect(s.kind).toBe(CLIENT);
    expect(s.name).toMatch(/^[A-Z]+( [A-Za-z_0-9]+)?$/);
    expect(Object.keys(s.attributes).sort()).toEqual(expect.arrayContaining(['db.operation.name', 'db.system.name']));
    for (const key of Object.keys(s.attributes)) expect(['db.system.name', 'db.operation.name', 'db.collection.name']).toContain(key);
    const text = JSON.stringify(s);
    // No statement text (with its literals) nor parameter, only names.
    expect(text).not.toMatch(/WHERE|VALUES|\?|=/);
    for (const secret of secrets) expect(text).not.toContain(secret);
  }
}

it('a REST request: a server span named by its route pattern, with its status and its SQL statements below it', async () => {
  const { course, teacher } = room;
  const tp = clientTraceparent();
  const res = await teacher.api.with({ traceparent: tp.header }).get(`/api/v1/courses/${course.id}/sections?per_page=7`);
  expect(res.status).toBe(200);
  const { root, below } = await requestTrace(tp.traceId, 'GET /api/v1/courses/:course_id/sections');
  // A child of the caller's span: the client's trace continues here.
  expect(root.parentSpanId).toBe(tp.spanId);
  expect(root.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.route': '/api/v1/courses/:course_id/sections', 'http.response.status_code': 200 });
  expect(root.resource['service.name']).toBe('lms-under-test');
  const sql = below.filter((s) => s.attributes['db.system.name']);
  expectCleanSql(sql, [teacher.token]);
  expect(sql.map((s) => s.name)).toContain('SELECT course_sections');
  // Nothing of the URL's query or the credentials is recorded.
  expect(JSON.stringify(otlp.trace(tp.traceId))).not.toContain(teacher.token);
  expect(JSON.stringify(root)).not.toContain('per_page');
});

it('a GraphQL operation: the request span is named after the operation, its statements below it', async () => {
  const { course, teacher } = room;
  const tp = clientTraceparent();
  const res = await teacher.api.with({ traceparent: tp.header }).request('POST', '/graphql', { query: 'query CourseTitle($id: ID!) { course(id: $id) { name } }', variables: { id: String(course.id) } }, { json: true });
  expect(res.status).toBe(200);
  expect(res.body.data.course.name).toBe(course.name);
  const { root, below } = await requestTrace(tp.traceId, 'graphql CourseTitle');
  expect(root.attributes).toMatchObject({ 'http.route': '/graphql', 'http.response.status_code': 200, 'graphql.operation.type': 'query', 'graphql.operation.name': 'CourseTitle' });
  expectCleanSql(below.filter((s) => s.attributes['db.system.name']), [teacher.token]);
  // Per-field resolver spans only with OTEL_GRAPHQL_FIELDS=on.
  expect(below.filter((s) => s.name.startsWith('resolve '))).toEqual([]);
  // The same document again is answered by the fast path (src/graphql/fast-path.ts): named the same.
  const again = clientTraceparent();
  const second = await teacher.api.with({ traceparent: again.header }).request('POST', '/graphql', { query: 'query CourseTitle($id: ID!) { course(id: $id) { name } }', variables: { id: String(course.id) } }, { json: true });
  expect(second.body.data.course.name).toBe(course.name);
  const repeat = await requestTrace(again.traceId, 'graphql CourseTitle');
  expect(repeat.root.attributes).toMatchObject({ 'graphql.operation.name': 'CourseTitle' });
  expectCleanSql(repeat.below.filter((s) => s.attributes['db.system.name']), [teacher.token]);
});

it('a graphql-ws operation: a span of its own, named after the operation, with its statements', async () => {
  const { course, teacher } = room;
  const ws = wsClient(instance.url, teacher.token);
  try {
    const r = await wsRequest(ws.client, 'query WsCourseTitle($id: ID!) { course(id: $id) { name } }', { id: String(course.id) });
    expect(r.data).toEqual({ course: { name: course.name } });
  } finally {
    await ws.client.dispose();
  }
  const root = await waitFor('graphql-ws span', () => otlp.spans().find((s) => s.name === 'graphql-ws WsCourseTitle'));
  expect(root).toMatchObject({ kind: SERVER, parentSpanId: '', attributes: { 'graphql.operation.type': 'query', 'graphql.operation.name': 'WsCourseTitle' } });
  expectCleanSql(descendants(otlp.trace(root.traceId), root).filter((s) => s.attributes['db.system.name']), [teacher.token]);
});

it('a webhook delivery continues the trace of the request that caused it, and hands its traceparent to the receiver', async () => {
  const sub = await subscription(server, { tool: await toolProxy(server), context: { type: 'course', id: room.course.id }, eventTypes: ['grade_change'], url: receiver.url('/traced') });
  const tp = clientTraceparent();
  const res = await room.teacher.api.with({ traceparent: tp.header }).put(`/api/v1/courses/${room.course.id}/assignments/${assignmentId}/submissions/${room.student.id}`, { submission: { posted_grade: '7' } });
  expect(res.status).toBe(200);

  // The request: its span, the outbox write below it, and the message keeping the write's context.
  const { root, below } = await requestTrace(tp.traceId, 'PUT /api/v1/courses/:course_id/assignments/:assignment_id/submissions/:user_id');
  const write = below.find((s) => s.name === 'webhook outbox write');
  expect(write).toBeDefined();
  expect(write!.attributes).toMatchObject({ 'webhook.domain_event': 'submission.graded' });
  expect(descendants(below, write!).map((s) => s.name)).toContain('INSERT outbox_messages');
  const message = await server.app.ds.getRepository(OutboxMessage).findOneByOrFail({ subscriptionId: sub.id });
  expect(message.traceparent).toBe(`00-${tp.traceId}-${write!.spanId}-01`);
  expect(root.attributes['http.response.status_code']).toBe(200);

  // The delivery: a span of the same trace, a child of the write, linked to the claim that took it.
  const delivery = await waitFor('delivery span', () => otlp.trace(tp.traceId).find((s) => s.name === 'webhook deliver grade_change' && s.attributes['webhook.subscription_id'] === sub.id));
  expect(delivery).toMatchObject({
    kind: PRODUCER,
    parentSpanId: write!.spanId,
    attributes: { 'webhook.attempt': 1, 'webhook.transport': 'https', 'server.address': '127.0.0.1', 'http.response.status_code': 200, 'webhook.message_id': message.messageId },
  });
  expect(delivery.links).toHaveLength(1);
  const claim = await waitFor('claim span', () => otlp.spans().find((s) => s.spanId === delivery.links[0].spanId));
  expect(claim.name).toBe('webhook claim');
  expect(claim.attributes['webhook.claimed']).toBeGreaterThanOrEqual(1);

  // The receiver was told the delivery's span: a receiver that traces continues the same story.
  const got = receiver.at('/traced');
  expect(got).toHaveLength(1);
  expect(got[0].headers.traceparent).toBe(`00-${tp.traceId}-${delivery.spanId}-01`);
});

it('an SQS delivery carries the delivery span\'s traceparent as a message attribute', async () => {
  const queueUrl = await sqs.queue(`traced-${Date.now()}`);
  const sub = await subscription(server, { tool: await toolProxy(server), context: { type: 'course', id: room.course.id }, eventTypes: ['grade_change'], transport: 'sqs', url: queueUrl });
  const tp = clientTraceparent();
  const res = await room.teacher.api.with({ traceparent: tp.header }).put(`/api/v1/courses/${room.course.id}/assignments/${assignmentId}/submissions/${room.student.id}`, { submission: { posted_grade: '8' } });
  expect(res.status).toBe(200);
  const delivery = await waitFor('SQS delivery span', () => otlp.trace(tp.traceId).find((s) => s.name === 'webhook deliver grade_change' && s.attributes['webhook.subscription_id'] === sub.id));
  expect(delivery.attributes).toMatchObject({ 'webhook.transport': 'sqs', 'webhook.attempt': 1 });
  const received = await waitFor('SQS message', async () => {
    const got = await sqs.receiveAll(queueUrl);
    return got.length ? got : null;
  });
  expect(received).toHaveLength(1);
  expect(received[0].attributes.traceparent).toBe(`00-${tp.traceId}-${delivery.spanId}-01`);
});

describe('OTEL_GRAPHQL_FIELDS=on', () => {
  let fields: Instance;
  beforeAll(async () => {
    // A second instance on the same database, delivering nothing (the first one does).
    fields = await startInstance({ ...env, OTEL_GRAPHQL_FIELDS: 'on', WEBHOOK_DISPATCHER: 'off' }, `test-admin-${randomBytes(12).toString('hex')}`);
  });
  afterAll(() => fields?.stop());

  it('adds a span per resolver call below the operation', async () => {
    const tp = clientTraceparent();
    const res = await fields.as(room.teacher.token).with({ traceparent: tp.header }).request('POST', '/graphql', { query: 'query FieldTitle($id: ID!) { course(id: $id) { name } }', variables: { id: String(room.course.id) } }, { json: true });
    expect(res.status).toBe(200);
    const { root, below } = await requestTrace(tp.traceId, 'graphql FieldTitle');
    const resolved = below.find((s) => s.name === 'resolve Query.course');
    expect(resolved).toMatchObject({ parentSpanId: root.spanId, attributes: { 'graphql.field.name': 'course', 'graphql.field.path': 'course' } });
  });
});

describe('sampling (OTEL_TRACES_SAMPLE_RATIO)', () => {
  let sampled: Instance;
  beforeAll(async () => {
    // Ratio 0: the service starts no trace of its own, but still follows a caller's sampled traceparent.
    sampled = await startInstance({ ...env, OTEL_TRACES_SAMPLE_RATIO: '0', OTEL_SERVICE_NAME: 'lms-sampled', WEBHOOK_DISPATCHER: 'off' }, `test-admin-${randomBytes(12).toString('hex')}`);
  });
  afterAll(() => sampled?.stop());

  it('traces a request only when the ratio or the caller says so', async () => {
    const path = `/api/v1/courses/${room.course.id}/sections?per_page=3`;
    const before = otlp.spans().filter((s) => s.resource['service.name'] === 'lms-sampled').length;
    expect((await sampled.as(room.teacher.token).get(path)).status).toBe(200);
    const tp = clientTraceparent();
    expect((await sampled.as(room.teacher.token).with({ traceparent: tp.header }).get(path)).status).toBe(200);
    const { root } = await requestTrace(tp.traceId, 'GET /api/v1/courses/:course_id/sections');
    expect(root.resource['service.name']).toBe('lms-sampled');
    // The untraced request left nothing: every span of this instance belongs to the caller's trace.
    const mine = otlp.spans().filter((s) => s.resource['service.name'] === 'lms-sampled').slice(before);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((s) => s.traceId === tp.traceId)).toBe(true);
  });
});

it('without OTEL_EXPORTER_OTLP_ENDPOINT no OpenTelemetry module is loaded', () => {
  // The compiled service (npm run pretest builds it), started and asked one request in a fresh process.
  const root = path.join(__dirname, '..');
  const script = `
    const { prepareApp } = require('./dist/src/app/bootstrap');
    const { buildServer } = require('./dist/src/app/server');
    const { loadConfig } = require('./dist/src/config');
    (async () => {
      const { app } = await prepareApp(loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' }));
      const server = await buildServer(app);
      const res = await server.fastify.inject({ method: 'GET', url: '/api/v1/courses/1/sections' });
      await server.close();
      await app.ds.destroy();
      const loaded = Object.keys(require.cache).filter((k) => k.includes('@opentelemetry'));
      console.log(JSON.stringify({ status: res.statusCode, loaded }));
    })();`;
  const run = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  const out = JSON.parse(run.stdout.trim().split('\n').pop()!);
  expect(out.status).toBe(401);
  // prom-client requires @opentelemetry/api itself (for exemplars); no SDK, exporter or other part is loaded.
  expect(out.loaded.filter((k: string) => !k.includes(`${path.sep}@opentelemetry${path.sep}api${path.sep}`))).toEqual([]);
});
