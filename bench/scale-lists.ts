/**
 * The lists of the scaling bench, each as its REST route with its params and the GraphQL twin: the
 * route's own operation with the variables the router builds for the same request (page arguments
 * included), so both doors ask for the same page of the same rows through the same resolvers.
 *
 * Pages: the first page of 50, and a deep one. A numbered list's deep page is its `rel="last"` link;
 * a bookmark list (or a numbered one whose Link has no `last`) is walked through its `next` links, 100
 * rows at a time, and the deep page is a page of 50 from the last bookmark reached.
 */
import type { RequestContext } from '../src/request/context';
import { commonParams, parseParams } from '../src/api/rest/input';
import { connectionArgs, decodeBookmark, pageRequest } from '../src/api/rest/pagination';
import { mergeParams, parseQueryString } from '../src/api/rest/params';
import { RestInput, RestRoute, withFragments } from '../src/api/rest/route';
import { restRoutes } from '../src/app/routes';
import type { ScaleWorld } from './scale-world';

export const PER_PAGE = 50;

export interface ScaleList {
  key: string;
  label: string;
  /** What the list's length follows: the bench reports the row count of that parent at each size. */
  parent: keyof ScaleWorld['counts'];
  route: RestRoute;
  pathParams: Record<string, string>;
  /** Query params besides page and per_page, e.g. include[]=items. */
  query: string;
  token: string;
}

export interface Page {
  /** Path and query of the REST request. */
  path: string;
  /** The GraphQL request of the same page. */
  graphql: { query: string; variables: Record<string, unknown> };
  rows: number;
  /** The per_page asked: PER_PAGE, or a 1x page's row count for the equal-rows pages (bench/scale.ts). */
  perPage: number;
}

function routeOf(path: string): RestRoute {
  const route = restRoutes.find((r) => r.method === 'GET' && r.path === path);
  if (!route) throw new Error(`no REST route GET ${path}`);
  return route;
}

export function scaleLists(w: ScaleWorld): ScaleList[] {
  const teacher = w.teacher.token;
  const student = w.student.token;
  const list = (key: string, label: string, parent: ScaleList['parent'], path: string, pathParams: Record<string, number | string>, token: string, query = ''): ScaleList => ({
    key,
    label,
    parent,
    route: routeOf(path),
    pathParams: Object.fromEntries(Object.entries(pathParams).map(([k, v]) => [k, String(v)])),
    query,
    token,
  });
  return [
    list('module-items', "a long module's items (teacher)", 'items', '/api/v1/courses/:course_id/modules/:module_id/items', { course_id: w.longCourse, module_id: w.longModule }, teacher),
    list('group-users', "a group's users (teacher)", 'members', '/api/v1/groups/:group_id/users', { group_id: w.group }, teacher),
    list('enrollments', "a course's enrollments (teacher)", 'students', '/api/v1/courses/:course_id/enrollments', { course_id: w.course }, teacher),
    list('course-users', 'course users (teacher)', 'students', '/api/v1/courses/:course_id/users', { course_id: w.course }, teacher),
    list('modules', 'modules with items (student)', 'modules', '/api/v1/courses/:course_id/modules', { course_id: w.course }, student, 'include[]=items'),
    list('course-groups', "a course's groups (teacher)", 'groups', '/api/v1/courses/:course_id/groups', { course_id: w.course }, teacher),
    list('category-groups', "a group set's groups (teacher)", 'groups', '/api/v1/group_categories/:group_category_id/groups', { group_category_id: w.category }, teacher),
    list('planner-notes', 'planner notes (student)', 'notes', '/api/v1/planner_notes', {}, student),
    list('planner-items', 'planner items (student)', 'notes', '/api/v1/planner/items', {}, student),
    list('submissions', "an assignment's submissions (teacher)", 'students', '/api/v1/courses/:course_id/assignments/:assignment_id/submissions', { course_id: w.course, assignment_id: w.assignment }, teacher),
    list('account-users', "the account's users (admin)", 'students', '/api/v1/accounts/:account_id/users', { account_id: 'self' }, w.adminToken),
    list('account-users-by-id', "the account's users by id, bookmarks (admin)", 'students', '/api/v1/accounts/:account_id/users', { account_id: 'self' }, w.adminToken, 'sort=id'),
  ];
}

export function restPath(l: ScaleList, page: string | number | null, perPage = PER_PAGE): string {
  const path = l.route.path.replace(/:(\w+)/g, (_, k: string) => encodeURIComponent(l.pathParams[k]));
  const q = [l.query, page != null ? `page=${encodeURIComponent(String(page))}` : '', `per_page=${perPage}`].filter(Boolean).join('&');
  return `${path}?${q}`;
}

/** The GraphQL request the router makes of a REST request to this list (REST path and query). */
export function graphqlTwin(l: ScaleList, path: string): Page['graphql'] {
  const rawQuery = path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
  const params = mergeParams(parseQueryString(rawQuery), l.pathParams);
  const common = parseParams(commonParams, params);
  const declared = parseParams(l.route.accepts, params);
  if (common.errors || declared.errors) throw new Error(`${l.key}: the bench's params do not parse: ${JSON.stringify(common.errors ?? declared.errors)}`);
  // A variant of the row (e.g. the account's users with sort=id) brings its own operation and paging.
  const variant = l.route.variants?.find((v) => v.when({ ...common.values, ...declared.values }));
  const list = variant?.list ?? l.route.list;
  const opts = typeof list === 'object' ? list : {};
  // Bookmark lists read only per_page here; their page is the bookmark.
  const page = pageRequest(opts.bookmark ? { per_page: params.per_page } : params, opts.defaultPerPage, opts.maxPerPage);
  const pageArgs = opts.bookmark ? { first: page.perPage, after: decodeBookmark(params.page) } : connectionArgs(page);
  const input: RestInput = { values: { ...common.values, ...declared.values }, params, ctx: { baseUrl: '' } as RequestContext, page, headers: {} };
  // JSON drops the absent (undefined) variables, as the router does.
  const variables = JSON.parse(JSON.stringify({ ...((variant?.variables ?? l.route.variables)?.(input) ?? {}), ...pageArgs }));
  return { query: withFragments(variant?.operation ?? l.route.operation), variables };
}

type Fetch = (path: string, init: { method: string; headers: Record<string, string>; body?: string }) => Promise<{ status: number; headers: Headers; json: any; text: string }>;

function links(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(',')) {
    const m = /<([^>]*)>;\s*rel="([^"]+)"/.exec(part);
    if (m) out[m[2]] = new URL(m[1]).pathname + new URL(m[1]).search;
  }
  return out;
}

const setPerPage = (path: string, perPage: number) => path.replace(/([?&])per_page=\d+/, `$1per_page=${perPage}`);

function restRows(l: ScaleList, body: any): number {
  const opts = typeof l.route.list === 'object' ? l.route.list : {};
  const list = opts.envelope ? body?.[opts.envelope] : body;
  return Array.isArray(list) ? list.length : -1;
}

/**
 * The first and the deep page of a list, each checked to answer 200 with the same row count through both
 * doors; pages of `perPage` rows (PER_PAGE, or fewer to match a smaller world's page).
 */
export async function findPages(l: ScaleList, get: Fetch, perPage = PER_PAGE): Promise<{ first: Page; deep: Page; walked: number }> {
  const auth = { Authorization: `Bearer ${l.token}` };
  const rest = async (path: string) => {
    const r = await get(path, { method: 'GET', headers: auth });
    if (r.status !== 200) throw new Error(`${l.key}: GET ${path}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
    return r;
  };
  const page = async (path: string): Promise<Page> => {
    const r = await rest(path);
    const graphql = graphqlTwin(l, path);
    const g = await get('/graphql', { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(graphql) });
    if (g.status !== 200 || g.json?.errors?.length) throw new Error(`${l.key}: GraphQL twin of ${path}: HTTP ${g.status} ${g.text.slice(0, 300)}`);
    const rows = restRows(l, r.json);
    const nodes = l.route.root.split('.').reduce((v: any, k) => v?.[k], g.json.data)?.nodes;
    if (!Array.isArray(nodes) || nodes.length !== rows) throw new Error(`${l.key}: GraphQL answered ${nodes?.length} rows where REST answered ${rows} (${path})`);
    return { path, graphql, rows, perPage };
  };
  const firstPath = restPath(l, null, perPage);
  const first = await page(firstPath);
  const head = links((await rest(firstPath)).headers.get('link'));
  const full = async (path: string) => restRows(l, (await rest(path)).json) >= perPage;
  let deepPath = firstPath;
  let walked = 0;
  if (head.last) {
    // The last full page: a last page of one row would measure a smaller page, not a deeper one.
    const last = setPerPage(head.last, perPage);
    const n = Number(/[?&]page=(\d+)/.exec(last)?.[1] ?? 1);
    deepPath = n > 1 && !(await full(last)) ? last.replace(/([?&])page=\d+/, `$1page=${n - 1}`) : last;
  } else if (head.next) {
    // Walked 100 rows a page; the deep page is a page of perPage from the last bookmark reached, or
    // from the one before it when fewer than perPage rows follow the last.
    let before: string | null = null;
    let at = setPerPage(head.next, 100);
    for (;;) {
      walked++;
      const next = links((await rest(at)).headers.get('link')).next;
      if (!next) break;
      before = at;
      at = next;
    }
    deepPath = setPerPage(at, perPage);
    if (before && !(await full(deepPath))) deepPath = setPerPage(before, perPage);
  }
  return { first, deep: await page(deepPath), walked };
}
