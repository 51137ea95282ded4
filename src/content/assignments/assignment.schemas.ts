import { arr, constant, defineSchema, shape } from '../../api/rest/response';
import { LOCK_OPTIONAL, lockProps } from '../content.schemas';

/** Canvas's Assignment JSON (presentAssignment): quiz_id only on a quiz's assignment. */
export const AssignmentSchema = defineSchema(
  'Assignment',
  shape(
    {
      id: 'id', name: 'string', description: 'string?', created_at: 'date', updated_at: 'date', due_at: 'date?',
      lock_at: 'date?', unlock_at: 'date?', course_id: 'id', html_url: 'string', points_possible: 'number?',
      grading_type: 'string', submission_types: arr('string'), published: 'bool', unpublishable: 'bool',
      has_submitted_submissions: 'bool', position: 'int', workflow_state: 'string', quiz_id: 'id', is_quiz_assignment: 'bool',
      ...lockProps,
      submissions_download_url: 'string', has_overrides: 'bool', assignment_group_id: constant(null), due_date_required: 'bool',
      allowed_extensions: arr('string'), max_name_length: 'int', turnitin_enabled: 'bool', vericite_enabled: 'bool',
      grade_group_students_individually: 'bool', group_category_id: constant(null), peer_reviews: 'bool',
      automatic_peer_reviews: 'bool', post_to_sis: 'bool', integration_id: constant(null), grading_standard_id: constant(null),
      only_visible_to_overrides: 'bool', moderated_grading: 'bool', anonymous_grading: 'bool', omit_from_final_grade: 'bool',
      muted: 'bool', allowed_attempts: 'int',
    },
    { optional: ['quiz_id', ...LOCK_OPTIONAL] },
  ),
);
