import { ValidationError } from '../common/errors';
import { numericIds } from '../api/rest/present';
import { defineFragment, RestInput, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { id, int, nullableText, params, text, z } from '../api/rest/input';
import { FileSchema, FileUploadSchema } from './file.schemas';

defineFragment(`fragment FileJson on File {
  id: _id uuid folder_id: folderId display_name: displayName filename upload_status: uploadStatus content_type: contentType
  url size created_at: createdAt updated_at: updatedAt unlock_at: unlockAt locked hidden lock_at: lockAt
  hidden_for_user: hiddenForUser thumbnail_url: thumbnailUrl modified_at: modifiedAt mime_class: mimeClass
  media_entry_id: mediaEntryId locked_for_user: lockedForUser lock_explanation: lockExplanation preview_url: previewUrl
  category context_type: contextType
}`);

type Json = Record<string, any>;

/** Canvas File JSON, in Canvas's key order (`content-type` with a hyphen; no lock info on unlocked files). */
export function presentFile(f: Json): Json {
  const n = numericIds(f, ['id', 'folder_id']);
  const out: Json = {
    id: n.id,
    uuid: n.uuid,
    folder_id: n.folder_id,
    display_name: n.display_name,
    filename: n.filename,
    upload_status: n.upload_status,
    'content-type': n.content_type,
    url: n.url,
    size: n.size,
    created_at: n.created_at,
    updated_at: n.updated_at,
    unlock_at: n.unlock_at,
    locked: n.locked,
    hidden: n.hidden,
    lock_at: n.lock_at,
    hidden_for_user: n.hidden_for_user,
    thumbnail_url: n.thumbnail_url,
    modified_at: n.modified_at,
    mime_class: n.mime_class,
    media_entry_id: n.media_entry_id,
    locked_for_user: n.locked_for_user,
    lock_info: null,
    lock_explanation: n.lock_explanation,
    preview_url: n.preview_url,
    category: n.category,
  };
  if (n.context_type === 'Course') out.visibility_level = 'inherit';
  return out;
}

const CONTEXTS: [string, string, string][] = [
  ['Group', 'group_id', '/api/v1/groups/:group_id/files'],
  ['Course', 'course_id', '/api/v1/courses/:course_id/files'],
  ['User', 'user_id', '/api/v1/users/:user_id/files'],
];

/**
 * `size` as a whole number of bytes (a JSON number or a string of digits). Absent stays absent, for the
 * service to report as required; anything else (`1.5`, `1e3`, `size[]=1`) is refused here, naming it.
 */
function byteSize(raw: unknown): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) return raw;
  if (typeof raw === 'string' && /^-?\d{1,15}$/.test(raw.trim())) return Number(raw.trim());
  throw ValidationError.of('size', 'invalid', 'size must be a whole number of bytes');
}

/** Preflight params → CreateFileUploadInput (`folder` is Canvas's deprecated alias of the path). */
function uploadInput(contextType: string, idParam: string, { values }: RestInput): Json {
  const size = byteSize(values.size);
  return {
    contextType,
    contextId: values[idParam],
    name: values.name,
    size,
    contentType: values.content_type || undefined,
    parentFolderId: values.parent_folder_id ?? undefined,
    parentFolderPath: values.parent_folder_path ?? values.folder,
    onDuplicate: values.on_duplicate || undefined,
  };
}

// ---- declared params: sizes and ids are checked here; names, paths and content types by the service ----
const contextId = (idParam: string) =>
  idParam === 'user_id' ? id({ self: true, prefixes: ['sis_user_id', 'sis_login_id'] }) : idParam === 'course_id' ? id({ prefixes: ['sis_course_id'] }) : id({ prefixes: ['sis_group_id'] });
const preflightParams = (idParam: string) =>
  params({
    [idParam]: contextId(idParam),
    name: text({ max: 4096 }).optional(),
    // Whole bytes; the service reports a missing size and the quota left.
    size: z.union([int({ min: -1, max: Number.MAX_SAFE_INTEGER }), z.literal(''), z.null()]).optional(),
    content_type: nullableText({ max: 255 }).optional(),
    parent_folder_id: id({ nullable: true }).optional(),
    parent_folder_path: text({ max: 4096 }).optional(),
    folder: text({ max: 4096 }).optional(),
    on_duplicate: nullableText({ max: 32 }).optional(),
  });

const confirmRoute = (method: 'GET' | 'POST'): RestRoute => ({
  method,
  path: '/api/v1/files/:id/create_success',
  accepts: params({ id: id(), uuid: text({ max: 255 }).optional() }),
  operation: `mutation($input: ConfirmFileUploadInput!) { confirmFileUpload(input: $input) { file { ...FileJson } ${PAYLOAD_ERRORS} } }`,
  variables: ({ values }) => ({ input: { id: values.id, uuid: values.uuid ?? '' } }),
  root: 'confirmFileUpload',
  payloadKey: 'file',
  present: presentFile,
  response: FileSchema,
  // The id and uuid authenticate (a bucket's redirect is followed without the token), as in Canvas.
  anonymous: true,
});

export const fileRoutes: RestRoute[] = [
  ...CONTEXTS.map(
    ([type, idParam, path]): RestRoute => ({
      method: 'POST',
      path,
      accepts: preflightParams(idParam),
      operation: `mutation($input: CreateFileUploadInput!) { createFileUpload(input: $input) { uploadUrl uploadParams { name value } fileParam ${PAYLOAD_ERRORS} } }`,
      variables: (input) => ({ input: uploadInput(type, idParam, input) }),
      root: 'createFileUpload',
      present: (r: Json) => ({
        upload_url: r.uploadUrl,
        upload_params: Object.fromEntries((r.uploadParams as { name: string; value: string }[]).map((p) => [p.name, p.value])),
        file_param: r.fileParam,
      }),
      response: FileUploadSchema,
    }),
  ),
  confirmRoute('GET'),
  confirmRoute('POST'),
  {
    method: 'GET',
    path: '/api/v1/files/:id',
    accepts: params({ id: id() }),
    operation: `query($id: ID!) { file(id: $id) { ...FileJson } }`,
    variables: ({ values }) => ({ id: values.id }),
    root: 'file',
    present: presentFile,
    response: FileSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/courses/:course_id/files/:id',
    accepts: params({ course_id: id({ prefixes: ['sis_course_id'] }), id: id() }),
    operation: `query($id: ID!, $courseId: ID) { file(id: $id, courseId: $courseId) { ...FileJson } }`,
    variables: ({ values }) => ({ id: values.id, courseId: values.course_id }),
    root: 'file',
    present: presentFile,
    response: FileSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/groups/:group_id/files',
    accepts: params({ group_id: id({ prefixes: ['sis_group_id'] }) }),
    operation: `query($id: ID!, $first: Int, $after: String) { group(id: $id) { filesConnection(first: $first, after: $after) {
      nodes { ...FileJson } totalCount pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ values }) => ({ id: values.group_id }),
    root: 'group.filesConnection',
    list: true,
    present: presentFile,
    response: FileSchema,
  },
];
