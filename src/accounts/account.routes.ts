import { defineFragment, RestRoute } from '../api/rest/route';
import { numericIds } from '../api/rest/present';
import { params } from '../api/rest/input';
import { accountId } from './account.params';
import { AccountSchema } from './account.schemas';

defineFragment(`fragment AccountJson on Account {
  id: _id name uuid parent_account_id: parentAccountId root_account_id: rootAccountId
  workflow_state: workflowState default_time_zone: defaultTimeZone sis_account_id: sisAccountId
}`);

const presentAccount = (a: Record<string, unknown>) =>
  numericIds({ ...a, default_time_zone: a.default_time_zone ?? 'Etc/UTC' }, ['id', 'parent_account_id', 'root_account_id']);

export const accountRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/accounts/:id',
    accepts: params({ id: accountId() }),
    operation: `query($id: ID!) { account(id: $id) { ...AccountJson } }`,
    variables: ({ values }) => ({ id: values.id }),
    root: 'account',
    present: presentAccount,
    response: AccountSchema,
  },
];
