import { parseLinks } from './support/api';
import type { TestServer } from './support/server';
import { startWorld, World, WorldUser } from './support/world';

/** Canvas's Access Tokens API: show, update (regenerate), delete and the user-generated list. */
let server: TestServer;
let world: World;

beforeAll(async () => ({ server, world } = await startWorld()));
afterAll(() => server.close());

async function token(u: WorldUser, purpose: string, extra: Record<string, string> = {}) {
  const res = await u.api.post('/api/v1/users/self/tokens', { token: { purpose, ...extra } });
  expect(res.status).toBe(200);
  return res.body as { id: number; visible_token: string; token_hint: string };
}

const tokenRow = async (id: number) =>
  (await server.app.ds.query('SELECT purpose, workflow_state, crypted_token, expires_at FROM access_tokens WHERE id = ?', [id]))[0];

describe('GET /api/v1/users/:user_id/user_generated_tokens', () => {
  it("lists the user's tokens oldest first with bookmark pages, never the secrets, without deleted ones", async () => {
    const u = await world.user('Lister');
    const made = [await token(u, 'one'), await token(u, 'two'), await token(u, 'three')];
    await u.api.delete(`/api/v1/users/self/tokens/${made[1].id}`);

    const first = await u.api.get('/api/v1/users/self/user_generated_tokens?per_page=2');
    expect(first.status).toBe(200);
    // The world's own token (made by the admin) is first, then the user's, in creation order.
    expect(first.body.map((t: { purpose: string }) => t.purpose)).toEqual(['tests', 'one']);
    const links = parseLinks(first.headers.get('link'));
    expect(links.current).toContain('page=first');
    expect(links.next).toMatch(/page=bookmark%3A/);
    expect(links.last).toBeUndefined();

    const second = await u.api.get(links.next.slice(server.url.length));
    expect(second.status).toBe(200);
    expect(second.body.map((t: { purpose: string }) => t.purpose)).toEqual(['three']);
    expect(parseLinks(second.headers.get('link')).next).toBeUndefined();

    for (const t of [...first.body, ...second.body]) {
      expect(t.visible_token).toMatch(/^[A-Za-z0-9]{5}\.\.\.$/);
      expect(t).toMatchObject({ user_id: u.id, app_name: 'No App', workflow_state: 'active', can_manually_regenerate: true });
      expect(JSON.stringify(t)).not.toContain(u.token);
    }
  });

  it('lets an admin list a user’s tokens and refuses other users (403), saying nothing of the tokens', async () => {
    const [owner, other] = await Promise.all([world.user('Owner'), world.user('Other')]);
    expect((await server.admin.get(`/api/v1/users/${owner.id}/user_generated_tokens`)).body).toHaveLength(1);
    const refused = await other.api.get(`/api/v1/users/${owner.id}/user_generated_tokens`);
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('tests');
  });
});

describe('GET /api/v1/users/:user_id/tokens/:id', () => {
  it('shows a token by id or by its 5-character hint, with the hint only', async () => {
    const u = await world.user('Shower');
    const t = await token(u, 'show me');
    const byId = await u.api.get(`/api/v1/users/self/tokens/${t.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ id: t.id, purpose: 'show me', visible_token: `${t.visible_token.slice(0, 5)}...`, expires_at: null });
    const byHint = await u.api.get(`/api/v1/users/${u.id}/tokens/${t.visible_token.slice(0, 5)}`);
    expect(byHint.status).toBe(200);
    expect(byHint.body.id).toBe(t.id);
  });

  it("finds nobody else's token through one's own path (404) and refuses another user's path (403)", async () => {
    const [a, b] = await Promise.all([world.user('Peeker'), world.user('Peeked')]);
    const bt = await token(b, 'private');
    expect((await a.api.get(`/api/v1/users/self/tokens/${bt.id}`)).status).toBe(404);
    expect((await a.api.get(`/api/v1/users/self/tokens/${bt.visible_token.slice(0, 5)}`)).status).toBe(404);
    const refused = await a.api.get(`/api/v1/users/${b.id}/tokens/${bt.id}`);
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('private');
    expect((await server.admin.get(`/api/v1/users/${b.id}/tokens/${bt.id}`)).body.purpose).toBe('private');
  });

  it('answers 404 for an unknown id or one that is neither an id nor a hint', async () => {
    const u = await world.user('Unknown');
    expect((await u.api.get('/api/v1/users/self/tokens/999999')).status).toBe(404);
    const odd = await u.api.get('/api/v1/users/self/tokens/not-a-token');
    expect(odd.status).toBe(404);
    expect(odd.body.errors).toBeDefined();
  });
});

describe('PUT /api/v1/users/:user_id/tokens/:id', () => {
  it('changes purpose and expiry', async () => {
    const u = await world.user('Updater');
    const t = await token(u, 'before');
    const res = await u.api.put(`/api/v1/users/self/tokens/${t.id}`, { token: { purpose: 'after', expires_at: '2099-01-02T03:04:05Z' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: t.id, purpose: 'after', expires_at: '2099-01-02T03:04:05Z', visible_token: `${t.visible_token.slice(0, 5)}...` });
    // The token itself still works: only regenerate changes the secret.
    expect((await server.as(t.visible_token).get('/api/v1/users/self')).status).toBe(200);
    const cleared = await u.api.put(`/api/v1/users/self/tokens/${t.id}`, { token: { expires_at: '' } });
    expect(cleared.body.expires_at).toBeNull();
  });

  it('regenerates: the new secret is shown once and works, the old one stops at once', async () => {
    const u = await world.user('Regenerator');
    const t = await token(u, 'rotate me');
    const res = await u.api.put(`/api/v1/users/self/tokens/${t.visible_token.slice(0, 5)}`, { token: { regenerate: 'true' } });
    expect(res.status).toBe(200);
    const fresh = res.body.visible_token as string;
    expect(fresh).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(fresh).not.toBe(t.visible_token);
    expect(res.body.id).toBe(t.id);
    expect((await server.as(t.visible_token).get('/api/v1/users/self')).status).toBe(401);
    expect((await server.as(fresh).get('/api/v1/users/self')).body.id).toBe(u.id);
    expect((await u.api.get(`/api/v1/users/self/tokens/${t.id}`)).body.visible_token).toBe(`${fresh.slice(0, 5)}...`);
  });

  it('regenerates an expired token only with a new expiry (Canvas 400 otherwise, nothing changed)', async () => {
    const u = await world.user('Expired Regen');
    const t = await token(u, 'old', { expires_at: new Date(Date.now() - 60_000).toISOString() });
    const before = await tokenRow(t.id);
    const refused = await u.api.put(`/api/v1/users/self/tokens/${t.id}`, { token: { regenerate: true } }, { json: true });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ errors: { message: 'cannot regenerate an expired token without a new expiration date' } });
    expect(await tokenRow(t.id)).toEqual(before);
    const listed = await u.api.get(`/api/v1/users/self/tokens/${t.id}`);
    expect(listed.body.can_manually_regenerate).toBe(false);

    const ok = await u.api.put(`/api/v1/users/self/tokens/${t.id}`, { token: { regenerate: true, expires_at: '2099-01-01T00:00:00Z' } }, { json: true });
    expect(ok.status).toBe(200);
    expect((await server.as(ok.body.visible_token).get('/api/v1/users/self')).status).toBe(200);
  });

  it("refuses another user's token (403) and changes nothing; lets an admin change it", async () => {
    const [a, b] = await Promise.all([world.user('Meddler'), world.user('Victim')]);
    const bt = await token(b, 'mine');
    const before = await tokenRow(bt.id);
    const refused = await a.api.put(`/api/v1/users/${b.id}/tokens/${bt.id}`, { token: { regenerate: 'true', purpose: 'x' } });
    expect(refused.status).toBe(403);
    expect(refused.text).not.toMatch(/[A-Za-z0-9]{64}/);
    expect(await tokenRow(bt.id)).toEqual(before);
    const admin = await server.admin.put(`/api/v1/users/${b.id}/tokens/${bt.id}`, { token: { purpose: 'renamed by admin' } });
    expect(admin.status).toBe(200);
    expect(admin.body.purpose).toBe('renamed by admin');
  });

  it('answers bad input with a clear 400 and stores nothing', async () => {
    const u = await world.user('Bad Update');
    const t = await token(u, 'stays');
    const before = await tokenRow(t.id);
    const missing = await u.api.put(`/api/v1/users/self/tokens/${t.id}`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ errors: [{ message: 'token is missing' }] });
    const blank = await u.api.put(`/api/v1/users/self/tokens/${t.id}`, { token: { purpose: '' } });
    expect(blank.status).toBe(400);
    expect(blank.body.errors.purpose[0]).toMatchObject({ attribute: 'purpose', type: 'blank' });
    const date = await u.api.put(`/api/v1/users/self/tokens/${t.id}`, { token: { expires_at: 'someday', regenerate: 'true' } });
    expect(date.status).toBe(400);
    expect(date.body.errors.expires_at[0]).toMatchObject({ attribute: 'expires_at', type: 'invalid' });
    const word = await u.api.put(`/api/v1/users/self/tokens/${t.id}`, { token: { regenerate: 'perhaps' } });
    expect(word.status).toBe(400);
    const nested = await u.api.put(`/api/v1/users/self/tokens/${t.id}`, { token: { purpose: { x: 1 } } }, { json: true });
    expect(nested.status).toBe(400);
    expect(await tokenRow(t.id)).toEqual(before);
  });
});

describe('DELETE /api/v1/users/:user_id/tokens/:id', () => {
  it('revokes the token at once and answers its JSON with workflow_state deleted', async () => {
    const u = await world.user('Deleter');
    const t = await token(u, 'goodbye');
    const res = await u.api.delete(`/api/v1/users/self/tokens/${t.visible_token.slice(0, 5)}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: t.id, purpose: 'goodbye', workflow_state: 'deleted', visible_token: `${t.visible_token.slice(0, 5)}...` });
    expect((await server.as(t.visible_token).get('/api/v1/users/self')).status).toBe(401);
    expect((await u.api.get(`/api/v1/users/self/tokens/${t.id}`)).status).toBe(404);
    expect((await u.api.delete(`/api/v1/users/self/tokens/${t.id}`)).status).toBe(404);
  });

  it("refuses another user's token (403) and lets an admin revoke it", async () => {
    const [a, b] = await Promise.all([world.user('Revoker'), world.user('Revokee')]);
    const refused = await a.api.delete(`/api/v1/users/${b.id}/tokens/${b.token.slice(0, 5)}`);
    expect(refused.status).toBe(403);
    expect((await b.api.get('/api/v1/users/self')).status).toBe(200);
    const ok = await server.admin.delete(`/api/v1/users/${b.id}/tokens/${b.token.slice(0, 5)}`);
    expect(ok.body.workflow_state).toBe('deleted');
    expect((await b.api.get('/api/v1/users/self')).status).toBe(401);
  });
});

describe('the same through GraphQL', () => {
  const FIELDS = '_id userId purpose workflowState visibleToken appName canManuallyRegenerate';

  it('reads, pages, regenerates and deletes tokens', async () => {
    const u = await world.user('GQL Tokens');
    const t = await token(u, 'gql');
    const page = await u.api.graphql(`{ accessTokens(userId: "self", first: 1) { totalCount nodes { ${FIELDS} } pageInfo { hasNextPage endCursor } } }`);
    expect(page.errors).toBeUndefined();
    expect(page.data.accessTokens.totalCount).toBe(2);
    expect(page.data.accessTokens.pageInfo.hasNextPage).toBe(true);
    const next = await u.api.graphql(`query($after: String) { accessTokens(userId: "self", first: 1, after: $after) { nodes { _id } pageInfo { hasNextPage } } }`, {
      after: page.data.accessTokens.pageInfo.endCursor,
    });
    expect(next.data.accessTokens).toEqual({ nodes: [{ _id: String(t.id) }], pageInfo: { hasNextPage: false } });

    const one = await u.api.graphql(`{ accessToken(userId: "${u.id}", id: "${t.visible_token.slice(0, 5)}") { ${FIELDS} } }`);
    expect(one.data.accessToken).toMatchObject({ _id: String(t.id), purpose: 'gql', appName: 'No App', canManuallyRegenerate: true });

    const regen = await u.api.graphql(`mutation($input: UpdateAccessTokenInput!) { updateAccessToken(input: $input) { accessToken { ${FIELDS} } errors { attribute type message } } }`, {
      input: { userId: 'self', id: String(t.id), regenerate: true, purpose: 'gql rotated' },
    });
    expect(regen.data.updateAccessToken.errors).toBeNull();
    const fresh = regen.data.updateAccessToken.accessToken.visibleToken;
    expect(fresh).toHaveLength(64);
    expect((await server.as(fresh).get('/api/v1/users/self')).status).toBe(200);

    const del = await u.api.graphql(`mutation($input: DeleteAccessTokenInput!) { deleteAccessToken(input: $input) { accessToken { workflowState } errors { message } } }`, {
      input: { userId: 'self', id: String(t.id) },
    });
    expect(del.data.deleteAccessToken.accessToken.workflowState).toBe('deleted');
    expect((await server.as(fresh).get('/api/v1/users/self')).status).toBe(401);
  });

  it("refuses another user's tokens with FORBIDDEN", async () => {
    const [a, b] = await Promise.all([world.user('GQL A'), world.user('GQL B')]);
    const list = await a.api.graphql(`{ accessTokens(userId: "${b.id}") { nodes { _id } } }`);
    expect(list.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const del = await a.api.graphql(`mutation { deleteAccessToken(input: { userId: "${b.id}", id: "${b.token.slice(0, 5)}" }) { accessToken { _id } } }`);
    expect(del.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect((await b.api.get('/api/v1/users/self')).status).toBe(200);
  });
});
