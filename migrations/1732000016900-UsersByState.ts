import { IndexReplacement, IndexSpec } from './indexes';

/**
 * Users by state: whether any user is deleted is one index probe. While none is, a group's users are
 * counted from its memberships alone (groups/group-roster.service.ts), without a join to users for
 * every member. It replaces nothing.
 */
const INDEXES: IndexSpec[] = [['users', ['workflow_state']]];

export class UsersByState1732000016900 extends IndexReplacement {
  name = 'UsersByState1732000016900';

  constructor() {
    super(INDEXES, []);
  }
}
