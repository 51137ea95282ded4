import { constant, defineSchema, nullable, shape } from '../../api/rest/response';

/** Canvas's Page JSON (presentPage): body only where Canvas answers it (not in lists without include[]=body). */
export const PageSchema = defineSchema(
  'Page',
  shape(
    {
      page_id: 'id', url: 'string', title: 'string', created_at: 'date', updated_at: 'date', hide_from_students: 'bool',
      editing_roles: 'string', published: 'bool', front_page: 'bool', todo_date: 'date?', html_url: 'string',
      last_edited_by: nullable(shape({ id: 'id', display_name: 'string', avatar_image_url: 'string?', html_url: 'string' })),
      body: 'string?', publish_at: constant(null), locked_for_user: 'bool',
    },
    { optional: ['body'] },
  ),
);
