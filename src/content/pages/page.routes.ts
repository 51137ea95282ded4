import { defineFragment, RestInput, RestRoute, PAYLOAD_ERRORS } from '../../api/rest/route';
import { numericIds } from '../../api/rest/present';
import { bool, obj, oneOf, params, text as textParam } from '../../api/rest/input';
import { checked, checkedDate, courseId, html } from '../content.params';
import { PageSchema } from './page.schemas';

defineFragment(`fragment PageJson on Page {
  page_id: _id url title created_at: createdAt updated_at: updatedAt hide_from_students: hideFromStudents
  editing_roles: editingRoles published front_page: frontPage todo_date: todoDate html_url: htmlUrl
  last_edited_by: lastEditedBy { id: _id display_name: shortName avatar_image_url: avatarUrl }
  body @include(if: $withBody)
}`);

type Json = Record<string, any>;

export function presentPage(p: Json, input: RestInput): Json {
  const out: Json = numericIds(p, ['page_id']);
  out.last_edited_by = p.last_edited_by
    ? { ...numericIds(p.last_edited_by, ['id']), html_url: `${input.ctx.baseUrl}/courses/${input.params.course_id}/users/${p.last_edited_by.id}` }
    : null;
  return { ...out, publish_at: null, locked_for_user: false };
}

function pageFields(values: Json): Json {
  const w: Json = values.wiki_page ?? {};
  return {
    title: w.title,
    body: w.body,
    published: w.published,
    frontPage: w.front_page,
    editingRoles: w.editing_roles ?? undefined,
    // Canvas writes the to-do date as student_todo_at (wiki_page[todo_date] is ignored).
    studentTodoAt: w.student_todo_at,
    studentPlannerCheckbox: w.student_planner_checkbox,
  };
}

// ---- declared params ----
// Titles, editing roles and the to-do date are the service's to check (Canvas's messages, keyed by
// attribute); the body's byte limit is the service's too, the schema bounds its characters.
const pageBody = obj({
  title: checked().optional(),
  body: html().optional(),
  published: bool().optional(),
  front_page: bool().optional(),
  editing_roles: checked().optional(),
  student_todo_at: checkedDate().optional(),
  student_planner_checkbox: bool().optional(),
});
const course = { course_id: courseId() };
/** A slug (page urls are at most 255 characters), `page_id:<id>` or a numeric id. */
const one = { ...course, url_or_id: textParam({ min: 1, max: 255 }) };
const body = { wiki_page: pageBody.optional() };

const PATH = '/api/v1/courses/:course_id/pages';
const mutation = (name: string, type: string) => `mutation($input: ${type}!, $withBody: Boolean!) { ${name}(input: $input) { page { ...PageJson } ${PAYLOAD_ERRORS} } }`;

export const pageRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: PATH,
    accepts: params({ ...course, ...body }),
    operation: mutation('createPage', 'CreatePageInput'),
    variables: ({ values }) => ({ input: { courseId: values.course_id, ...pageFields(values) }, withBody: true }),
    root: 'createPage',
    payloadKey: 'page',
    present: presentPage,
    response: PageSchema,
  },
  {
    method: 'GET',
    path: PATH,
    accepts: params({
      ...course,
      // At least 2 characters: the service answers that with Canvas's own body.
      search_term: textParam({ max: 255 }).optional(),
      sort: oneOf(['title', 'created_at', 'updated_at']).optional(),
      order: oneOf(['asc', 'desc']).optional(),
      published: bool().optional(),
    }),
    operation: `query($id: ID!, $first: Int, $after: String, $term: String, $sort: String, $order: String, $published: Boolean, $withBody: Boolean!) { course(id: $id) {
      pagesConnection(first: $first, after: $after, searchTerm: $term, sort: $sort, order: $order, published: $published) {
        nodes { ...PageJson } totalCount pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ values }) => ({
      id: values.course_id,
      term: values.search_term,
      sort: values.sort,
      order: values.order,
      published: values.published,
      // Canvas lists pages without their bodies unless include[]=body.
      withBody: (values.include ?? []).includes('body'),
    }),
    root: 'course.pagesConnection',
    list: true,
    present: presentPage,
    response: PageSchema,
  },
  {
    method: 'GET',
    path: `${PATH}/:url_or_id`,
    accepts: params(one),
    operation: `query($courseId: ID!, $urlOrId: String!, $withBody: Boolean!) { page(courseId: $courseId, urlOrId: $urlOrId) { ...PageJson } }`,
    variables: ({ values }) => ({ courseId: values.course_id, urlOrId: values.url_or_id, withBody: true }),
    root: 'page',
    present: presentPage,
    response: PageSchema,
  },
  {
    method: 'PUT',
    path: `${PATH}/:url_or_id`,
    accepts: params({ ...one, ...body }),
    operation: mutation('updatePage', 'UpdatePageInput'),
    variables: ({ values }) => ({ input: { courseId: values.course_id, urlOrId: values.url_or_id, ...pageFields(values) }, withBody: true }),
    root: 'updatePage',
    payloadKey: 'page',
    present: presentPage,
    response: PageSchema,
  },
  {
    method: 'DELETE',
    path: `${PATH}/:url_or_id`,
    accepts: params(one),
    operation: `mutation($input: PageRefInput!, $withBody: Boolean!) { deletePage(input: $input) { page { ...PageJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({ input: { courseId: values.course_id, urlOrId: values.url_or_id }, withBody: true }),
    root: 'deletePage',
    payloadKey: 'page',
    present: presentPage,
    response: PageSchema,
  },
];
