import { defineSchema, shape } from '../api/rest/response';

/** Canvas's user JSON in a course's people list; open, as its keys follow include[]. */
export const CourseUserSchema = defineSchema('CourseUser', {
  ...shape({ id: 'id', name: 'string', sortable_name: 'string', short_name: 'string' }),
  additionalProperties: true,
});
