import sanitize from 'sanitize-html';

/**
 * User HTML as Canvas keeps it: ordinary formatting, links, images, tables and media survive;
 * scripts, event handlers, javascript: URLs and unknown tags are removed.
 */
const OPTIONS: sanitize.IOptions = {
  allowedTags: [
    ...sanitize.defaults.allowedTags,
    'img', 'span', 'del', 'ins', 'sub', 'sup', 'u', 'font', 'video', 'audio', 'source', 'track', 'iframe', 'figure', 'figcaption',
  ],
  allowedAttributes: {
    '*': ['style', 'class', 'title', 'lang', 'dir', 'id', 'role', 'aria-label', 'aria-hidden', 'data-api-endpoint', 'data-api-returntype'],
    a: ['href', 'name', 'target', 'rel'],
    img: ['src', 'alt', 'width', 'height'],
    iframe: ['src', 'width', 'height', 'allowfullscreen', 'allow'],
    video: ['src', 'controls', 'width', 'height', 'poster'],
    audio: ['src', 'controls'],
    source: ['src', 'type'],
    track: ['src', 'kind', 'srclang', 'label'],
    td: ['colspan', 'rowspan', 'align', 'valign'],
    th: ['colspan', 'rowspan', 'align', 'valign', 'scope'],
    table: ['border', 'cellpadding', 'cellspacing', 'summary'],
    font: ['color', 'face', 'size'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel', 'data'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'], a: ['http', 'https', 'mailto', 'tel'] },
  allowProtocolRelative: true,
  disallowedTagsMode: 'discard',
};

export function sanitizeHtml(html: string): string {
  return sanitize(html, OPTIONS);
}
