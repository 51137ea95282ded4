import { arr, defineSchema, nullable, shape } from '../api/rest/response';
import { AssignmentSchema } from '../content/assignments/assignment.schemas';

/** content_details (include[]=content_details): only the keys that apply. */
const ContentDetails = shape(
  {
    points_possible: 'number', due_at: 'date', unlock_at: 'date', lock_at: 'date', locked_for_user: 'bool', lock_explanation: 'string',
    lock_info: shape(
      { asset_string: 'string', unlock_at: 'date', lock_at: 'date', context_module: shape({ id: 'id', name: 'string?' }) },
      { optional: ['unlock_at', 'lock_at', 'context_module'] },
    ),
  },
  { optional: ['points_possible', 'due_at', 'unlock_at', 'lock_at', 'locked_for_user', 'lock_explanation', 'lock_info'] },
);

/** Canvas's ModuleItem JSON (presentItem): keys Canvas emits only where they apply. */
export const ModuleItemSchema = defineSchema(
  'ModuleItem',
  shape(
    {
      id: 'id', module_id: 'id', position: 'int', title: 'string', indent: 'int', type: 'string', content_id: 'id',
      html_url: 'string', url: 'string', page_url: 'string', external_url: 'string', new_tab: 'bool?', published: 'bool',
      completion_requirement: shape(
        { type: 'string', min_score: 'number?', min_percentage: 'number?', completed: 'bool' },
        { optional: ['min_score', 'min_percentage', 'completed'] },
      ),
      content_details: ContentDetails,
    },
    { optional: ['content_id', 'html_url', 'url', 'page_url', 'external_url', 'new_tab', 'published', 'completion_requirement', 'content_details'] },
  ),
);

const moduleProps = {
  id: 'id', workflow_state: 'string', position: 'int', name: 'string', unlock_at: 'date?', require_sequential_progress: 'bool',
  requirement_type: 'string', prerequisite_module_ids: arr('id'), items_count: 'int', items_url: 'string', state: 'string',
  completed_at: 'date?', publish_final_grade: 'bool?', published: 'bool', items: arr(ModuleItemSchema),
} as const;
const MODULE_OPTIONAL = ['state', 'completed_at', 'published', 'items'];

/** Canvas's Module JSON (presentModule): state and completed_at for a student, items with include[]=items. */
export const ModuleSchema = defineSchema('Module', shape(moduleProps, { optional: MODULE_OPTIONAL }));

/** The deleted module, as Canvas answers its delete. */
export const DeletedModuleSchema = defineSchema(
  'DeletedModule',
  shape({ ...moduleProps, workflow_state: { const: 'deleted' } }, { optional: MODULE_OPTIONAL }),
);

export const MessageSchema = defineSchema('Message', shape({ message: 'string?' }));

const target = shape({ id: { type: ['integer', 'string'] }, name: 'string' });

export const ModuleOverrideSchema = defineSchema(
  'ModuleAssignmentOverride',
  shape(
    {
      id: 'id', context_module_id: 'id', title: 'string', students: nullable(arr(target)), course_section: nullable(target),
      group: shape({ id: { type: ['integer', 'string'] }, non_collaborative: 'bool' }),
    },
    { optional: ['group'] },
  ),
);

const MasteryPath = shape({
  locked: 'bool', assignment_sets: arr(shape({ id: 'id', assignment_ids: arr('id') })), selected_set_id: 'id?',
  awaiting_choice: 'bool', still_processing: 'bool', modules_url: 'string', choose_url: 'string', modules_tab_disabled: 'bool',
});

export const ModuleItemSequenceSchema = defineSchema(
  'ModuleItemSequence',
  shape({
    items: arr(shape({ prev: nullable(ModuleItemSchema), current: ModuleItemSchema, next: nullable(ModuleItemSchema), mastery_path: nullable(MasteryPath) })),
    modules: arr(ModuleSchema),
  }),
);

export const MasteryPathSelectionSchema = defineSchema(
  'MasteryPathSelection',
  shape({ meta: shape({ primaryCollection: 'string' }), items: arr(ModuleItemSchema), assignments: arr(AssignmentSchema) }),
);
