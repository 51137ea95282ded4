import { randomUUID } from 'node:crypto';
import { ErrorReport } from '../src/error-reports/error-report.entity';
import { ToolProxy } from '../src/lti/tool-proxy.entity';
import { PlannerOverride } from '../src/planner/planner-override.entity';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { parseLinks } from './support/api';
import { subAccount } from './support/lti';
import { World, WorldUser } from './support/world';
import { ExplainHarness } from './support/explain';
import type { PagingWorld } from './support/paging';
import type { TestServer } from './support/server';

/**
 * Admin and per-user lists (planner overrides, tool proxies, webhook deliveries, error reports) read their
 * pages from an index (the checks and how the tables are grown: test/support/explain.ts).
 */
const h = new ExplainHarness([]);
let server: TestServer;
let w: PagingWorld;
const { mysql, grow, explainPages, clean } = h;

beforeAll(async () => {
  ({ server, w } = await h.start());
}, 600_000);
afterAll(() => h.close());

// ---- admin and per-user lists (issue 23): planner overrides, tool proxies, webhook deliveries, error reports ----
describe('admin and per-user lists', () => {
  h.big.push('planner_overrides', 'lti_tool_proxies', 'outbox_messages', 'error_reports');
  let facultyAdmin: WorldUser;
  let facultyId: number;
  let subId: string;

  /** Rows of `entity` saved in chunks (unique columns need fresh values, so not copies in SQL). */
  const save = async <T extends object>(entity: new () => T, n: number, fields: (i: number) => Partial<T>) =>
    server.app.ds.getRepository(entity).save(Array.from({ length: n }, (_, i) => Object.assign(new entity(), fields(i))), { chunk: 200 });

  beforeAll(async () => {
    const ds = server.app.ds;
    // The teacher's overrides, grown under other users like the notes.
    await save(PlannerOverride, 60, (i) => ({ userId: w.teacher.id, plannableType: 'assignment', plannableId: 800_000 + i, markedComplete: false, dismissed: false, workflowState: i % 7 ? ('active' as const) : ('deleted' as const), deletedAt: null }));
    await grow('planner_overrides', 'user_id', 40);
    // Tool proxies: the root account's own, a sub-account tree's, and 40 other roots' as many.
    const faculty = await subAccount(server, new World(server), 'Faculty');
    facultyAdmin = faculty.admin;
    facultyId = faculty.account.id;
    const dept = (await subAccount(server, new World(server), 'Department', facultyId)).account.id;
    const proxy = (accountId: number, rootAccountId: number) => (i: number) =>
      ({ guid: randomUUID(), name: `Tool ${i}`, sharedSecretEncrypted: 'x', capabilities: '[]', contextType: 'Account' as const, contextId: accountId, accountId, rootAccountId, workflowState: i % 9 ? ('active' as const) : ('deleted' as const) });
    for (const a of [1, facultyId, dept]) await save(ToolProxy, 30, proxy(a, 1));
    for (let k = 1; k <= 40; k++) await save(ToolProxy, 60, proxy(1_000_000 + k, 1_000_000 + k));
    // One subscription's deliveries among 40 others' as many.
    const draft = () =>
      WebhookSubscription.draft({ toolProxyId: 1, contextType: 'root_account', contextId: '1', matchType: 'Account', matchId: 1, rootAccountId: 1, eventTypes: '[]', format: 'live-event', transportType: 'https', transportUrl: 'https://receiver.invalid/h', developerKey: 'dk' });
    const now = new Date();
    const message = (subscriptionId: string) => (i: number) =>
      ({ messageId: randomUUID(), subscriptionId, toolProxyId: 1, eventName: 'grade_change', format: 'live-event', payload: '{}', status: i % 3 ? 'delivered' : 'dead', attempts: 1, nextAttemptAt: now, retryUntil: now, createdAt: now, updatedAt: now }) as never;
    for (let k = 0; k <= 40; k++) {
      const sub = await ds.getRepository(WebhookSubscription).save(draft());
      // The listed subscription's messages come last: the newest ids, with every other's below its cursor.
      if (k === 40) subId = sub.id;
      await save(OutboxMessage, 60, message(sub.id));
    }
    // Error reports: the list is the whole table (or one severity of it).
    await save(ErrorReport, 2400, (i) => ({ subject: `Report ${i}`, userPerceivedSeverity: i % 2 ? ('just_a_comment' as const) : null }));
    if (mysql()) await ds.query('ANALYZE TABLE planner_overrides, lti_tool_proxies, outbox_messages, error_reports');
    else await ds.query('ANALYZE');
  }, 600_000);

  /** The first page and the next one (Link next) of a REST list as `api` sees it. */
  async function restPages(api: typeof w.teacher.api, path: string): Promise<(() => Promise<unknown>)[]> {
    const next = parseLinks((await api.get(path)).headers.get('link')).next.replace(server.url, '');
    return [() => api.get(path), () => api.get(next)];
  }

  /** The first page and the next one (by endCursor) of a GraphQL connection at `root`. */
  async function graphqlPages(api: typeof w.teacher.api, q: string, vars: Record<string, unknown>, root: string): Promise<(() => Promise<unknown>)[]> {
    const after = (await api.graphql(q, vars)).data[root].pageInfo.endCursor;
    return [() => api.graphql(q, vars), () => api.graphql(q, { ...vars, after })];
  }

  it("planner_overrides: a user's overrides read their pages from the (user, state, id) index", async () => {
    for (const request of await restPages(w.teacher.api, '/api/v1/planner/overrides?per_page=10')) clean(await explainPages('planner_overrides', request));
  });

  it("lti_tool_proxies: the root account's proxies (root, state, id) and a sub-account tree's (account, state, id, one read per account)", async () => {
    for (const request of await restPages(server.admin, '/api/v1/accounts/1/tool_proxies?per_page=10')) clean(await explainPages('lti_tool_proxies', request));
    // The tree's accounts are read apart and merged: only the merge of their first + 1 rows each (a
    // bounded set, which the harness tells from a read's own sort) may sort.
    for (const request of await restPages(facultyAdmin.api, `/api/v1/accounts/${facultyId}/tool_proxies?per_page=10`)) clean(await explainPages('lti_tool_proxies', request));
  });

  it("outbox_messages: a subscription's deliveries read their pages from the (subscription, id) index", async () => {
    const q = `query($id: String!, $after: String) { webhookDeliveries(subscriptionId: $id, first: 10, after: $after) { nodes { messageId } pageInfo { endCursor } } }`;
    for (const request of await graphqlPages(server.admin, q, { id: subId }, 'webhookDeliveries')) clean(await explainPages('outbox_messages', request));
  });

  it('error_reports: one severity from the (severity, id) index; all of them backwards from the primary key, never sorted', async () => {
    const q = `query($severity: String, $after: String) { errorReportsConnection(severity: $severity, first: 10, after: $after) { nodes { _id } pageInfo { endCursor } } }`;
    for (const request of await graphqlPages(server.admin, q, { severity: 'just_a_comment' }, 'errorReportsConnection')) clean(await explainPages('error_reports', request));
    for (const request of await graphqlPages(server.admin, q, {}, 'errorReportsConnection')) {
      // Without a severity the list is the table: its first page walks the primary key from the newest
      // end and stops after first + 1 rows (a "scan" to the planner), and must not sort.
      const plans = await explainPages('error_reports', request);
      clean(Object.fromEntries(Object.entries(plans).map(([sql, p]) => [sql, p.filter((x) => !/^scan: SCAN r\b|full scan of r \(type=index\)/.test(x))])));
    }
  });
});
