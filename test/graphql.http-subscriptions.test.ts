import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

/** Subscriptions live on graphql-ws; over HTTP they are refused before anything runs, naming the socket. */
describe('a subscription sent over HTTP', () => {
  let server: TestServer;
  let user: WorldUser;
  beforeAll(async () => {
    server = await startTestServer();
    user = await new World(server).user('Http Subscriber');
  });
  afterAll(() => server.close());

  function expectRefusal(res: { status: number; body: any; text: string }, wsUrl: string) {
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toEqual([
      {
        message: expect.stringContaining(wsUrl),
        extensions: { code: 'SUBSCRIPTION_OVER_HTTP', endpoint: wsUrl, protocol: 'graphql-transport-ws' },
      },
    ]);
    expect(res.body.errors[0].message).toContain('graphql-transport-ws');
    expect(res.text).not.toMatch(/Cannot return null|INTERNAL_SERVER_ERROR|\n\s+at /);
  }

  it('is a 400 naming the graphql-ws endpoint and protocol, by POST and by GET, with or without a token', async () => {
    const wsUrl = `${server.url.replace(/^http/, 'ws')}/graphql`;
    const query = 'subscription { plannerChanged { change plannableType } }';
    for (const api of [user.api, server.as(null)]) {
      expectRefusal(await api.post('/graphql', { query }, { json: true }), wsUrl);
      expectRefusal(await api.with({ 'apollo-require-preflight': 'true' }).get(`/graphql?query=${encodeURIComponent(query)}`), wsUrl);
    }
    // The operation chosen by operationName decides: the document's query still runs over HTTP.
    const doc = 'query Me { viewer { name } } subscription Changes { plannerChanged { change } }';
    expectRefusal(await user.api.post('/graphql', { query: doc, operationName: 'Changes' }, { json: true }), wsUrl);
    const me = await user.api.post('/graphql', { query: doc, operationName: 'Me' }, { json: true });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ data: { viewer: { name: 'Http Subscriber' } } });
  });

  it('names wss:// on the public origin behind a TLS proxy', async () => {
    const behind = await startTestServer({ PUBLIC_URL: 'https://lms.example.edu' });
    try {
      const res = await behind.as(null).post('/graphql', { query: 'subscription S { plannerChanged { change } }' }, { json: true });
      expectRefusal(res, 'wss://lms.example.edu/graphql');
    } finally {
      await behind.close();
    }
  });
});
