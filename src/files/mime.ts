/** Content types guessed from a file name's extension (mime-types' table), and Canvas's coarse `mime_class`. */
import { lookup } from 'mime-types';

/**
 * Where this service answered differently from mime-types before it used that table, the old answer
 * stays, so a file's content_type (and its mime_class) does not change under a client.
 */
const KEPT_ANSWERS: Record<string, string> = {
  tgz: 'application/gzip',
  flac: 'audio/flac',
  m4v: 'video/mp4',
};

export const UNKNOWN_CONTENT_TYPE = 'application/octet-stream';

/**
 * Image types a browser only ever draws, never runs: the only files handed out by the bucket inline and
 * as themselves (S3_DOWNLOAD=redirect). SVG is not one (it carries script and links), nor is anything
 * else a browser may render as a document.
 */
const INLINE_RASTER_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The raster type of a content type (`image/png`, parameters and case dropped); null for any other type. */
export function inlineRasterType(contentType: string): string | null {
  const essence = contentType.split(';')[0].trim().toLowerCase();
  return INLINE_RASTER_TYPES.has(essence) ? essence : null;
}

export function guessContentType(name: string): string {
  const m = /\.([A-Za-z0-9]+)$/.exec(name);
  if (!m) return UNKNOWN_CONTENT_TYPE;
  const ext = m[1].toLowerCase();
  return KEPT_ANSWERS[ext] ?? (lookup(ext) || UNKNOWN_CONTENT_TYPE);
}

/** `type/subtype` with optional parameters, as a declared content_type must look. */
export const CONTENT_TYPE_FORMAT = /^[A-Za-z0-9][\w.+-]*\/[\w.+-]+(\s*;.*)?$/;

const CLASSES: Record<string, string> = {
  'text/html': 'html',
  'text/css': 'code',
  'text/javascript': 'code',
  'application/javascript': 'code',
  'text/xml': 'code',
  'application/xml': 'code',
  'application/json': 'code',
  'text/plain': 'text',
  'text/markdown': 'text',
  'text/csv': 'text',
  'application/rtf': 'doc',
  'text/rtf': 'doc',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'doc',
  'application/vnd.oasis.opendocument.text': 'doc',
  'application/pdf': 'pdf',
  'application/vnd.ms-powerpoint': 'ppt',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'ppt',
  'application/vnd.oasis.opendocument.presentation': 'ppt',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xls',
  'application/vnd.oasis.opendocument.spreadsheet': 'xls',
  'application/zip': 'zip',
  'application/x-zip-compressed': 'zip',
  'application/gzip': 'zip',
  'application/x-tar': 'zip',
  'application/x-7z-compressed': 'zip',
  'application/vnd.rar': 'zip',
  'application/x-shockwave-flash': 'flash',
};

/** Canvas's mime_class: image, audio, video, pdf, doc, ppt, xls, text, html, code, zip, flash or file. */
export function mimeClass(contentType: string): string {
  const ct = contentType.split(';')[0].trim().toLowerCase();
  if (CLASSES[ct]) return CLASSES[ct];
  const major = ct.split('/')[0];
  if (major === 'image' || major === 'audio' || major === 'video') return major;
  if (major === 'text') return 'text';
  return 'file';
}
