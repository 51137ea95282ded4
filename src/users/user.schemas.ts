import { defineSchema, shape } from '../api/rest/response';

export const UserSchema = defineSchema(
  'User',
  shape(
    {
      id: 'id', name: 'string', created_at: 'date', sortable_name: 'string', short_name: 'string',
      first_name: 'string?', last_name: 'string?', sis_user_id: 'string', integration_id: 'string', login_id: 'string',
      email: 'string', avatar_url: 'string?', locale: 'string?', time_zone: 'string?', uuid: 'string',
    },
    { optional: ['sis_user_id', 'integration_id', 'login_id', 'email'] },
  ),
);
