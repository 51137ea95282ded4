import { defineFragment, RestInput, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { numericIds, omitNull } from '../api/rest/present';
import { validationBody } from '../api/rest/errors';
import type { FieldError } from '../common/errors';
import { userParams as P } from './user.params';
import { UserSchema } from './user.schemas';

defineFragment(`fragment UserJson on User {
  id: _id name created_at: createdAt sortable_name: sortableName short_name: shortName
  first_name: firstName last_name: lastName sis_user_id: sisUserId integration_id: integrationId
  login_id: loginId email avatar_url: avatarUrl locale time_zone: timeZone uuid
}`);

export const presentUser = (u: Record<string, unknown>) =>
  omitNull(numericIds(u, ['id']), ['sis_user_id', 'integration_id', 'login_id', 'email']);

/** Canvas nests user-create errors per object: user, pseudonym, observee, pairing_code. */
export function userCreateErrors(fields: FieldError[]) {
  const pseudonymFields = new Set(['unique_id', 'sis_user_id', 'password']);
  return {
    errors: {
      user: validationBody(fields.filter((f) => !pseudonymFields.has(f.attribute))).errors,
      pseudonym: validationBody(fields.filter((f) => pseudonymFields.has(f.attribute))).errors,
      observee: {},
      pairing_code: {},
      recaptcha: null,
    },
  };
}

const ACCOUNT_USERS = `query($id: ID!, $first: Int, $after: String, $searchTerm: String, $sort: String, $order: String) {
  account(id: $id) { usersConnection(first: $first, after: $after, searchTerm: $searchTerm, sort: $sort, order: $order) {
    nodes { ...UserJson } pageInfo { hasNextPage endCursor } } } }`;
const accountUsersVariables = ({ values }: RestInput) => ({ id: values.account_id, searchTerm: values.search_term, sort: values.sort, order: values.order });

export const userRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/accounts/:account_id/users',
    accepts: P.create,
    operation: `mutation($input: CreateUserInput!) { createUser(input: $input) { user { ...UserJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => {
      const user: Record<string, any> = values.user ?? {};
      const login: Record<string, any> = values.pseudonym ?? {};
      return {
        input: {
          accountId: values.account_id,
          name: user.name,
          shortName: user.short_name,
          sortableName: user.sortable_name,
          timeZone: user.time_zone,
          locale: user.locale,
          skipRegistration: user.skip_registration,
          uniqueId: login.unique_id,
          sisUserId: login.sis_user_id,
          integrationId: login.integration_id,
        },
      };
    },
    root: 'createUser',
    payloadKey: 'user',
    validationBody: userCreateErrors,
    present: presentUser,
    response: UserSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/:account_id/users',
    accepts: P.list,
    operation: ACCOUNT_USERS,
    variables: accountUsersVariables,
    root: 'account.usersConnection',
    // Canvas numbers these pages without a last link (it pages them with total_entries: nil): no
    // count of the account's users runs, and next follows the page's extra row.
    list: true,
    present: presentUser,
    response: UserSchema,
    // sort=id: Canvas's bookmarked pages, for clients that read every page in bulk.
    variants: [{ when: (v) => v.sort === 'id', operation: ACCOUNT_USERS, variables: accountUsersVariables, root: 'account.usersConnection', list: { bookmark: true } }],
  },
  {
    method: 'GET',
    path: '/api/v1/users/:id',
    accepts: P.user,
    operation: `query($id: ID!) { user(id: $id) { ...UserJson } }`,
    variables: ({ values }) => ({ id: values.id }),
    root: 'user',
    present: presentUser,
    response: UserSchema,
  },
];
