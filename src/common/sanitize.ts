import sanitize from 'sanitize-html';
import { ALLOWED_STYLES } from './css-allowlist';
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
 * User HTML as Canvas keeps it: ordinary formatting, links, images, tables and media survive;
 * scripts, event handlers, javascript: URLs and unknown tags are removed. Students post HTML too
 * (discussions, submissions), so what may load or run is narrower than Canvas's: iframes only from
 * the configured hosts (over https, without `allow` grants), `data:` URLs only as img sources of
 * image types, and inline styles only from the allow-list in css-allowlist.ts.
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
    transformTags: { img: imageDataOnly },
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
