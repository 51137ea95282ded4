/**
 * The endpoints of the read-path bench: for each, the REST request, the GraphQL request for the same
 * fields (the REST row's own operation with its fragments, sent over HTTP as a client would), the
 * hand-written baseline's request, and how to read the rows out of each answer so the bench can check
 * that REST and the baseline carry the same rows in the same order.
 */
import { withFragments } from '../src/api/rest/route';
import { restRoutes } from '../src/app/routes';
import type { ReadWorld } from './read-world';

type Json = any;

export interface Endpoint {
  key: string;
  label: string;
  token: string;
  /** Path and query, identical for REST and the baseline (the baseline serves the same Canvas paths). */
  path: string;
  graphql: { query: string; variables: Record<string, unknown> };
  /** Row identities of a REST/baseline body. */
  restRows(body: Json): string[];
  /** Row identities of the GraphQL data. */
  graphqlRows(data: Json): string[];
}

/** The operation of a REST row, with the fragments it spreads: GraphQL asks for exactly its fields. */
function operationOf(method: string, path: string): string {
  const route = restRoutes.find((r) => r.method === method && r.path === path);
  if (!route) throw new Error(`no REST route ${method} ${path}`);
  return withFragments(route.operation);
}

const ids = (xs: Json[] | undefined) => (xs ?? []).map((x) => String(x.id ?? x._id));

export function readEndpoints(w: ReadWorld, perPage: { items: number; modules: number; groups: number; planner: number }): Endpoint[] {
  const c = w.course.id;
  const m = w.moduleIds[0];
  const moduleRows = (mods: Json[] | undefined) => (mods ?? []).flatMap((x) => [`m${x.id}`, ...(x.items ?? []).map((i: Json) => `i${i.id}`)]);
  return [
    {
      key: 'items',
      label: 'module items page (teacher)',
      token: w.teacher.token,
      path: `/api/v1/courses/${c}/modules/${m}/items?per_page=${perPage.items}`,
      graphql: {
        query: operationOf('GET', '/api/v1/courses/:course_id/modules/:module_id/items'),
        variables: { courseId: String(c), moduleId: String(m), first: perPage.items, withDetails: false },
      },
      restRows: ids,
      graphqlRows: (d) => ids(d?.moduleItemsConnection?.nodes),
    },
    {
      key: 'modules',
      label: 'modules + items + progress (student)',
      token: w.student.token,
      path: `/api/v1/courses/${c}/modules?include[]=items&per_page=${perPage.modules}`,
      graphql: {
        query: operationOf('GET', '/api/v1/courses/:course_id/modules'),
        variables: { courseId: String(c), first: perPage.modules, withItems: true, withDetails: false },
      },
      restRows: moduleRows,
      graphqlRows: (d) => moduleRows(d?.modulesConnection?.nodes),
    },
    {
      key: 'groups',
      label: 'course groups, members_count (teacher)',
      token: w.teacher.token,
      path: `/api/v1/courses/${c}/groups?per_page=${perPage.groups}`,
      graphql: {
        query: operationOf('GET', '/api/v1/courses/:course_id/groups'),
        variables: { type: 'Course', id: String(c), first: perPage.groups, withUsers: false, withPermissions: false, withCategory: false },
      },
      restRows: ids,
      graphqlRows: (d) => ids(d?.contextGroupsConnection?.nodes),
    },
    {
      key: 'planner',
      label: 'planner items (student)',
      token: w.student.token,
      path: `/api/v1/planner/items?per_page=${perPage.planner}`,
      graphql: {
        query: operationOf('GET', '/api/v1/planner/items'),
        variables: { first: perPage.planner },
      },
      restRows: (b: Json[]) => (b ?? []).map((x) => `${x.plannable_type}:${x.plannable_id}`),
      graphqlRows: (d) => (d?.plannerItems?.nodes ?? []).map((x: Json) => `${x.plannable_type}:${x.plannable_id}`),
    },
    {
      key: 'self',
      label: 'users/self (student)',
      token: w.student.token,
      path: '/api/v1/users/self',
      graphql: { query: operationOf('GET', '/api/v1/users/:id'), variables: { id: 'self' } },
      restRows: (b) => (b?.id != null ? [String(b.id)] : []),
      graphqlRows: (d) => (d?.user?.id != null ? [String(d.user.id)] : []),
    },
    {
      // The floor: what each stack costs for a request that does no work (no token, no SQL), so the
      // shares above can be read against what the framework alone allows.
      key: 'floor',
      label: 'floor: GET /health/live, { __typename }',
      token: w.student.token,
      path: '/health/live',
      graphql: { query: '{ __typename }', variables: {} },
      restRows: (b) => (b?.status === 'ok' ? ['ok'] : []),
      graphqlRows: (d) => (d?.__typename === 'Query' ? ['ok'] : []),
    },
  ];
}
