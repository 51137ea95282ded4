/**
 * HTML_IFRAME_HOSTS: the hosts whose pages user HTML may embed in an iframe. Exact host names,
 * comma-separated (`www.youtube.com` does not admit `youtube.com` or `evil.www.youtube.com`), or `none`.
 * The default admits the common video players (YouTube, its no-cookie domain, Vimeo); Canvas itself
 * admits any host, which lets a student's post frame a look-alike login page inside a course.
 */
export const DEFAULT_IFRAME_HOSTS = 'www.youtube.com,www.youtube-nocookie.com,player.vimeo.com';

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`, 'i');

/** The host names of a setting, lower-cased; [] for `none`. Null when an entry is not a host name. */
export function parseIframeHosts(value: string): string[] | null {
  if (value.trim().toLowerCase() === 'none') return [];
  const hosts = value.split(',').map((h) => h.trim().toLowerCase());
  return hosts.every((h) => HOST.test(h) && h.length <= 253) ? hosts : null;
}
