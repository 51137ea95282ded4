import { constant, defineSchema, mapOf, shape } from '../../api/rest/response';

/** Canvas's ExternalTool JSON (presentTool). */
export const ExternalToolSchema = defineSchema(
  'ExternalTool',
  shape({
    id: 'id', name: 'string', description: 'string?', url: 'string?', domain: 'string?', consumer_key: 'string?',
    privacy_level: 'string', workflow_state: 'string', created_at: 'date', updated_at: 'date', custom_fields: mapOf('string'),
    is_rce_favorite: 'bool', not_selectable: 'bool', version: 'string', deployment_id: constant(null),
    developer_key_id: constant(null), vendor_help_link: constant(null), icon_url: constant(null),
  }),
);
