import { createPublicKey, JsonWebKey, verify } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { Api } from './support/api';
import { ContentRoom, NOT_FOUND } from './support/content';
import { createProxy, Proxy, toolApi } from './support/lti';
import type { TestServer } from './support/server';
import { HttpsReceiver, Received, subscription, toolProxy, waitFor, webhookRoom, WebhookRoom } from './support/webhooks';

/**
 * Standard Webhooks signatures on every HTTPS delivery, checked with an independent verifier: the
 * npm `standardwebhooks` package for v1 (HMAC-SHA256 with the subscription's whsec_ secret). That
 * package verifies v1 only, so v1a (Ed25519) is verified here with node:crypto against the Ed25519
 * key the service publishes in its JWKS. Secrets are shown once (REST and GraphQL), stored
 * encrypted, and rotate with a grace period during which both are sent.
 */
let w: WebhookRoom;
let server: TestServer;
let room: ContentRoom;
let receiver: HttpsReceiver;
let proxy: Proxy;
let tool: Api;

beforeAll(async () => {
  w = await webhookRoom();
  ({ server, room, receivers: [receiver] } = w);
  proxy = await createProxy(server, { name: 'Signed tool' });
  tool = await toolApi(server, proxy);
});
afterAll(() => w.close());

const PATH = '/api/lti/subscriptions';
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

const gradeChange = () => w.gradeChange();

const subscriptionBody = (path: string) => ({
  subscription: { ContextType: 'course', ContextId: String(room.course.id), EventTypes: ['grade_change'], Format: 'live-event', TransportType: 'https', TransportMetadata: { Url: receiver.url(path) } },
});

/** The next delivery at `path` after the ones already seen. */
async function nextDelivery(path: string): Promise<Received> {
  const seen = receiver.all(path).length;
  await gradeChange();
  return waitFor(`a delivery at ${path}`, () => receiver.all(path)[seen]);
}

const signatures = (r: Received, version: string) =>
  r.headers['webhook-signature']
    .split(' ')
    .filter((s) => s.startsWith(`${version},`))
    .map((s) => s.slice(version.length + 1));

/** v1a: an Ed25519 signature over `${id}.${timestamp}.${body}` by one of the JWKS's OKP keys. */
async function v1aVerifies(r: Received, body = r.body): Promise<boolean> {
  const jwks = (await server.as(null).get('/api/lti/security/jwks')).body.keys as (JsonWebKey & { kty: string; alg: string })[];
  const keys = jwks.filter((k) => k.kty === 'OKP').map((k) => createPublicKey({ key: k, format: 'jwk' }));
  const content = Buffer.from(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${body}`);
  return signatures(r, 'v1a').some((sig) => keys.some((key) => verify(null, content, key, Buffer.from(sig, 'base64'))));
}

const verifies = (secret: string, r: Received, body = r.body) => {
  try {
    new Webhook(secret).verify(body, r.headers);
    return true;
  } catch (e) {
    if (e instanceof WebhookVerificationError) return false;
    throw e;
  }
};

describe('the subscription secret', () => {
  it('is answered once by a REST create, never by show or list, and stored encrypted', async () => {
    const res = await tool.post(PATH, subscriptionBody('/secret-once'));
    expect(res.status).toBe(200);
    expect(res.body.Secret).toMatch(SECRET);
    const shown = await tool.get(`${PATH}/${res.body.Id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).not.toHaveProperty('Secret');
    const { Secret, ...record } = res.body;
    expect(shown.body).toEqual(record);
    expect((await tool.get(PATH)).body.every((s: Record<string, unknown>) => !('Secret' in s))).toBe(true);
    const row = await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: res.body.Id });
    expect(row.signingSecret).toBeTruthy();
    expect(row.signingSecret).not.toContain(Secret.slice('whsec_'.length, 20));
    expect(row.signingSecret).not.toContain('whsec_');
  });

  it('is answered once by the GraphQL create too', async () => {
    const res = await tool.graphql(
      `mutation($input: WebhookSubscriptionInput) { createWebhookSubscription(input: $input) { webhookSubscription { id signingSecret } } }`,
      { input: { contextType: 'course', contextId: String(room.course.id), eventTypes: ['grade_change'], format: 'live-event', transportType: 'https', transportMetadata: { url: receiver.url('/gql-secret') } } },
    );
    expect(res.errors).toBeUndefined();
    const created = res.data.createWebhookSubscription.webhookSubscription;
    expect(created.signingSecret).toMatch(SECRET);
    const shown = await tool.graphql(`query($id: ID!) { webhookSubscription(id: $id) { id signingSecret } }`, { id: created.id });
    expect(shown.data.webhookSubscription).toEqual({ id: created.id, signingSecret: null });
  });
});

describe('Standard Webhooks headers', () => {
  it('sign every HTTPS delivery: v1 verifies with the standardwebhooks package, v1a with the published Ed25519 key', async () => {
    const res = await tool.post(PATH, subscriptionBody('/standard'));
    const secret: string = res.body.Secret;
    const r = await nextDelivery('/standard');
    expect(r.headers['webhook-id']).toBe(r.headers['x-message-id']);
    expect(Number(r.headers['webhook-timestamp'])).toBeGreaterThan(Date.now() / 1000 - 300);
    expect(signatures(r, 'v1')).toHaveLength(1);
    expect(signatures(r, 'v1a')).toHaveLength(1);
    // Canvas's JWT still comes too.
    expect(r.headers['x-webhook-signature']).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    // The independent verifier: it returns the parsed body when a v1 signature matches.
    expect(new Webhook(secret).verify(r.body, r.headers)).toEqual(r.json);
    expect(await v1aVerifies(r)).toBe(true);

    // Neither verifies a tampered body, another secret, or another message id.
    const forged = r.body.replace('grade_change', 'grade_chango');
    expect(verifies(secret, r, forged)).toBe(false);
    expect(await v1aVerifies(r, forged)).toBe(false);
    expect(verifies('whsec_' + Buffer.alloc(32, 7).toString('base64'), r)).toBe(false);
    expect(verifies(secret, { ...r, headers: { ...r.headers, 'webhook-id': 'another' } })).toBe(false);

    // The JWKS publishes the Ed25519 keys beside the RS256 ones, public halves only.
    const jwks = (await server.as(null).get('/.well-known/jwks.json')).body.keys;
    expect(jwks[0]).toMatchObject({ kty: 'RSA', alg: 'RS256' });
    const ed = jwks.filter((k: { kty: string }) => k.kty === 'OKP');
    expect(ed).toEqual([{ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: expect.any(String), x: expect.stringMatching(/^[\w-]{43}$/) }]);
  });

  it('carry v1a only for a subscription that has no secret (made before secrets existed)', async () => {
    await subscription(server, { tool: await toolProxy(server), context: { type: 'course', id: room.course.id }, eventTypes: ['grade_change'], url: receiver.url('/no-secret') });
    const r = await nextDelivery('/no-secret');
    expect(signatures(r, 'v1')).toEqual([]);
    expect(await v1aVerifies(r)).toBe(true);
  });
});

describe('rotating the secret', () => {
  const ROTATE = `mutation($id: ID!) { rotateWebhookSubscriptionSecret(id: $id) { webhookSubscription { id signingSecret } } }`;

  it('signs with both secrets during the grace period, then with the new one only (GraphQL)', async () => {
    const created = await tool.post(PATH, subscriptionBody('/rotate'));
    const oldSecret: string = created.body.Secret;
    const rotated = await tool.graphql(ROTATE, { id: created.body.Id });
    expect(rotated.errors).toBeUndefined();
    const newSecret: string = rotated.data.rotateWebhookSubscriptionSecret.webhookSubscription.signingSecret;
    expect(newSecret).toMatch(SECRET);
    expect(newSecret).not.toBe(oldSecret);

    const during = await nextDelivery('/rotate');
    expect(signatures(during, 'v1')).toHaveLength(2);
    expect(verifies(newSecret, during)).toBe(true);
    expect(verifies(oldSecret, during)).toBe(true);
    expect(await v1aVerifies(during)).toBe(true);

    // The grace period (WEBHOOK_SECRET_GRACE_MS, a day) is over: moved back rather than waited for.
    await server.app.ds.getRepository(WebhookSubscription).update({ id: created.body.Id }, { previousSecretUntil: new Date(Date.now() - 1000) });
    const after = await nextDelivery('/rotate');
    expect(signatures(after, 'v1')).toHaveLength(1);
    expect(verifies(newSecret, after)).toBe(true);
    expect(verifies(oldSecret, after)).toBe(false);
  });

  it('works through REST as well, for the owning tool only', async () => {
    const created = await tool.post(PATH, subscriptionBody('/rotate-rest'));
    const res = await tool.post(`${PATH}/${created.body.Id}/secret/rotate`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ Id: created.body.Id, State: 'Active', Secret: expect.stringMatching(SECRET) });
    expect(res.body.Secret).not.toBe(created.body.Secret);
    const r = await nextDelivery('/rotate-rest');
    expect(verifies(res.body.Secret, r)).toBe(true);
    expect(verifies(created.body.Secret, r)).toBe(true);

    // Another tool learns nothing of it; a user token is not a tool token.
    const other = await toolApi(server, await createProxy(server, { name: 'Other tool' }));
    const before = await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: created.body.Id });
    expect([(await other.post(`${PATH}/${created.body.Id}/secret/rotate`, {})).status, (await other.post(`${PATH}/${created.body.Id}/secret/rotate`, {})).body]).toEqual([404, NOT_FOUND]);
    expect((await room.teacher.api.post(`${PATH}/${created.body.Id}/secret/rotate`, {})).status).toBe(401);
    expect((await tool.post(`${PATH}/not-a-uuid/secret/rotate`, {})).status).toBe(404);
    const unchanged = await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: created.body.Id });
    expect(unchanged.signingSecret).toBe(before.signingSecret);
  });
});
