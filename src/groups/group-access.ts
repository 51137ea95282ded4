import { ForbiddenError, NotFoundError } from '../common/errors';
import { parseIdParam } from '../common/ids';
import type { RequestContext } from '../request/context';
import { Group } from './group.entity';
import { GroupPolicy, GroupRights } from './group-policy';

/**
 * Finding a group and the caller's rights on it: what the group and membership services (and the
 * group files provider) all start from, kept below them so neither service needs the other for it.
 */
export class GroupAccess {
  constructor(private readonly ctx: RequestContext) {}

  /** A live group by id or sis_group_id:, without permission checks (deleted groups are absent). */
  async lookup(raw: string | number): Promise<Group> {
    const p = parseIdParam(raw, ['sis_group_id']);
    const group =
      p.kind === 'id'
        ? await this.ctx.loaders.byId(Group).load(p.id)
        : await this.ctx.ds.getRepository(Group).findOneBy({ sisGroupId: p.kind === 'prefixed' ? p.value : '', workflowState: 'available' });
    if (!group || group.workflowState === 'deleted') throw new NotFoundError();
    return group;
  }

  /** A group with a right the caller must hold; 403 otherwise (whose body says nothing of the group). */
  async withRight(raw: string | number, right: keyof GroupRights): Promise<{ group: Group; rights: GroupRights }> {
    const group = await this.lookup(raw);
    this.ctx.authz.requireViewer();
    const rights = await this.rights(group);
    if (!rights[right]) throw new ForbiddenError();
    return { group, rights };
  }

  rights(group: Group): Promise<GroupRights> {
    return this.ctx.use(GroupPolicy).rights(group);
  }
}
