import { ValidationError } from '../../common/errors';
import { cursorForOffset, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../common/relay';

export interface PageRequest {
  page: number;
  perPage: number;
}

/**
 * Canvas's page/per_page: per_page clamped to 1..100 (default 10). A page or per_page that is not a
 * number is a 400 naming it: Canvas answers 404 (and reads per_page=abc as 1), which tells a client
 * nothing of its mistake.
 */
export function pageRequest(query: Record<string, unknown>, dflt = DEFAULT_PAGE_SIZE, max = MAX_PAGE_SIZE): PageRequest {
  // A blank value (an empty form field) is no value, as it is for Canvas.
  const rawPer = query.per_page === '' ? undefined : query.per_page;
  let perPage = dflt;
  if (rawPer !== undefined) {
    if (!/^\s*[+-]?\d+\s*$/.test(String(rawPer))) throw ValidationError.of('per_page', 'invalid', `must be a whole number of items per page (at most ${max})`);
    perPage = Math.min(Math.max(parseInt(String(rawPer), 10), 1), max);
  }
  let page = 1;
  if (query.page !== undefined && query.page !== '' && query.page !== 'first') {
    if (!/^\d+$/.test(String(query.page))) throw ValidationError.of('page', 'invalid', 'must be a page number (1 or more)');
    page = Math.max(parseInt(String(query.page), 10), 1);
  }
  return { page, perPage };
}

/** GraphQL connection arguments for a Canvas page. */
export function connectionArgs(p: PageRequest): { first: number; after: string | null } {
  const offset = (p.page - 1) * p.perPage;
  return { first: p.perPage, after: offset > 0 ? cursorForOffset(offset - 1) : null };
}

const DROPPED = new Set(['page', 'per_page', 'access_token', 'api_key']);

/**
 * Builds `<url>` for a page of the same list: the original query minus paging and credential params,
 * keys sorted, then page and per_page last, as Canvas does.
 */
export function pageUrlBuilder(baseUrl: string, path: string, rawQuery: string, perPage: number): (page: string | number) => string {
  const kept = [...new URLSearchParams(rawQuery)].filter(([k]) => !DROPPED.has(k));
  kept.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const prefix = kept.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return (page) => `<${baseUrl}${path}?${prefix ? `${prefix}&` : ''}page=${encodeURIComponent(String(page))}&per_page=${perPage}>`;
}

/**
 * Canvas's Link header for numbered pages: current, next, prev, first, and last when the list counts
 * its total (only where Canvas emits last: elsewhere the row does not select totalCount, and no count
 * runs). Without a total, next follows the page's hasNextPage (a row read past the page).
 */
export function linkHeader(baseUrl: string, path: string, rawQuery: string, p: PageRequest, total: number | null, hasNextPage?: boolean | null): string {
  const url = pageUrlBuilder(baseUrl, path, rawQuery, p.perPage);
  const lastPage = total == null ? null : Math.max(1, Math.ceil(total / p.perPage));
  const links = [`${url(p.page)}; rel="current"`];
  if (lastPage == null ? hasNextPage !== false : p.page < lastPage) links.push(`${url(p.page + 1)}; rel="next"`);
  if (p.page > 1) links.push(`${url(p.page - 1)}; rel="prev"`);
  links.push(`${url(1)}; rel="first"`);
  if (lastPage != null) links.push(`${url(lastPage)}; rel="last"`);
  return links.join(',');
}

/** Bookmark pages (`page=bookmark:<token>`): the token wraps the connection cursor; no last link. */
export const encodeBookmark = (cursor: string) => `bookmark:${Buffer.from(JSON.stringify([cursor])).toString('base64url')}`;

export function decodeBookmark(page: unknown): string | null {
  if (typeof page !== 'string' || !page.startsWith('bookmark:')) return null;
  try {
    const v = JSON.parse(Buffer.from(page.slice('bookmark:'.length), 'base64url').toString('utf8'));
    // Any string cursor passes through: offset lists read a foreign one as their first page, and
    // key set lists (planner items) decode their own.
    return Array.isArray(v) && typeof v[0] === 'string' && v[0].length <= 512 ? v[0] : null;
  } catch {
    // Canvas treats an undecodable bookmark as the first page.
    return null;
  }
}

export function bookmarkLinkHeader(
  baseUrl: string,
  path: string,
  rawQuery: string,
  perPage: number,
  after: string | null,
  pageInfo: { hasNextPage?: boolean; endCursor?: string | null } | undefined,
): string {
  const url = pageUrlBuilder(baseUrl, path, rawQuery, perPage);
  const links = [`${url(after ? encodeBookmark(after) : 'first')}; rel="current"`];
  if (pageInfo?.hasNextPage && pageInfo.endCursor) links.push(`${url(encodeBookmark(pageInfo.endCursor))}; rel="next"`);
  links.push(`${url('first')}; rel="first"`);
  return links.join(',');
}
