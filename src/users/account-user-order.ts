import { ValidationError } from '../common/errors';
import type { OrderColumn } from '../db/page-per-parent';

/**
 * The orders of an account's users list (Canvas's `sort` and `order` params of GET
 * /accounts/:id/users): by sortable name (`username`, the default) or by id. Canvas pages `sort=id` by
 * bookmark "to retrieve many pages in bulk"; both orders read their pages from an index on the
 * account's logins, (account, sortable name, user) and (account, user).
 */
export const ACCOUNT_USER_SORTS = ['username', 'id'] as const;
export const SORT_ORDERS = ['asc', 'desc'] as const;

/** The order columns of the logins `p` (an escaped column for each name) for the requested sort; a value outside Canvas's is a 400. */
export function accountUserOrder(column: (name: string) => { expression: string }, sort: string | null | undefined, order: string | null | undefined): OrderColumn[] {
  const by = sort ?? 'username';
  const direction = order ?? 'asc';
  if (!(ACCOUNT_USER_SORTS as readonly string[]).includes(by)) throw ValidationError.of('sort', 'inclusion', `sort must be one of ${ACCOUNT_USER_SORTS.join(', ')}`);
  if (!(SORT_ORDERS as readonly string[]).includes(direction)) throw ValidationError.of('order', 'inclusion', `order must be one of ${SORT_ORDERS.join(', ')}`);
  const dir = direction === 'desc' ? 'DESC' : 'ASC';
  return by === 'id' ? [[column('user_id'), dir]] : [[column('sortable_name'), dir], [column('user_id'), dir]];
}
