import sanitize from 'sanitize-html';
import { ALLOWED_STYLES, CAPS } from './css-allowlist';
import { parseIframeHosts } from './iframe-hosts';

/** What the sanitiser takes from the configuration (the app's Config satisfies it). */
export interface HtmlPolicy {
  HTML_IFRAME_HOSTS: string;
}

const WEB = ['http', 'https'];
// What a browser ignores before the scheme and within it (tabs, newlines, other controls, spaces).
const IGNORED_IN_SCHEME = /[\u0000-\u0020\u007f]/g;
const IMAGE_DATA_URL = /^data:image\/[a-z0-9.+-]+(?:;[^,]*)?,/i;

/** `data:` URLs only as images: an img src of another type (HTML, script, SVG-as-document …) is dropped. */
function imageDataOnly(tagName: string, attribs: sanitize.Attributes): sanitize.Tag {
  const src = attribs.src;
  if (src !== undefined) {
    const compact = src.replace(IGNORED_IN_SCHEME, '');
    if (/^data:/i.test(compact) && !IMAGE_DATA_URL.test(compact)) {
      const { src: _dropped, ...rest } = attribs;
      return { tagName, attribs: rest };
    }
  }
  return { tagName, attribs };
}

/**
 * What user HTML's `id`s (and `<a name>` anchors) become: DOM clobbering (an element whose id is
 * `config` or `ENV` shadows the page script's global of that name) is closed by naming every one
 * under this prefix, as Canvas's user_content does; links to `#x` within the post follow to
 * `#user_content_x`. Applied once: HTML read back and saved again keeps its ids as they are.
 */
export const USER_ID_PREFIX = 'user_content_';

function userId(value: string): string | null {
  const v = value.trim();
  if (!v || v.length > 200 || /\s/.test(v)) return null;
  return v.startsWith(USER_ID_PREFIX) ? v : USER_ID_PREFIX + v;
}

/**
 * `data-api-endpoint` (what Canvas's editor writes on links to course content, fetched by the page
 * with the viewer's session) only as a same-origin `/api/v1/` path: no scheme or host, no `//`,
 * backslash, dot segment or encoded dot/slash/backslash that a URL parser would turn into another
 * place, nothing outside the URL path and query characters.
 */
const API_PATH = /^\/api\/v1\/[\w\-.~!$&'()*+,;=:@%/?[\]]*$/;
export function sameOriginApiPath(value: string): boolean {
  const path = value.split('?')[0];
  return API_PATH.test(value) && !value.includes('//') && !/(^|\/)\.{1,2}(\/|$)/.test(path) && !/%(2e|2f|5c)/i.test(value);
}

/** Presentational size attributes, capped as their CSS counterparts are (whole numbers, or % for sizes). */
const SIZE_ATTRIBUTES: Record<string, { px: number; percent: number }> = {
  width: CAPS.size,
  height: CAPS.size,
  border: CAPS.border,
  cellpadding: CAPS.borderSpacing,
  cellspacing: CAPS.borderSpacing,
};

function withinSizeCap(value: string, cap: { px: number; percent: number }): boolean {
  const m = /^\s*(\d{1,5})(%?)\s*$/.exec(value);
  return !!m && Number(m[1]) <= (m[2] ? cap.percent : cap.px);
}

/** Every tag: ids prefixed, in-post fragment links following them, API endpoints and sizes checked. */
function userAttributes(tagName: string, attribs: sanitize.Attributes): sanitize.Tag {
  const out: sanitize.Attributes = {};
  for (const [name, value] of Object.entries(attribs)) {
    const key = name.toLowerCase();
    if (key === 'id' || (key === 'name' && tagName === 'a')) {
      const id = userId(value);
      if (id) out[name] = id;
    } else if (key === 'href' && value.trim().startsWith('#')) {
      const id = userId(value.trim().slice(1));
      out[name] = id ? `#${id}` : '#';
    } else if (key === 'data-api-endpoint') {
      if (sameOriginApiPath(value)) out[name] = value;
    } else if (SIZE_ATTRIBUTES[key]) {
      if (withinSizeCap(value, SIZE_ATTRIBUTES[key])) out[name] = value;
    } else out[name] = value;
  }
  return { tagName, attribs: out };
}

/**
 * User HTML as Canvas keeps it: ordinary formatting, links, images, tables and media survive;
 * scripts, event handlers, javascript: URLs and unknown tags are removed. Students post HTML too
 * (discussions, submissions), so what may load or run is narrower than Canvas's: iframes only from
 * the configured hosts (over https, without `allow` grants), `data:` URLs only as img sources of
 * image types, inline styles only from the allow-list in css-allowlist.ts (capped, non-negative,
 * no viewport units), ids under USER_ID_PREFIX and `data-api-endpoint` only as a same-origin API path.
 */
function buildOptions(iframeHosts: string[]): sanitize.IOptions {
  const tags = [...sanitize.defaults.allowedTags, 'img', 'span', 'del', 'ins', 'sub', 'sup', 'u', 'font', 'video', 'audio', 'source', 'track', 'figure', 'figcaption'];
  return {
    allowedTags: iframeHosts.length ? [...tags, 'iframe'] : tags,
    allowedAttributes: {
      '*': ['style', 'class', 'title', 'lang', 'dir', 'id', 'role', 'aria-label', 'aria-hidden', 'data-api-endpoint', 'data-api-returntype'],
      a: ['href', 'name', 'target', 'rel'],
      img: ['src', 'alt', 'width', 'height'],
      iframe: ['src', 'width', 'height', 'allowfullscreen'],
      video: ['src', 'controls', 'width', 'height', 'poster'],
      audio: ['src', 'controls'],
      source: ['src', 'type'],
      track: ['src', 'kind', 'srclang', 'label'],
      td: ['colspan', 'rowspan', 'align', 'valign'],
      th: ['colspan', 'rowspan', 'align', 'valign', 'scope'],
      table: ['border', 'cellpadding', 'cellspacing', 'summary'],
      font: ['color', 'face', 'size'],
    },
    allowedStyles: ALLOWED_STYLES,
    allowedSchemes: WEB,
    allowedSchemesByTag: { a: [...WEB, 'mailto', 'tel'], img: [...WEB, 'data'], iframe: ['https'] },
    // A video's poster is a URL too, held to the same schemes as src.
    allowedSchemesAppliedToAttributes: ['href', 'src', 'cite', 'poster'],
    allowProtocolRelative: true,
    allowedIframeHostnames: iframeHosts,
    allowIframeRelativeUrls: false,
    transformTags: { img: imageDataOnly, '*': userAttributes },
    // An iframe whose source was refused is dropped whole rather than left as an empty frame.
    exclusiveFilter: (frame) => frame.tag === 'iframe' && !frame.attribs.src,
    disallowedTagsMode: 'discard',
  };
}

// One option set per HTML_IFRAME_HOSTS value (in practice one per process).
const optionsByHosts = new Map<string, sanitize.IOptions>();

function optionsFor(policy: HtmlPolicy): sanitize.IOptions {
  let options = optionsByHosts.get(policy.HTML_IFRAME_HOSTS);
  if (!options) {
    // The config schema has validated the value; an invalid one here admits no iframe at all.
    options = buildOptions(parseIframeHosts(policy.HTML_IFRAME_HOSTS) ?? []);
    optionsByHosts.set(policy.HTML_IFRAME_HOSTS, options);
  }
  return options;
}

export function sanitizeHtml(html: string, policy: HtmlPolicy): string {
  return sanitize(html, optionsFor(policy));
}
