/** Content types guessed from a file name's extension, and Canvas's coarse `mime_class`. */
const BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain',
  text: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  htm: 'text/html',
  html: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  json: 'application/json',
  xml: 'application/xml',
  rtf: 'application/rtf',
  pdf: 'application/pdf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  zip: 'application/zip',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  tar: 'application/x-tar',
  '7z': 'application/x-7z-compressed',
  rar: 'application/vnd.rar',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
  ico: 'image/vnd.microsoft.icon',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  heic: 'image/heic',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  m4a: 'audio/mp4',
  flac: 'audio/flac',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  avi: 'video/x-msvideo',
  mkv: 'video/x-matroska',
  ogv: 'video/ogg',
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
  return (m && BY_EXTENSION[m[1].toLowerCase()]) || UNKNOWN_CONTENT_TYPE;
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
