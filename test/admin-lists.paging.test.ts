import { randomUUID } from 'node:crypto';
import { In } from 'typeorm';
import { cursorForOffset } from '../src/common/relay';
import { ErrorReport } from '../src/error-reports/error-report.entity';
import { ToolProxy } from '../src/lti/tool-proxy.entity';
import { PlannerOverride } from '../src/planner/planner-override.entity';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { parseLinks } from './support/api';
import { subAccount } from './support/lti';
import { captureStatements, walkGraphql, walkRest } from './support/paging';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

/**
 * The admin and per-user lists paged by key (issue 23): error reports, a subscription's webhook
 * deliveries, an account's tool proxies, a user's planner overrides. Each is walked to the end in
 * small pages (REST Link next, GraphQL cursors) and compared with the table read in the list's order;
 * rows added and removed between pages are neither repeated nor skipped; totalCount counts when asked
 * and only then; an `offset:N` cursor of old still pages. Every order ends in the id (ids are unique:
 * rows created in one second, which tie on created_at, still come in one order).
 */
let server: TestServer;
let world: World;
const ds = () => server.app.ds;
const num = (xs: (string | number)[]) => xs.map(Number);
/** Ids of `table` matching `where`, in the list's order. */
const idsOf = async (table: string, where: string, params: unknown[], dir: 'ASC' | 'DESC') =>
  num((await ds().query(`SELECT id FROM ${table} WHERE ${where} ORDER BY id ${dir}`, params)).map((r: { id: number }) => r.id));

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
});
afterAll(() => server.close());

/** No COUNT on `table` ran while `fn` ran. */
async function noCount(table: string, fn: () => Promise<unknown>): Promise<void> {
  const seen = await captureStatements(server, fn);
  expect(seen.filter((s) => /COUNT\(/i.test(s.sql) && s.sql.includes(table)).map((s) => s.sql)).toEqual([]);
}

describe('error reports (GraphQL, newest first)', () => {
  const Q = `query($after: String, $severity: String) { errorReportsConnection(first: 4, after: $after, severity: $severity) { nodes { _id } pageInfo { hasNextPage endCursor } } }`;
  const add = (n: number, severity: string | null = null) =>
    ds().getRepository(ErrorReport).save(Array.from({ length: n }, (_, i) => Object.assign(new ErrorReport(), { subject: `Report ${i}`, userPerceivedSeverity: severity && i % 2 ? severity : null })));

  beforeAll(() => add(30, 'just_a_comment'));

  it('walks every report by key set cursors, deep pages included; a severity walks its own', async () => {
    expect(num(await walkGraphql(server.admin, Q, {}, 'errorReportsConnection'))).toEqual(await idsOf('error_reports', '1 = 1', [], 'DESC'));
    const comments = await idsOf('error_reports', 'user_perceived_severity = ?', ['just_a_comment'], 'DESC');
    expect(comments.length).toBeGreaterThan(8);
    expect(num(await walkGraphql(server.admin, Q, { severity: 'just_a_comment' }, 'errorReportsConnection'))).toEqual(comments);
  });

  it('a report filed or removed between pages shifts nothing', async () => {
    const before = await idsOf('error_reports', '1 = 1', [], 'DESC');
    const gone = before[before.length - 3];
    const seen = num(
      await walkGraphql(server.admin, Q, {}, 'errorReportsConnection', async (page) => {
        if (page !== 2) return;
        await add(2);
        // One removed ahead of the cursor, one already shown: with the two new ones, an offset would repeat a row.
        await ds().getRepository(ErrorReport).delete([gone, before[0]]);
      }),
    );
    // The new report is newer than the cursor (not on a later page); the one removed ahead is not shown.
    expect(seen).toEqual(before.filter((id) => id !== gone));
  });

  it('counts totalCount only when selected; an offset cursor of old and a foreign cursor still answer', async () => {
    const all = await idsOf('error_reports', '1 = 1', [], 'DESC');
    const counted = await server.admin.graphql(`{ errorReportsConnection(first: 2) { totalCount } }`);
    expect(counted.data.errorReportsConnection.totalCount).toBe(all.length);
    await noCount('error_reports', () => server.admin.graphql(Q));
    const old = await server.admin.graphql(Q, { after: cursorForOffset(3) });
    expect(num(old.data.errorReportsConnection.nodes.map((n: { _id: string }) => n._id))).toEqual(all.slice(4, 8));
    const foreign = await server.admin.graphql(Q, { after: 'not a cursor' });
    expect(foreign.errors).toBeUndefined();
    expect(num(foreign.data.errorReportsConnection.nodes.map((n: { _id: string }) => n._id))).toEqual(all.slice(0, 4));
  });
});

describe("a subscription's webhook deliveries (GraphQL, newest first)", () => {
  const Q = `query($id: String!, $status: [String!], $after: String) { webhookDeliveries(subscriptionId: $id, status: $status, first: 4, after: $after) {
    nodes { _id: messageId } pageInfo { hasNextPage endCursor } } }`;
  let sub: WebhookSubscription;
  const add = async (subscriptionId: string, n: number) => {
    const now = new Date();
    const rows = Array.from({ length: n }, (_, i) =>
      Object.assign(new OutboxMessage(), {
        messageId: randomUUID(),
        subscriptionId,
        toolProxyId: 1,
        eventName: 'grade_change',
        format: 'live-event',
        payload: '{}',
        // Final states: the server's dispatcher leaves them alone.
        status: i % 3 ? 'delivered' : 'dead',
        attempts: 1,
        nextAttemptAt: now,
        retryUntil: now,
        createdAt: now,
        updatedAt: now,
      }),
    );
    await ds().getRepository(OutboxMessage).save(rows);
  };
  const messageIds = async (status?: string) => {
    const rows: { message_id: string }[] = await ds().query(
      `SELECT message_id FROM outbox_messages WHERE subscription_id = ?${status ? ' AND status = ?' : ''} ORDER BY id DESC`,
      status ? [sub.id, status] : [sub.id],
    );
    return rows.map((r) => r.message_id);
  };

  beforeAll(async () => {
    const make = () =>
      WebhookSubscription.draft({
        toolProxyId: 1,
        contextType: 'root_account',
        contextId: '1',
        matchType: 'Account',
        matchId: 1,
        rootAccountId: 1,
        eventTypes: '["grade_change"]',
        format: 'live-event',
        transportType: 'https',
        transportUrl: 'https://receiver.invalid/hook',
        developerKey: 'dk',
      });
    sub = await ds().getRepository(WebhookSubscription).save(make());
    const other = await ds().getRepository(WebhookSubscription).save(make());
    // Another subscription's messages interleaved with this one's.
    for (let i = 0; i < 5; i++) {
      await add(sub.id, 6);
      await add(other.id, 2);
    }
  });

  it('walks every delivery by key set cursors; a status filter walks its own', async () => {
    expect(await walkGraphql(server.admin, Q, { id: sub.id }, 'webhookDeliveries')).toEqual(await messageIds());
    const dead = await messageIds('dead');
    expect(dead.length).toBeGreaterThan(4);
    expect(await walkGraphql(server.admin, Q, { id: sub.id, status: ['dead'] }, 'webhookDeliveries')).toEqual(dead);
  });

  it('a delivery written or removed between pages shifts nothing', async () => {
    const before = await messageIds();
    const gone = before[before.length - 2];
    const seen = await walkGraphql(server.admin, Q, { id: sub.id }, 'webhookDeliveries', async (page) => {
      if (page !== 3) return;
      await add(sub.id, 2);
      await ds().getRepository(OutboxMessage).delete({ messageId: In([gone, before[1]]) });
    });
    expect(seen).toEqual(before.filter((m) => m !== gone));
  });

  it('counts totalCount only when selected; an offset cursor of old still pages', async () => {
    const all = await messageIds();
    const counted = await server.admin.graphql(`query($id: String!) { webhookDeliveries(subscriptionId: $id, first: 1) { totalCount } }`, { id: sub.id });
    expect(counted.data.webhookDeliveries.totalCount).toBe(all.length);
    await noCount('outbox_messages', () => server.admin.graphql(Q, { id: sub.id }));
    const old = await server.admin.graphql(Q, { id: sub.id, after: cursorForOffset(5) });
    expect(old.data.webhookDeliveries.nodes.map((n: { _id: string }) => n._id)).toEqual(all.slice(6, 10));
  });
});

/** Proxies (active, and some deleted) straight into the table, fast. */
async function proxies(accountId: number, n: number, state = 'active'): Promise<void> {
  const rows = Array.from({ length: n }, (_, i) =>
    Object.assign(new ToolProxy(), {
      guid: randomUUID(),
      name: `Tool ${i}`,
      sharedSecretEncrypted: 'x',
      capabilities: '[]',
      contextType: 'Account',
      contextId: accountId,
      accountId,
      rootAccountId: 1,
      workflowState: state,
    }),
  );
  await ds().getRepository(ToolProxy).save(rows);
}

describe("an account's tool proxies (REST bookmarks and GraphQL cursors, oldest first)", () => {
  let faculty: number;
  let dept: number;
  let facultyAdmin: WorldUser;
  const Q = `query($account: ID!, $after: String) { toolProxiesConnection(accountId: $account, first: 3, after: $after) { nodes { _id } pageInfo { hasNextPage endCursor } } }`;
  const tree = () => idsOf('lti_tool_proxies', `account_id IN (${faculty}, ${dept}) AND workflow_state = 'active'`, [], 'ASC');
  const everyone = () => idsOf('lti_tool_proxies', "root_account_id = 1 AND workflow_state = 'active'", [], 'ASC');

  beforeAll(async () => {
    const f = await subAccount(server, world, 'Faculty');
    faculty = f.account.id;
    facultyAdmin = f.admin;
    dept = (await subAccount(server, world, 'Department', faculty)).account.id;
    const sibling = (await subAccount(server, world, 'Sibling')).account.id;
    for (let i = 0; i < 4; i++) {
      await proxies(faculty, 3);
      await proxies(dept, 2);
      await proxies(sibling, 2);
      await proxies(1, 1);
      await proxies(dept, 1, 'deleted');
    }
  });

  it('walks a sub-account tree and the root account by Link next (bookmarks, no rel="last"), deep pages included', async () => {
    const walked = await walkRest(facultyAdmin.api, server, `/api/v1/accounts/${faculty}/tool_proxies?per_page=3`);
    expect(walked.ids).toEqual(await tree());
    expect(walked.links[0].next).toMatch(/page=bookmark%3A[A-Za-z0-9_-]+&per_page=3/);
    expect(walked.links.every((l) => l.last === undefined)).toBe(true);
    expect((await walkRest(server.admin, server, '/api/v1/accounts/1/tool_proxies?per_page=4')).ids).toEqual(await everyone());
    // A page number still reads that page.
    const p2 = await facultyAdmin.api.get(`/api/v1/accounts/${faculty}/tool_proxies?per_page=3&page=2`);
    expect(p2.body.map((p: { id: number }) => p.id)).toEqual((await tree()).slice(3, 6));
    await noCount('lti_tool_proxies', () => facultyAdmin.api.get(`/api/v1/accounts/${faculty}/tool_proxies?per_page=3`));
  });

  it('a proxy added or removed between REST pages is seen once at its place, or not at all', async () => {
    const before = await tree();
    const gone = before[before.length - 2];
    const walked = await walkRest(facultyAdmin.api, server, `/api/v1/accounts/${faculty}/tool_proxies?per_page=3`, async (page) => {
      if (page !== 2) return;
      await proxies(dept, 1);
      await ds().getRepository(ToolProxy).update({ id: In([gone, before[0]]) }, { workflowState: 'deleted' });
    });
    // The one removed after being shown stays shown; the new one comes once at the end.
    const after = await tree();
    expect(walked.ids).toEqual([before[0], ...after]);
    expect(walked.ids).not.toContain(gone);
  });

  it('walks by GraphQL cursors; totalCount counts when selected; an offset cursor of old still pages', async () => {
    expect(num(await walkGraphql(facultyAdmin.api, Q, { account: String(faculty) }, 'toolProxiesConnection'))).toEqual(await tree());
    expect(num(await walkGraphql(server.admin, Q, { account: '1' }, 'toolProxiesConnection'))).toEqual(await everyone());
    for (const [account, expected] of [[String(faculty), await tree()], ['1', await everyone()]] as const) {
      const counted = await server.admin.graphql(`query($a: ID!) { toolProxiesConnection(accountId: $a, first: 1) { totalCount } }`, { a: account });
      expect(counted.data.toolProxiesConnection.totalCount).toBe(expected.length);
      const old = await server.admin.graphql(Q, { account, after: cursorForOffset(2) });
      expect(num(old.data.toolProxiesConnection.nodes.map((n: { _id: string }) => n._id))).toEqual(expected.slice(3, 6));
    }
  });
});

describe("a user's planner overrides (REST bookmarks and GraphQL cursors, by id)", () => {
  let u: WorldUser;
  let other: WorldUser;
  let next = 900_000;
  const Q = `query($after: String) { plannerOverrides(first: 4, after: $after) { nodes { _id } pageInfo { hasNextPage endCursor } } }`;
  const add = (userId: number, n: number, workflowState = 'active') =>
    ds()
      .getRepository(PlannerOverride)
      .save(Array.from({ length: n }, () => Object.assign(new PlannerOverride(), { userId, plannableType: 'assignment', plannableId: next++, markedComplete: false, dismissed: false, workflowState, deletedAt: null })));
  const mine = () => idsOf('planner_overrides', "user_id = ? AND workflow_state = 'active'", [u.id], 'ASC');

  beforeAll(async () => {
    [u, other] = [await world.user('Overrider'), await world.user('Other')];
    for (let i = 0; i < 6; i++) {
      await add(u.id, 5);
      await add(other.id, 2);
      await add(u.id, 1, 'deleted');
    }
  });

  it('walks by Link next (bookmarks, no rel="last") and by GraphQL cursors alike, deep pages included', async () => {
    const expected = await mine();
    const walked = await walkRest(u.api, server, '/api/v1/planner/overrides?per_page=4');
    expect(walked.ids).toEqual(expected);
    expect(walked.links.length).toBeGreaterThan(6);
    expect(walked.links.every((l) => l.last === undefined)).toBe(true);
    expect(num(await walkGraphql(u.api, Q, {}, 'plannerOverrides'))).toEqual(expected);
    expect((await u.api.get('/api/v1/planner/overrides?per_page=4&page=3')).body.map((o: { id: number }) => o.id)).toEqual(expected.slice(8, 12));
    await noCount('planner_overrides', () => u.api.get('/api/v1/planner/overrides?per_page=4'));
  });

  it('an override made or deleted between pages is seen once at the end, or not at all', async () => {
    const before = await mine();
    const gone = before[before.length - 4];
    const seen = num(
      await walkGraphql(u.api, Q, {}, 'plannerOverrides', async (page) => {
        if (page !== 2) return;
        await add(u.id, 1);
        await u.api.delete(`/api/v1/planner/overrides/${gone}`);
        await u.api.delete(`/api/v1/planner/overrides/${before[1]}`);
      }),
    );
    // The one deleted after being shown stays shown (an offset would skip a row); the new one comes at the end.
    expect(seen).toEqual([before[0], before[1], ...(await mine()).slice(1)]);
    expect(seen).not.toContain(gone);
    expect(seen.length).toBe(before.length);
  });

  it('counts totalCount only when selected; an offset cursor of old still pages', async () => {
    const all = await mine();
    const counted = await u.api.graphql(`{ plannerOverrides(first: 1) { totalCount } }`);
    expect(counted.data.plannerOverrides.totalCount).toBe(all.length);
    await noCount('planner_overrides', () => u.api.graphql(Q));
    const old = await u.api.graphql(Q, { after: cursorForOffset(3) });
    expect(num(old.data.plannerOverrides.nodes.map((n: { _id: string }) => n._id))).toEqual(all.slice(4, 8));
    const link = parseLinks((await u.api.get('/api/v1/planner/overrides?per_page=2&page=bookmark:garbage')).headers.get('link'));
    expect(link.next).toBeDefined();
  });
});
