import { defineFragment, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { numericIds } from '../api/rest/present';
import { id, list, params, text } from '../api/rest/input';
import { CreatedToolProxySchema, LtiAccessTokenSchema, ToolProxySchema } from './tool-proxy.schemas';

const accountId = id({ self: true, prefixes: ['sis_account_id'] });

defineFragment(`fragment ToolProxyJson on ToolProxy {
  id: _id guid name capabilities context_type: contextType context_id: contextId account_id: accountId
  root_account_id: rootAccountId developer_key: developerKey workflow_state: workflowState created_at: createdAt updated_at: updatedAt
}`);

type Json = Record<string, any>;

export const presentToolProxy = (p: Json): Json => numericIds(p, ['id', 'context_id', 'account_id', 'root_account_id']);

/** OAuth 2 token responses must not be cached (RFC 6749 §5.1). */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** The JWT-bearer grant under both Canvas paths; no user is authenticated (credentials are not read). */
const authorize = (path: string, contextType: 'Account' | 'Course', idParam: string): RestRoute => ({
  method: 'POST',
  path,
  // The grant's own checks answer Canvas's OAuth errors (invalid_grant …); here only shapes and sizes.
  accepts: params({ [idParam]: id({ self: true, prefixes: ['sis_account_id', 'sis_course_id'] }), grant_type: text({ max: 255 }).optional(), assertion: text({ max: 16_384 }).optional(), scope: text({ max: 4096 }).optional() }),
  operation: `mutation($input: LtiAuthorizeInput!) { ltiAuthorize(input: $input) { accessToken tokenType expiresIn } }`,
  variables: ({ values }) => ({
    input: { contextType, contextId: values[idParam], grantType: values.grant_type ?? null, assertion: values.assertion ?? null },
  }),
  root: 'ltiAuthorize',
  present: (t: Json) => ({ access_token: t.accessToken, token_type: t.tokenType, expires_in: t.expiresIn }),
  response: LtiAccessTokenSchema,
  headers: () => NO_STORE,
  anonymous: true,
  auth: 'none',
});

export const ltiRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/accounts/:account_id/tool_proxies',
    accepts: params({ account_id: accountId, name: text({ max: 255 }).optional(), capabilities: list(text({ max: 255 })).optional(), context_type: text({ max: 64 }).optional(), context_id: text({ max: 255 }).optional() }),
    operation: `mutation($input: CreateToolProxyInput!) { createToolProxy(input: $input) { toolProxy { ...ToolProxyJson } sharedSecret ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({
      input: {
        accountId: values.account_id,
        name: values.name ?? null,
        capabilities: values.capabilities ?? null,
        contextType: values.context_type,
        contextId: values.context_id,
      },
    }),
    root: 'createToolProxy',
    // The only response that carries the shared secret.
    present: (r: Json) => ({ ...presentToolProxy(r.toolProxy), shared_secret: r.sharedSecret }),
    response: CreatedToolProxySchema,
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/:account_id/tool_proxies',
    accepts: params({ account_id: accountId }),
    operation: `query($account: ID!, $first: Int, $after: String) { toolProxiesConnection(accountId: $account, first: $first, after: $after) {
      nodes { ...ToolProxyJson } pageInfo { hasNextPage endCursor } } }`,
    variables: ({ values }) => ({ account: values.account_id }),
    root: 'toolProxiesConnection',
    // Not a Canvas endpoint (our LTI 2 registration) and no last link promised: Link next is a bookmark
    // (the page's last key) and nothing is counted; page=N still reads that page.
    list: { bookmark: true, numbered: true },
    present: presentToolProxy,
    response: ToolProxySchema,
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/:account_id/tool_proxies/:id',
    accepts: params({ account_id: accountId, id: id() }),
    operation: `query($id: ID!, $account: ID) { toolProxy(id: $id, accountId: $account) { ...ToolProxyJson } }`,
    variables: ({ values }) => ({ id: values.id, account: values.account_id }),
    root: 'toolProxy',
    present: presentToolProxy,
    response: ToolProxySchema,
  },
  {
    method: 'PUT',
    path: '/api/v1/accounts/:account_id/tool_proxies/:id',
    accepts: params({ account_id: accountId, id: id(), name: text({ max: 255 }).optional(), capabilities: list(text({ max: 255 })).optional() }),
    operation: `mutation($input: UpdateToolProxyInput!) { updateToolProxy(input: $input) { toolProxy { ...ToolProxyJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({
      input: { id: values.id, accountId: values.account_id, name: values.name, capabilities: values.capabilities },
    }),
    root: 'updateToolProxy',
    payloadKey: 'toolProxy',
    present: presentToolProxy,
    response: ToolProxySchema,
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/:account_id/tool_proxies/:id',
    accepts: params({ account_id: accountId, id: id() }),
    operation: `mutation($id: ID!, $account: ID) { deleteToolProxy(id: $id, accountId: $account) { toolProxy { ...ToolProxyJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({ id: values.id, account: values.account_id }),
    root: 'deleteToolProxy',
    payloadKey: 'toolProxy',
    present: presentToolProxy,
    response: ToolProxySchema,
  },
  authorize('/api/lti/accounts/:account_id/authorize', 'Account', 'account_id'),
  authorize('/api/lti/courses/:course_id/authorize', 'Course', 'course_id'),
];
