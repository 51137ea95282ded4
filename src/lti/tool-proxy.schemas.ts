import { arr, defineSchema, shape } from '../api/rest/response';

const toolProxy = {
  id: 'id', guid: 'string', name: 'string', capabilities: arr('string'), context_type: 'string', context_id: 'id',
  account_id: 'id', root_account_id: 'id', developer_key: 'string', workflow_state: 'string', created_at: 'date', updated_at: 'date',
} as const;

export const ToolProxySchema = defineSchema('ToolProxy', shape(toolProxy));

/** The create answer carries the shared secret, once. */
export const CreatedToolProxySchema = defineSchema('CreatedToolProxy', shape({ ...toolProxy, shared_secret: 'string' }));

/** An OAuth 2 token response (RFC 6749 §5.1). */
export const LtiAccessTokenSchema = defineSchema('LtiAccessToken', shape({ access_token: 'string', token_type: 'string', expires_in: 'string' }));
