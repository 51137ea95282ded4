import { constant, defineSchema, shape } from '../api/rest/response';

/** Canvas's Token JSON; visible_token is the whole token only in the answer that made (or regenerated) it. */
export const AccessTokenSchema = defineSchema(
  'AccessToken',
  shape({
    id: 'id', user_id: 'id', purpose: 'string', created_at: 'date', updated_at: 'date', expires_at: 'date?',
    last_used_at: 'date?', workflow_state: 'string', real_user_id: 'id?', token_hint: 'string', visible_token: 'string',
    app_name: 'string', can_manually_regenerate: 'bool', remember_access: constant(null), scopes: constant(null),
  }),
);
