import { RequestError } from '../common/errors';
import { defineFragment, RestInput, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { reshape, Reshape } from '../api/rest/present';
import { bool, id, ids, list, obj, params, text, z } from '../api/rest/input';
import { DeletedModuleSchema, MessageSchema, ModuleItemSchema, ModuleSchema } from './module.schemas';

defineFragment(`fragment ModuleItemJson on ModuleItem {
  id: _id module_id: moduleId position title indent type content_id: contentId html_url: htmlUrl url
  page_url: pageUrl external_url: externalUrl new_tab: newTab published
  completion_requirement: completionRequirement { type min_score: minScore min_percentage: minPercentage completed }
  content_details: contentDetails @include(if: $withDetails) {
    points_possible: pointsPossible due_at: dueAt unlock_at: unlockAt lock_at: lockAt locked_for_user: lockedForUser
    lock_explanation: lockExplanation lock_info: lockInfo { asset_string: assetString unlock_at: unlockAt lock_at: lockAt context_module_id: contextModuleId context_module_name: contextModuleName }
  }
}`);

defineFragment(`fragment ModuleJson on Module {
  id: _id workflow_state: workflowState position name unlock_at: unlockAt
  require_sequential_progress: requireSequentialProgress requirement_type: requirementType
  prerequisite_module_ids: prerequisiteModuleIds items_count: itemsCount items_url: itemsUrl
  state completed_at: completedAt publish_final_grade: publishFinalGrade published
  items @include(if: $withItems) { ...ModuleItemJson }
}`);

// ---- declared params (shared by the rows below) ----
export const courseId = id({ prefixes: ['sis_course_id'] });
export const studentId = id({ self: true, prefixes: ['sis_user_id', 'sis_login_id'] }).optional();
const searchTerm = text({ max: 255 }).optional();
export const moduleRef = { course_id: courseId, id: id() };
export const itemRef = { course_id: courseId, module_id: id(), id: id() };
// Values the module services check themselves (positions, dates, names, requirement types) are
// declared as scalars so Canvas's own validation messages still answer; shapes are enforced here.
export const scalar = text({ max: 4096 });
const moduleBody = obj({
  name: text().optional(),
  unlock_at: scalar.optional(),
  position: scalar.optional(),
  require_sequential_progress: bool().optional(),
  // `module_12` is an id too; words that are no module id are the service's 400.
  prerequisite_module_ids: ids(scalar).optional(),
  publish_final_grade: bool().optional(),
  published: bool().optional(),
  requirement_count: scalar.optional(),
});
const itemBody = obj({
  title: text().optional(),
  type: scalar.optional(),
  content_id: scalar.optional(),
  position: scalar.optional(),
  indent: scalar.optional(),
  page_url: scalar.optional(),
  external_url: scalar.optional(),
  new_tab: bool().optional(),
  completion_requirement: z.union([obj({ type: scalar.optional(), min_score: scalar.nullable().optional(), min_percentage: scalar.nullable().optional() }), scalar]).optional(),
  iframe: obj({ width: scalar.optional(), height: scalar.optional() }).optional(),
  published: bool().optional(),
  module_id: id().optional(),
});
export const overrideBody = obj({
  id: id({ nullable: true }).optional(),
  title: text({ max: 255 }).optional(),
  student_ids: list(id(), { max: 10_000 }).optional(),
  course_section_id: id({ nullable: true }).optional(),
  group_id: id({ nullable: true }).optional(),
});
type ModuleBody = z.output<typeof moduleBody>;
type ItemBody = z.output<typeof itemBody>;
/** A missing module or module_item hash is Canvas's own 400 ("missing module parameter"). */
const hashOrMissing = (shape: ReturnType<typeof obj>) => z.union([shape, scalar, z.null()]).optional();

type Json = Record<string, any>;
const VARS = '$withItems: Boolean!, $withDetails: Boolean!';

const REQUIREMENT: Reshape = {
  omit: (k, r) => (k === 'min_score' && r.type !== 'min_score') || (k === 'min_percentage' && r.type !== 'min_percentage') || (k === 'completed' && r.completed == null),
};

function presentDetails(details: Json): Json {
  const d: Json = {};
  for (const k in details) {
    const v = details[k];
    if (v == null) continue;
    if (k !== 'lock_info') {
      d[k] = v;
      continue;
    }
    // Canvas's lock_info: asset_string, the dates that lock it, and the module that locks it.
    const { context_module_id: moduleId, context_module_name: moduleName, ...rest } = v as Json;
    const info: Json = Object.fromEntries(Object.entries(rest).filter(([, x]) => x != null));
    if (moduleId != null) info.context_module = { id: Number(moduleId), name: moduleName };
    d.lock_info = info;
  }
  return d;
}

const ITEM: Reshape = {
  numeric: new Set(['id', 'module_id', 'content_id']),
  omitNull: new Set(['content_id', 'html_url', 'url', 'page_url', 'external_url', 'published', 'completion_requirement']),
  omit: (k, i) => k === 'new_tab' && i.type !== 'ExternalTool',
  nested: { completion_requirement: (r: Json) => reshape(r, REQUIREMENT), content_details: presentDetails },
};

/** Keys Canvas emits only where they apply. */
export function presentItem(i: Json): Json {
  return reshape(i, ITEM);
}

const MODULE: Reshape = {
  numeric: new Set(['id', 'prerequisite_module_ids']),
  omitNull: new Set(['published', 'items']),
  omit: (k, m) => m.state == null && (k === 'state' || k === 'completed_at'),
  nested: { items: (items: Json[]) => items.map(presentItem) },
};

export function presentModule(m: Json): Json {
  return reshape(m, MODULE);
}

function includes(input: RestInput): Json {
  const inc = new Set<string>(input.values.include ?? []);
  return { withItems: inc.has('items'), withDetails: inc.has('content_details') };
}

function moduleFields(input: RestInput, required: boolean): Json {
  const m = input.values.module as ModuleBody | string | null | undefined;
  if (m === undefined || typeof m !== 'object' || m === null) {
    if (required || m === undefined) throw new RequestError('missing module parameter', 400, { message: 'missing module parameter' });
  }
  const p: Partial<ModuleBody> = m && typeof m === 'object' ? m : {};
  // Positions and counts are declared as text so the service's own messages answer for non-numbers.
  const int = (v: string | undefined) => (v === undefined || v === '' ? undefined : Number(v));
  return {
    name: p.name,
    unlockAt: p.unlock_at === '' ? null : p.unlock_at,
    position: int(p.position),
    requireSequentialProgress: p.require_sequential_progress,
    prerequisiteModuleIds: p.prerequisite_module_ids,
    publishFinalGrade: p.publish_final_grade,
    published: p.published,
    requirementCount: p.requirement_count === undefined ? undefined : p.requirement_count === '' ? 0 : Number(p.requirement_count),
  };
}

function itemFields(input: RestInput): Json {
  const raw = input.values.module_item as ItemBody | string | null | undefined;
  if (raw === undefined || typeof raw !== 'object' || raw === null) throw new RequestError('missing module item parameter', 400, { message: 'missing module item parameter' });
  const p = raw;
  // Positions, sizes and thresholds are declared as text so the service's own messages answer.
  const int = (v: string | undefined) => (v === undefined || v === '' ? undefined : Number(v));
  // A threshold that is not a number is left out, so the service refuses min_score without one.
  const num = (v: string | null | undefined) => {
    const s = v?.trim();
    return s == null || s === '' || !Number.isFinite(Number(s)) ? undefined : Number(s);
  };
  const cr = p.completion_requirement;
  const clear = cr === '' || (cr != null && typeof cr === 'object' && Object.keys(cr).length === 0);
  const req = cr && typeof cr === 'object' ? cr : null;
  const iframe: { width?: string; height?: string } = p.iframe ?? {};
  return {
    title: p.title,
    type: p.type,
    contentId: p.content_id,
    position: int(p.position),
    indent: int(p.indent),
    pageUrl: p.page_url,
    externalUrl: p.external_url,
    newTab: p.new_tab,
    completionRequirement: req && !clear ? { type: req.type, minScore: num(req.min_score), minPercentage: num(req.min_percentage) } : undefined,
    clearRequirement: clear || undefined,
    iframeWidth: int(iframe.width),
    iframeHeight: int(iframe.height),
    published: p.published,
    targetModuleId: p.module_id,
  };
}

const moduleMutation = (name: string, input: string) => `mutation($input: ${input}!, ${VARS}) { ${name}(input: $input) { module { ...ModuleJson } ${PAYLOAD_ERRORS} } }`;
const itemMutation = (name: string, input: string) => `mutation($input: ${input}!, $withDetails: Boolean!) { ${name}(input: $input) { moduleItem { ...ModuleItemJson } ${PAYLOAD_ERRORS} } }`;
const ref = (v: Json) => ({ courseId: v.course_id, moduleId: v.module_id, id: v.id });

export const moduleRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/courses/:course_id/modules',
    accepts: params({ course_id: courseId, search_term: searchTerm, student_id: studentId }),
    operation: `query($courseId: ID!, $term: String, $studentId: ID, $first: Int, $after: String, ${VARS}) {
      modulesConnection(courseId: $courseId, searchTerm: $term, studentId: $studentId, includeItems: $withItems, first: $first, after: $after) {
      nodes { ...ModuleJson } totalCount pageInfo { hasNextPage endCursor } } }`,
    variables: (input) => ({ courseId: input.values.course_id, term: input.values.search_term, studentId: input.values.student_id, ...includes(input) }),
    root: 'modulesConnection',
    list: true,
    present: presentModule,
    response: ModuleSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/courses/:course_id/modules/:id',
    accepts: params({ ...moduleRef, student_id: studentId }),
    operation: `query($courseId: ID!, $id: ID!, $studentId: ID, ${VARS}) { module(courseId: $courseId, id: $id, studentId: $studentId) { ...ModuleJson } }`,
    variables: (input) => ({ courseId: input.values.course_id, id: input.values.id, studentId: input.values.student_id, ...includes(input) }),
    root: 'module',
    present: presentModule,
    response: ModuleSchema,
  },
  {
    method: 'POST',
    path: '/api/v1/courses/:course_id/modules',
    accepts: params({ course_id: courseId, module: hashOrMissing(moduleBody) }),
    operation: moduleMutation('createModule', 'CreateModuleInput'),
    variables: (input) => ({ input: { courseId: input.values.course_id, ...moduleFields(input, true) }, withItems: false, withDetails: false }),
    root: 'createModule',
    payloadKey: 'module',
    present: presentModule,
    response: ModuleSchema,
  },
  {
    method: 'PUT',
    path: '/api/v1/courses/:course_id/modules/:id',
    accepts: params({ ...moduleRef, module: hashOrMissing(moduleBody) }),
    operation: moduleMutation('updateModule', 'UpdateModuleInput'),
    variables: (input) => ({ input: { courseId: input.values.course_id, id: input.values.id, ...moduleFields(input, false) }, withItems: false, withDetails: false }),
    root: 'updateModule',
    payloadKey: 'module',
    present: presentModule,
    response: ModuleSchema,
  },
  {
    method: 'DELETE',
    path: '/api/v1/courses/:course_id/modules/:id',
    accepts: params(moduleRef),
    operation: `mutation($courseId: ID!, $id: ID!, ${VARS}) { deleteModule(courseId: $courseId, id: $id) { module { ...ModuleJson } ${PAYLOAD_ERRORS} } }`,
    variables: (input) => ({ courseId: input.values.course_id, id: input.values.id, withItems: false, withDetails: false }),
    root: 'deleteModule',
    payloadKey: 'module',
    present: (m: Json) => ({ ...presentModule(m), workflow_state: 'deleted' }),
    response: DeletedModuleSchema,
  },
  {
    method: 'PUT',
    path: '/api/v1/courses/:course_id/modules/:id/relock',
    accepts: params(moduleRef),
    operation: `mutation($courseId: ID!, $id: ID!, ${VARS}) { relockModule(courseId: $courseId, id: $id) { module { ...ModuleJson } ${PAYLOAD_ERRORS} } }`,
    variables: (input) => ({ courseId: input.values.course_id, id: input.values.id, withItems: false, withDetails: false }),
    root: 'relockModule',
    payloadKey: 'module',
    present: presentModule,
    response: ModuleSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/courses/:course_id/modules/:module_id/items',
    accepts: params({ course_id: courseId, module_id: id(), search_term: searchTerm, student_id: studentId }),
    operation: `query($courseId: ID!, $moduleId: ID!, $term: String, $studentId: ID, $first: Int, $after: String, $withDetails: Boolean!) {
      moduleItemsConnection(courseId: $courseId, moduleId: $moduleId, searchTerm: $term, studentId: $studentId, first: $first, after: $after) {
      nodes { ...ModuleItemJson } totalCount pageInfo { hasNextPage endCursor } } }`,
    variables: (input) => ({
      courseId: input.values.course_id,
      moduleId: input.values.module_id,
      term: input.values.search_term,
      studentId: input.values.student_id,
      withDetails: includes(input).withDetails,
    }),
    root: 'moduleItemsConnection',
    list: true,
    present: presentItem,
    response: ModuleItemSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/courses/:course_id/modules/:module_id/items/:id',
    accepts: params({ ...itemRef, student_id: studentId }),
    operation: `query($courseId: ID!, $moduleId: ID!, $id: ID!, $studentId: ID, $withDetails: Boolean!) {
      moduleItem(courseId: $courseId, moduleId: $moduleId, id: $id, studentId: $studentId) { ...ModuleItemJson } }`,
    variables: (input) => ({ ...ref(input.values), studentId: input.values.student_id, withDetails: includes(input).withDetails }),
    root: 'moduleItem',
    present: presentItem,
    response: ModuleItemSchema,
  },
  {
    method: 'POST',
    path: '/api/v1/courses/:course_id/modules/:module_id/items',
    accepts: params({ course_id: courseId, module_id: id(), module_item: hashOrMissing(itemBody) }),
    operation: itemMutation('createModuleItem', 'CreateModuleItemInput'),
    variables: (input) => {
      const { published: _p, targetModuleId: _t, ...fields } = itemFields(input);
      return { input: { courseId: input.values.course_id, moduleId: input.values.module_id, ...fields }, withDetails: false };
    },
    root: 'createModuleItem',
    payloadKey: 'moduleItem',
    present: presentItem,
    response: ModuleItemSchema,
  },
  {
    method: 'PUT',
    path: '/api/v1/courses/:course_id/modules/:module_id/items/:id',
    accepts: params({ ...itemRef, module_item: hashOrMissing(itemBody) }),
    operation: itemMutation('updateModuleItem', 'UpdateModuleItemInput'),
    variables: (input) => {
      const { type: _t, contentId: _c, pageUrl: _p, ...fields } = itemFields(input);
      return { input: { ...ref(input.values), ...fields }, withDetails: false };
    },
    root: 'updateModuleItem',
    payloadKey: 'moduleItem',
    present: presentItem,
    response: ModuleItemSchema,
  },
  {
    method: 'DELETE',
    path: '/api/v1/courses/:course_id/modules/:module_id/items/:id',
    accepts: params(itemRef),
    operation: itemMutation('deleteModuleItem', 'ModuleItemRefInput'),
    variables: (input) => ({ input: ref(input.values), withDetails: false }),
    root: 'deleteModuleItem',
    payloadKey: 'moduleItem',
    present: presentItem,
    response: ModuleItemSchema,
  },
  {
    method: 'POST',
    path: '/api/v1/courses/:course_id/modules/:module_id/items/:id/mark_read',
    accepts: params(itemRef),
    operation: `mutation($input: ModuleItemRefInput!) { markModuleItemRead(input: $input) { message ${PAYLOAD_ERRORS} } }`,
    variables: (input) => ({ input: ref(input.values) }),
    root: 'markModuleItemRead',
    present: (r: Json) => ({ message: r.message }),
    response: MessageSchema,
  },
  {
    method: 'PUT',
    path: '/api/v1/courses/:course_id/modules/:module_id/items/:id/done',
    accepts: params(itemRef),
    operation: `mutation($input: ModuleItemRefInput!) { markModuleItemDone(input: $input, done: true) { message ${PAYLOAD_ERRORS} } }`,
    variables: (input) => ({ input: ref(input.values) }),
    root: 'markModuleItemDone',
    present: (r: Json) => ({ message: r.message }),
    response: MessageSchema,
  },
  {
    method: 'DELETE',
    path: '/api/v1/courses/:course_id/modules/:module_id/items/:id/done',
    accepts: params(itemRef),
    operation: `mutation($input: ModuleItemRefInput!) { markModuleItemDone(input: $input, done: false) { message ${PAYLOAD_ERRORS} } }`,
    variables: (input) => ({ input: ref(input.values) }),
    root: 'markModuleItemDone',
    present: (r: Json) => ({ message: r.message }),
    response: MessageSchema,
  },
];
