import { RequestError } from '../common/errors';
import { RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { str, strArray } from '../api/rest/params';
import { numericIds } from '../api/rest/present';
import { presentAssignment } from '../content/assignments/assignment.routes';
import { id, list, params, text, z } from '../api/rest/input';
import { courseId, itemRef, overrideBody, presentItem, presentModule, scalar, studentId } from './module.routes';
import { MasteryPathSelectionSchema, ModuleItemSequenceSchema, ModuleOverrideSchema } from './module.schemas';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Canvas JSON, shaped by the rows' presenters
type Json = Record<string, any>;

function presentOverride(o: Json): Json {
  const out: Json = numericIds({ id: o.id, context_module_id: o.context_module_id, title: o.title }, ['id', 'context_module_id']);
  // The spec: students and course_section are null when they do not apply (Canvas leaves them out).
  out.students = o.students ? o.students.map((s: Json) => numericIds(s, ['id'])) : null;
  out.course_section = o.course_section ? numericIds(o.course_section, ['id']) : null;
  if (o.group) out.group = numericIds(o.group, ['id']);
  return out;
}

/** Read raw: a hash with word keys is a list of its values here, where list() would read it as one item. */
function overridesBody(raw: unknown): Json[] {
  const list = Array.isArray(raw) ? raw : raw && typeof raw === 'object' ? Object.values(raw as Json) : null;
  if (!list) throw new RequestError('List of overrides required', 400, { error: 'List of overrides required' });
  return list.map((o: Json) => ({
    id: o.id == null ? undefined : String(o.id),
    title: str(o.title),
    studentIds: o.student_ids == null ? undefined : strArray(o.student_ids),
    courseSectionId: o.course_section_id == null ? undefined : String(o.course_section_id),
    groupId: o.group_id == null ? undefined : String(o.group_id),
  }));
}

const presentNode = (n: Json) => ({
  prev: n.prev ? presentItem(n.prev) : null,
  current: presentItem(n.current),
  next: n.next ? presentItem(n.next) : null,
  mastery_path: n.mastery_path
    ? {
        locked: n.mastery_path.locked,
        assignment_sets: n.mastery_path.assignment_sets.map((s: Json) => ({ id: Number(s.id), assignment_ids: s.assignment_ids.map(Number) })),
        selected_set_id: n.mastery_path.selected_set_id == null ? null : Number(n.mastery_path.selected_set_id),
        awaiting_choice: n.mastery_path.awaiting_choice,
        still_processing: n.mastery_path.still_processing,
        modules_url: n.mastery_path.modules_url,
        choose_url: n.mastery_path.choose_url,
        modules_tab_disabled: n.mastery_path.modules_tab_disabled,
      }
    : null,
});

/** Overrides, sequences, mastery path selection and item redirects: the module rows beside the CRUD ones. */
export const moduleExtraRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/courses/:course_id/module_item_sequence',
    accepts: params({ course_id: courseId, asset_type: text({ max: 64 }).optional(), asset_id: text({ max: 255 }).optional() }),
    operation: `query($courseId: ID!, $type: String, $id: String, $withItems: Boolean!, $withDetails: Boolean!) {
      moduleItemSequence(courseId: $courseId, assetType: $type, assetId: $id) {
        items { prev { ...ModuleItemJson } current { ...ModuleItemJson } next { ...ModuleItemJson }
          mastery_path: masteryPath { locked assignment_sets: assignmentSets { id assignment_ids: assignmentIds } selected_set_id: selectedSetId
            awaiting_choice: awaitingChoice still_processing: stillProcessing modules_url: modulesUrl choose_url: chooseUrl modules_tab_disabled: modulesTabDisabled } }
        modules { ...ModuleJson } } }`,
    variables: ({ values }) => ({ courseId: values.course_id, type: values.asset_type, id: values.asset_id, withItems: false, withDetails: false }),
    root: 'moduleItemSequence',
    present: (s: Json) => ({ items: s.items.map(presentNode), modules: s.modules.map(presentModule) }),
    response: ModuleItemSequenceSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/courses/:course_id/modules/:context_module_id/assignment_overrides',
    accepts: params({ course_id: courseId, context_module_id: id() }),
    operation: `query($courseId: ID!, $moduleId: ID!, $first: Int, $after: String) { moduleOverridesConnection(courseId: $courseId, moduleId: $moduleId, first: $first, after: $after) {
      nodes { id: _id context_module_id: moduleId title students { id name } course_section: courseSection { id name } group { id non_collaborative: nonCollaborative } }
      totalCount pageInfo { hasNextPage endCursor } } }`,
    variables: ({ values }) => ({ courseId: values.course_id, moduleId: values.context_module_id }),
    root: 'moduleOverridesConnection',
    list: true,
    present: presentOverride,
    response: ModuleOverrideSchema,
  },
  {
    method: 'PUT',
    path: '/api/v1/courses/:course_id/modules/:context_module_id/assignment_overrides',
    accepts: params({
      course_id: courseId,
      context_module_id: id(),
      // A scalar is Canvas's "List of overrides required"; objects inside are checked.
      overrides: z.union([list(overrideBody, { max: 1_000 }), scalar]).optional(),
    }),
    operation: `mutation($courseId: ID!, $moduleId: ID!, $overrides: [ModuleOverrideInput!]!) { setModuleOverrides(courseId: $courseId, moduleId: $moduleId, overrides: $overrides) { ok ${PAYLOAD_ERRORS} } }`,
    variables: ({ params, values }) => ({ courseId: values.course_id, moduleId: values.context_module_id, overrides: overridesBody(params.overrides) }),
    root: 'setModuleOverrides',
    status: 204,
  },
  {
    method: 'POST',
    path: '/api/v1/courses/:course_id/modules/:module_id/items/:id/select_mastery_path',
    accepts: params({ ...itemRef, assignment_set_id: id().optional(), student_id: studentId }),
    operation: `mutation($courseId: ID!, $moduleId: ID!, $itemId: ID!, $setId: ID, $studentId: ID, $withDetails: Boolean!) {
      selectMasteryPath(courseId: $courseId, moduleId: $moduleId, itemId: $itemId, assignmentSetId: $setId, studentId: $studentId) {
        assignmentIds assignments { ...AssignmentJson } moduleItems { ...ModuleItemJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({
      courseId: values.course_id,
      moduleId: values.module_id,
      itemId: values.id,
      setId: values.assignment_set_id,
      studentId: values.student_id,
      withDetails: false,
    }),
    root: 'selectMasteryPath',
    present: (r: Json, input) => ({
      meta: { primaryCollection: 'assignments' },
      items: (r.moduleItems ?? []).map(presentItem),
      assignments: (r.assignments ?? []).map((a: Json) => presentAssignment(a, input)),
    }),
    response: MasteryPathSelectionSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/courses/:course_id/module_item_redirect/:id',
    accepts: params({ course_id: courseId, id: id() }),
    operation: `mutation($courseId: ID!, $id: ID!) { followModuleItemRedirect(courseId: $courseId, id: $id) { url ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({ courseId: values.course_id, id: values.id }),
    root: 'followModuleItemRedirect',
    redirect: (r: Json) => r.url,
  },
];
