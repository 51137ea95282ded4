import { id } from '../api/rest/input';

/** An account as the account service looks it up: id, `self` (the root account) or sis_account_id:. */
export const accountId = () => id({ self: true, prefixes: ['sis_account_id'] });
