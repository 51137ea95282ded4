import { accountId } from '../accounts/account.params';
import { bool, id, model, oneOf, params, text } from '../api/rest/input';
import { ACCOUNT_USER_SORTS, SORT_ORDERS } from './account-user-order';

/** A user as the user service looks one up: id, `self`, sis_user_id: or sis_login_id:. */
export const userId = (opts: { nullable?: boolean } = {}) => id({ self: true, prefixes: ['sis_user_id', 'sis_login_id'], ...opts });

/**
 * Declared params of the user rows (src/users/user.routes.ts). The user's name and login are checked
 * by the service (Canvas's nested user/pseudonym error body), so the schema only bounds them loosely;
 * the columns the service does not check are bounded here (time_zone 64, locale 16 characters).
 */
export const userParams = {
  create: params({
    account_id: accountId(),
    user: model({
      name: text({ max: 65_535 }).optional(),
      short_name: text({ max: 255 }).optional(),
      sortable_name: text({ max: 255 }).optional(),
      time_zone: text({ max: 64 }).optional(),
      locale: text({ max: 16 }).optional(),
      skip_registration: bool().optional(),
    }).optional(),
    pseudonym: model({
      unique_id: text({ max: 65_535 }).optional(),
      sis_user_id: text({ max: 255 }).optional(),
      integration_id: text({ max: 255 }).optional(),
    }).optional(),
  }),
  // search_term needs 2 characters: the service answers that with Canvas's own body.
  list: params({
    account_id: accountId(),
    search_term: text({ max: 255 }).optional(),
    sort: oneOf(ACCOUNT_USER_SORTS).optional(),
    order: oneOf(SORT_ORDERS).optional(),
  }),
  user: params({ id: userId() }),
};
