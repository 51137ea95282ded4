import { defineSchema, shape } from '../api/rest/response';

export const AccountSchema = defineSchema(
  'Account',
  shape({
    id: 'id', name: 'string', uuid: 'string', parent_account_id: 'id?', root_account_id: 'id?',
    workflow_state: 'string', default_time_zone: 'string', sis_account_id: 'string?',
  }),
);
