import { randomUUID } from 'node:crypto';
import { In } from 'typeorm';
import { cursorForOffset } from '../src/common/relay';
import { ErrorReport } from '../src/error-reports/error-report.entity';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { captureStatements, walkGraphql, idsOf as idsOfTable, num } from './support/paging';
import { startTestServer, TestServer } from './support/server';

/**
 * The admin lists paged by key (issue 23): error reports and a subscription's webhook deliveries
 * (tool proxies and planner overrides: admin-lists.accounts.paging.test.ts). Each is walked to the end in
 * small pages (REST Link next, GraphQL cursors) and compared with the table read in the list's order;
 * rows added and removed between pages are neither repeated nor skipped; totalCount counts when asked
 * and only then; an `offset:N` cursor of old still pages. Every order ends in the id (ids are unique:
 * rows created in one second, which tie on created_at, still come in one order).
 */
let server: TestServer;
const ds = () => server.app.ds;
const idsOf = (table: string, where: string, params: unknown[], dir: 'ASC' | 'DESC') => idsOfTable(server, table, where, params, dir);

beforeAll(async () => {
  server = await startTestServer();
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
