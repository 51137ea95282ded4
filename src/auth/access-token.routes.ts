import { defineFragment, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { numericIds } from '../api/rest/present';
import { bool, id, list, obj, params, text, z } from '../api/rest/input';
import { FieldError, RequestError } from '../common/errors';
import { AccessTokenSchema } from './access-token.schemas';

defineFragment(`fragment TokenJson on AccessToken {
  id: _id user_id: userId purpose created_at: createdAt updated_at: updatedAt expires_at: expiresAt
  last_used_at: lastUsedAt workflow_state: workflowState real_user_id: realUserId
  token_hint: tokenHint visible_token: visibleToken app_name: appName can_manually_regenerate: canManuallyRegenerate
}`);

// ---- declared params ----
const userId = id({ self: true, prefixes: ['sis_user_id', 'sis_login_id'] });
/** A token's numeric id or its 5-character hint; anything else names no token (404). */
const tokenId = z.union([z.string().regex(/^(\d{1,15}|[A-Za-z0-9]{5})$/), z.number().int().min(0)], { error: 'must be a token id or token hint' }).transform(String);
const tokenRef = { user_id: userId, id: tokenId };
// Canvas accepts token[scopes][] and ignores it unless its default developer key enforces scopes;
// ours never does, so a token always acts with its user's permissions.
// expires_at is left to the GraphQL DateTime scalar, whose refusal names the field as Canvas does.
const tokenFields = {
  purpose: text({ max: 4096 }).optional(),
  expires_at: z.union([text({ max: 64 }), z.null()]).optional(),
  scopes: list(text({ max: 255 }), { max: 100 }).optional(),
};
const tokenBody = obj({ ...tokenFields, regenerate: bool().optional() });

/** Canvas's Token JSON; visible_token is the full token only in the response that made it. */
const present = (t: Record<string, unknown>) => ({
  ...numericIds(t, ['id', 'user_id', 'real_user_id']),
  remember_access: null,
  scopes: null,
});

/** Canvas answers an expired token's regeneration without a new expiry with a bare message. */
function updateErrors(fields: FieldError[]): unknown {
  const expired = fields.find((f) => f.type === 'regenerate_expired');
  if (expired) return { errors: { message: expired.message } };
  const errors: Record<string, FieldError[]> = {};
  for (const f of fields) (errors[f.attribute] ??= []).push(f);
  return { errors };
}

/** A blank text ('' or JSON null) clears the field. */
const blankNull = (v: string | null | undefined) => (v === undefined ? undefined : v || null);

const ref = (v: Record<string, any>) => ({ userId: v.user_id, id: v.id });

export const accessTokenRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/users/:user_id/user_generated_tokens',
    accepts: params({ user_id: userId }),
    operation: `query($userId: ID!, $first: Int, $after: String) { accessTokens(userId: $userId, first: $first, after: $after) {
      nodes { ...TokenJson } pageInfo { hasNextPage endCursor } } }`,
    variables: ({ values }) => ({ userId: values.user_id }),
    root: 'accessTokens',
    list: { bookmark: true },
    present,
    response: AccessTokenSchema,
  },
  {
    method: 'POST',
    path: '/api/v1/users/:user_id/tokens',
    accepts: params({ user_id: userId, token: obj(tokenFields).optional() }),
    operation: `mutation($input: CreateAccessTokenInput!) { createAccessToken(input: $input) {
      accessToken { ...TokenJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => {
      const token: Record<string, any> = values.token ?? {};
      return { input: { userId: values.user_id, purpose: token.purpose, expiresAt: blankNull(token.expires_at) } };
    },
    root: 'createAccessToken',
    payloadKey: 'accessToken',
    // Canvas answers a missing purpose as params.require does, with a bare array body.
    validationBody: (fields) =>
      fields.map((f) => ({ message: f.type === 'blank' ? `token[${f.attribute}] is missing` : `token[${f.attribute}] ${f.message}` })),
    present,
    response: AccessTokenSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/users/:user_id/tokens/:id',
    accepts: params(tokenRef),
    operation: `query($userId: ID!, $id: ID!) { accessToken(userId: $userId, id: $id) { ...TokenJson } }`,
    variables: ({ values }) => ref(values),
    root: 'accessToken',
    present,
    response: AccessTokenSchema,
  },
  {
    method: 'PUT',
    path: '/api/v1/users/:user_id/tokens/:id',
    accepts: params({ ...tokenRef, token: tokenBody.optional() }),
    operation: `mutation($input: UpdateAccessTokenInput!) { updateAccessToken(input: $input) {
      accessToken { ...TokenJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => {
      // Canvas's params.require(:token).
      if (values.token == null || typeof values.token !== 'object') throw new RequestError('token is missing', 400, { errors: [{ message: 'token is missing' }] });
      const token: Record<string, any> = values.token;
      return {
        input: { ...ref(values), purpose: 'purpose' in token ? blankNull(token.purpose) : undefined, expiresAt: blankNull(token.expires_at), regenerate: token.regenerate },
      };
    },
    root: 'updateAccessToken',
    payloadKey: 'accessToken',
    validationBody: updateErrors,
    present,
    response: AccessTokenSchema,
  },
  {
    method: 'DELETE',
    path: '/api/v1/users/:user_id/tokens/:id',
    accepts: params(tokenRef),
    operation: `mutation($input: DeleteAccessTokenInput!) { deleteAccessToken(input: $input) {
      accessToken { ...TokenJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({ input: ref(values) }),
    root: 'deleteAccessToken',
    payloadKey: 'accessToken',
    present,
    response: AccessTokenSchema,
  },
];
