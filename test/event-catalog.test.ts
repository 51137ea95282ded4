import fs from 'node:fs';
import { Parser } from '@asyncapi/parser';
import { getIntrospectionQuery } from 'graphql';
import { WEBHOOK_EVENT_TYPES } from '../src/lti/capabilities';
import { contentRoom, ContentRoom } from './support/content';
import { checkedDeliveries, deliveryProblem, wsResultProblem } from './support/event-catalog';
import { startTestServer, TestServer } from './support/server';
import { fastDeliveryEnv, HttpsReceiver, LocalSqs, startLocalSqs, subscription, testCertificate, toolProxy, waitFor } from './support/webhooks';
import { World } from './support/world';
import { wsClient } from './support/ws';

/**
 * The event catalog: GET /api/asyncapi.json is a valid AsyncAPI 3.0 document naming every event type
 * the code can emit, in both formats on both transports, and every graphql-ws subscription; every
 * delivery a test receiver gets is held to it (test/support/event-catalog.ts), and here every event
 * type is produced in both formats on both transports; GET /api/asyncapi renders it as a page.
 */
let server: TestServer;
let world: World;
let room: ContentRoom;
let receiver: HttpsReceiver;
let sqs: LocalSqs;
let caFile: string;
let doc: any;

beforeAll(async () => {
  const tls = await testCertificate();
  caFile = tls.caFile;
  receiver = await new HttpsReceiver(tls).up();
  sqs = await startLocalSqs();
  server = await startTestServer(fastDeliveryEnv(caFile, { SQS_ENDPOINT: sqs.endpoint, SQS_ACCESS_KEY_ID: 'test', SQS_SECRET_ACCESS_KEY: 'test', SQS_ALLOWED_ACCOUNT_IDS: '123456789012' }));
  world = new World(server);
  room = await contentRoom(world);
  const res = await server.as(null).get('/api/asyncapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await server.close();
  await receiver.down();
  await sqs.close();
  fs.rmSync(caFile, { force: true });
});

const FORMATS = ['live-event', 'caliper'];
const TRANSPORTS = ['https', 'sqs'];

describe('GET /api/asyncapi.json', () => {
  it('is a valid AsyncAPI 3.0 document, public, versioned with the service', async () => {
    const res = await server.as(null).get('/api/asyncapi.json');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(doc.asyncapi).toBe('3.0.0');
    expect(doc.info.version).toBe(JSON.parse(fs.readFileSync(`${__dirname}/../package.json`, 'utf8')).version);
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    // Severity 0 is an error, 1 a warning (2 and 3 are hints, e.g. that AsyncAPI 3.1 exists).
    expect(diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`)).toEqual([]);
    expect(document).toBeDefined();
    expect(document!.channels().length).toBeGreaterThanOrEqual(2);
  });

  it('has every event type the code can emit, in both formats on both transports, with a schema payload', () => {
    for (const event of WEBHOOK_EVENT_TYPES) {
      for (const format of FORMATS) {
        const payload = doc.components.schemas[`${format}.${event}`];
        expect(payload).toMatchObject({ type: 'object', required: expect.any(Array) });
        for (const transport of TRANSPORTS) {
          const key = `${transport}.${format}.${event}`;
          expect(doc.components.messages[key]).toMatchObject({ name: event, payload: { $ref: `#/components/schemas/${format}.${event}` } });
          const channel = transport === 'https' ? 'webhookHttps' : 'webhookSqs';
          expect(doc.channels[channel].messages[key]).toEqual({ $ref: `#/components/messages/${key}` });
        }
      }
    }
    // Closed values are enums, times are date-times, URLs are URIs.
    const live = doc.components.schemas['live-event.submission_created'].properties;
    expect(live.metadata.properties.event_name).toEqual({ type: 'string', const: 'submission_created' });
    expect(live.metadata.properties.event_time).toMatchObject({ type: 'string', format: 'date-time' });
    expect(live.metadata.properties.url.anyOf).toContainEqual({ type: 'string', format: 'uri' });
    expect(live.body.properties.workflow_state.enum).toEqual(['unsubmitted', 'submitted', 'pending_review', 'graded']);
    const caliper = doc.components.schemas['caliper.grade_change'].properties.data.items[0].properties;
    expect(caliper.type).toMatchObject({ const: 'GradeEvent' });
    expect(caliper.generated.required).toContain('scoreGiven');
  });

  it('describes the HTTPS headers, receiver answers and retries, and the SQS attributes and batching', () => {
    const headers = doc.components.schemas.HttpsDeliveryHeaders;
    expect(headers.required).toEqual(expect.arrayContaining(['X-Webhook-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Message-Id']));
    expect(doc.components.schemas.SqsMessageAttributes.required).toEqual(['subscription_id', 'message_id', 'event_name']);
    const https = doc.channels.webhookHttps.description;
    for (const status of ['410', '429', '503']) expect(https).toContain(`**${status}**`);
    expect(https).toContain('backoff');
    expect(doc.channels.webhookSqs.description).toContain('SendMessageBatch, up to 10 messages');
    expect(doc.operations.deliverWebhookHttps).toMatchObject({ action: 'send', bindings: { http: { method: 'POST' } } });
  });

  it('has a channel for every graphql-ws subscription of the schema', async () => {
    const res = await server.admin.graphql(getIntrospectionQuery());
    const subscriptionType = res.data.__schema.types.find((t: any) => t.name === res.data.__schema.subscriptionType.name);
    const names = subscriptionType.fields.map((f: any) => f.name).sort();
    expect(names).toEqual(expect.arrayContaining(['plannerChanged', 'plannerNoteChanged', 'webhookMessages']));
    for (const name of names) {
      expect(doc.channels[name]).toMatchObject({ address: '/graphql', messages: { [`graphql-ws.${name}`]: expect.any(Object) } });
      expect(doc.components.schemas[`graphql-ws.${name}`].properties.payload.properties.data.properties[name]).toBeDefined();
    }
  });
});

describe('every event type, in both formats, on both transports, matches the catalog', () => {
  it('as delivered to an HTTPS receiver and an SQS queue', async () => {
    const tool = await toolProxy(server);
    const root = { type: 'root_account' as const, id: 1 };
    const all = [...WEBHOOK_EVENT_TYPES];
    const queues = { live: await sqs.queue(`catalog-live-${Date.now()}`), caliper: await sqs.queue(`catalog-caliper-${Date.now()}`) };
    await subscription(server, { tool, context: root, eventTypes: all, url: receiver.url('/live') });
    await subscription(server, { tool, context: root, eventTypes: all, format: 'caliper', url: receiver.url('/caliper') });
    await subscription(server, { tool, context: root, eventTypes: all, transport: 'sqs', url: queues.live });
    await subscription(server, { tool, context: root, eventTypes: all, format: 'caliper', transport: 'sqs', url: queues.caliper });
    checkedDeliveries.clear();

    const course = room.course.id;
    const assignment = await room.teacher.api.post(`/api/v1/courses/${course}/assignments`, {
      assignment: { name: 'Essay', published: true, points_possible: 10, submission_types: ['online_text_entry'] },
    });
    const submissions = `/api/v1/courses/${course}/assignments/${assignment.body.id}/submissions`;
    expect((await room.student.api.post(submissions, { submission: { submission_type: 'online_text_entry', body: 'My essay' } })).status).toBe(201);
    expect((await room.teacher.api.put(`${submissions}/${room.student.id}`, { submission: { posted_grade: '7' } })).status).toBe(200);
    expect((await room.teacher.api.post(`/courses/${course}/assignments/${assignment.body.id}/submissions/${room.student.id}/turnitin/resubmit`, {})).status).toBe(204);
    const quiz = await room.teacher.api.post(`/api/v1/courses/${course}/quizzes`, { quiz: { title: 'Quiz', published: true, points_possible: 5 } });
    const started = await room.student.api.post(`/api/v1/courses/${course}/quizzes/${quiz.body.id}/submissions`, {});
    const qs = started.body.quiz_submissions[0];
    const done = await room.student.api.post(`/api/v1/courses/${course}/quizzes/${quiz.body.id}/submissions/${qs.id}/complete`, { attempt: qs.attempt, validation_token: qs.validation_token });
    expect(done.status).toBe(200);
    expect((await room.teacher.api.post(`/api/v1/courses/${course}/files`, { name: 'notes.pdf', size: 10 })).status).toBe(200);
    const event = await room.teacher.api.post('/api/v1/calendar_events', { calendar_event: { context_code: `course_${course}`, title: 'Lab', start_at: '2030-01-02T10:00:00Z' } });
    expect(event.status).toBe(201);
    expect((await room.teacher.api.put(`/api/v1/calendar_events/${event.body.id}`, { calendar_event: { title: 'Lab (moved)' } })).status).toBe(200);

    const wanted = TRANSPORTS.flatMap((t) => FORMATS.flatMap((f) => WEBHOOK_EVENT_TYPES.map((e) => `${t} ${f} ${e}`))).sort();
    await waitFor('every event type in both formats over HTTPS', () => wanted.filter((k) => k.startsWith('https')).every((k) => checkedDeliveries.has(k)), 30_000);
    await waitFor('every event type in both formats over SQS', async () => {
      // Received messages are checked against the catalog as the queue hands them over.
      await sqs.receiveAll(queues.live);
      await sqs.receiveAll(queues.caliper);
      return wanted.filter((k) => k.startsWith('sqs')).every((k) => checkedDeliveries.has(k));
    }, 30_000);
    // Each was checked against its schema as it arrived (a mismatch fails this test in afterEach).
    expect([...checkedDeliveries.keys()].sort()).toEqual(wanted);
  });

  it('and a payload that drifts is caught: a missing field, an undeclared one, a value outside its enum', () => {
    const sample = receiver.at('/live').find((r) => r.headers['x-event-name'] === 'submission_created')!;
    const { submission_id: _dropped, ...missing } = sample.json.body;
    const variants = [
      { ...sample.json, body: missing },
      { ...sample.json, body: { ...sample.json.body, extra: 1 } },
      { ...sample.json, body: { ...sample.json.body, workflow_state: 'lost' } },
      { ...sample.json, metadata: { ...sample.json.metadata, event_time: 'yesterday' } },
    ];
    for (const v of variants) expect(deliveryProblem('https', sample.headers, JSON.stringify(v))).toMatch(/^https live-event submission_created payload: /);
    const { 'webhook-signature': _sig, ...unsigned } = sample.headers;
    expect(deliveryProblem('https', unsigned, sample.body)).toMatch(/headers: .*webhook-signature/);
    expect(deliveryProblem('https', sample.headers, sample.body)).toBeNull();
  });
});

describe('graphql-ws subscriptions match the catalog', () => {
  it('plannerChanged results are checked against their channel', async () => {
    const { client } = wsClient(server.url, room.student.token);
    const results: any[] = [];
    const dispose = client.subscribe({ query: 'subscription { plannerChanged { change plannableType plannableId courseId reason occurredAt } }' }, { next: (r) => results.push(r), error: () => undefined, complete: () => undefined });
    // The subscription is live once a change published after it arrives: keep making notes until one does.
    await waitFor('a plannerChanged result', async () => {
      await room.student.api.post('/api/v1/planner_notes', { title: 'Read chapter 3', todo_date: '2030-01-03T10:00:00Z' });
      return results.length > 0;
    });
    dispose();
    await client.dispose();
    expect(results[0].data.plannerChanged).toMatchObject({ change: 'created', plannableType: 'planner_note', reason: 'note' });
    expect(wsResultProblem(results[0])).toBeNull();
    expect(wsResultProblem({ data: { plannerChanged: { ...results[0].data.plannerChanged, extra: 1 } } })).toMatch(/^graphql-ws plannerChanged result: /);
    expect(wsResultProblem({ data: { plannerChanged: { ...results[0].data.plannerChanged, plannableId: 5 } } })).toMatch(/plannableId must be string/);
  });
});

describe('GET /api/asyncapi (the catalog as a page)', () => {
  it('renders every channel and event as escaped HTML from our own origin, with no script', async () => {
    const res = await server.as(null).with({ Accept: 'text/html' }).get('/api/asyncapi');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe');
    // Nothing loaded from anywhere, and links only within this origin.
    expect(res.text).not.toMatch(/<script|<link|<img|\ssrc=|href="(?!\/|#)/i);
    for (const event of WEBHOOK_EVENT_TYPES) {
      for (const format of FORMATS) expect(res.text).toContain(`${event} (${format}, HTTPS)`);
    }
    for (const name of ['plannerChanged', 'plannerNoteChanged', 'webhookMessages']) expect(res.text).toContain(`subscription ${name}`);
    expect(res.text).toContain('<code>X-Webhook-Signature</code>');
    expect(res.text).toContain('<code>body.submission_id</code>');
  });

  it('is linked from the landing page, with the document', async () => {
    const res = await server.as(null).get('/');
    expect(res.text).toContain('href="/api/asyncapi"');
    expect(res.text).toContain('href="/api/asyncapi.json"');
  });
});
