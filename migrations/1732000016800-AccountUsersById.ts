import { IndexReplacement, IndexSpec } from './indexes';

/**
 * An account's users by id (Canvas's `sort=id`, whose pages are bookmarks for reading every page in
 * bulk) page on the account's logins in user order, the state read from the index: (account, user,
 * state). It replaces nothing.
 */
const INDEXES: IndexSpec[] = [['pseudonyms', ['account_id', 'user_id', 'workflow_state']]];

export class AccountUsersById1732000016800 extends IndexReplacement {
  name = 'AccountUsersById1732000016800';

  constructor() {
    super(INDEXES, []);
  }
}
