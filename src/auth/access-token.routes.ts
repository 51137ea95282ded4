import { defineFragment, RestRoute, PAYLOAD_ERRORS } from '../rest/route';
import { nullableStr, str, tree } from '../rest/params';
import { numericIds } from '../rest/present';

defineFragment(`fragment TokenJson on AccessToken {
  id: _id user_id: userId purpose created_at: createdAt updated_at: updatedAt expires_at: expiresAt
  last_used_at: lastUsedAt workflow_state: workflowState real_user_id: realUserId
  token_hint: tokenHint visible_token: visibleToken
}`);

export const accessTokenRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/users/:user_id/tokens',
    operation: `mutation($input: CreateAccessTokenInput!) { createAccessToken(input: $input) {
      accessToken { ...TokenJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ params }) => {
      const token = tree(params.token);
      return { input: { userId: str(params.user_id), purpose: str(token.purpose), expiresAt: nullableStr(token.expires_at) } };
    },
    root: 'createAccessToken',
    payloadKey: 'accessToken',
    // Canvas answers a missing purpose as params.require does, with a bare array body.
    validationBody: (fields) =>
      fields.map((f) => ({ message: f.type === 'blank' ? `token[${f.attribute}] is missing` : `token[${f.attribute}] ${f.message}` })),
    present: (t) => ({
      ...numericIds(t, ['id', 'user_id', 'real_user_id']),
      app_name: 'No App',
      remember_access: null,
      scopes: null,
      can_manually_regenerate: true,
    }),
  },
];
