import { defineFragment, RestRoute, PAYLOAD_ERRORS } from '../../api/rest/route';
import { numericIds } from '../../api/rest/present';
import { hash, id, nullableText, oneOf, params } from '../../api/rest/input';
import { checked, courseId, html } from '../content.params';
import { PRIVACY_LEVELS } from './external-tool.entity';
import { ExternalToolSchema } from './external-tool.schemas';

defineFragment(`fragment ExternalToolJson on ExternalTool {
  id: _id name description url domain consumer_key: consumerKey privacy_level: privacyLevel workflow_state: workflowState
  created_at: createdAt updated_at: updatedAt custom_fields: customFields { name value }
}`);

type Json = Record<string, any>;

/** Tool JSON as Canvas's: workflow_state is the privacy level while the tool lives; the shared secret never appears. */
export function presentTool(t: Json): Json {
  const out = numericIds(t, ['id']);
  return {
    ...out,
    workflow_state: t.workflow_state === 'deleted' ? 'deleted' : t.privacy_level,
    custom_fields: Object.fromEntries((t.custom_fields as { name: string; value: string }[]).map((f) => [f.name, f.value])),
    is_rce_favorite: false,
    not_selectable: false,
    version: '1.1',
    deployment_id: null,
    developer_key_id: null,
    vendor_help_link: null,
    icon_url: null,
  };
}

function toolFields(v: Json): Json {
  const custom = v.custom_fields === undefined ? undefined : Object.entries(v.custom_fields as Record<string, string | null>).map(([name, value]) => ({ name, value: value ?? '' }));
  return {
    name: v.name,
    description: v.description,
    url: v.url,
    domain: v.domain,
    consumerKey: v.consumer_key,
    sharedSecret: v.shared_secret,
    privacyLevel: v.privacy_level,
    customFields: custom,
  };
}

// ---- declared params ----
// The name, the url's scheme and the domain's form are the service's to check; lengths are the columns'.
const toolBody = {
  name: checked().optional(),
  description: html().optional(),
  url: nullableText({ max: 2048 }).optional(),
  domain: nullableText({ max: 255 }).optional(),
  consumer_key: nullableText({ max: 255 }).optional(),
  shared_secret: nullableText({ max: 255 }).optional(),
  privacy_level: oneOf(PRIVACY_LEVELS).optional(),
  // custom_fields[<name>]=<value>, kept as one JSON TEXT value: names are the service's to check.
  custom_fields: hash(nullableText({ max: 1024 }), { max: 32 }).optional(),
};
const course = { course_id: courseId() };
const one = { ...course, id: id() };

const PATH = '/api/v1/courses/:course_id/external_tools';
const mutation = (name: string, type: string) => `mutation($input: ${type}!) { ${name}(input: $input) { externalTool { ...ExternalToolJson } ${PAYLOAD_ERRORS} } }`;

export const externalToolRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: PATH,
    accepts: params({ ...course, ...toolBody }),
    operation: mutation('createExternalTool', 'CreateExternalToolInput'),
    variables: ({ values }) => ({ input: { courseId: values.course_id, ...toolFields(values) } }),
    root: 'createExternalTool',
    payloadKey: 'externalTool',
    present: presentTool,
    response: ExternalToolSchema,
  },
  {
    method: 'GET',
    path: PATH,
    accepts: params(course),
    operation: `query($id: ID!, $first: Int, $after: String) { course(id: $id) {
      externalToolsConnection(first: $first, after: $after) { nodes { ...ExternalToolJson } totalCount pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ values }) => ({ id: values.course_id }),
    root: 'course.externalToolsConnection',
    list: true,
    present: presentTool,
    response: ExternalToolSchema,
  },
  {
    method: 'GET',
    path: `${PATH}/:id`,
    accepts: params(one),
    operation: `query($id: ID!, $courseId: ID!) { externalTool(id: $id, courseId: $courseId) { ...ExternalToolJson } }`,
    variables: ({ values }) => ({ id: values.id, courseId: values.course_id }),
    root: 'externalTool',
    present: presentTool,
    response: ExternalToolSchema,
  },
  {
    method: 'PUT',
    path: `${PATH}/:id`,
    accepts: params({ ...one, ...toolBody }),
    operation: mutation('updateExternalTool', 'UpdateExternalToolInput'),
    variables: ({ values }) => ({ input: { id: values.id, courseId: values.course_id, ...toolFields(values) } }),
    root: 'updateExternalTool',
    payloadKey: 'externalTool',
    present: presentTool,
    response: ExternalToolSchema,
  },
  {
    method: 'DELETE',
    path: `${PATH}/:id`,
    accepts: params(one),
    operation: `mutation($input: ContentRefInput!) { deleteExternalTool(input: $input) { externalTool { ...ExternalToolJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({ input: { id: values.id, courseId: values.course_id } }),
    root: 'deleteExternalTool',
    payloadKey: 'externalTool',
    present: presentTool,
    response: ExternalToolSchema,
  },
];
