import { id } from '../rest/input';

/** A user as the user service looks one up: id, `self`, sis_user_id: or sis_login_id:. */
export const userId = (opts: { nullable?: boolean } = {}) => id({ self: true, prefixes: ['sis_user_id', 'sis_login_id'], ...opts });
