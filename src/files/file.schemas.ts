import { constant, defineSchema, mapOf, shape } from '../api/rest/response';

/** Canvas's File JSON (presentFile): `content-type` with a hyphen; visibility_level for course files. */
export const FileSchema = defineSchema(
  'File',
  shape(
    {
      id: 'id', uuid: 'string', folder_id: 'id', display_name: 'string', filename: 'string', upload_status: 'string',
      'content-type': 'string', url: 'string', size: 'int?', created_at: 'date', updated_at: 'date', unlock_at: 'date?',
      locked: 'bool', hidden: 'bool', lock_at: 'date?', hidden_for_user: 'bool', thumbnail_url: 'string?', modified_at: 'date?',
      mime_class: 'string', media_entry_id: 'string?', locked_for_user: 'bool', lock_info: constant(null),
      lock_explanation: 'string?', preview_url: 'string?', category: 'string', visibility_level: 'string',
    },
    { optional: ['visibility_level'] },
  ),
);

/** Step 1 of Canvas's upload: where and how to send the bytes. */
export const FileUploadSchema = defineSchema(
  'FileUpload',
  shape({ upload_url: 'string', upload_params: mapOf('string'), file_param: 'string' }),
);
