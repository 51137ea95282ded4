import { Account } from '../accounts/account.entity';
import { sanitizeHtml } from '../common/sanitize';
import { Course } from '../courses/course.entity';
import type { RequestContext } from '../request/context';
import { GroupAccess } from './group-access';
import { GroupPolicy, GroupRights } from './group-policy';
import { Group } from './group.entity';

/** Reads of one group's fields beyond its row: the caller's permissions, its context's name and state, html previews. */
export class GroupDetailsService {
  constructor(private readonly ctx: RequestContext) {}

  /** GET /groups/:id/permissions: each asked name → whether the caller holds it; unknown names are false. */
  async permissions(raw: string, names: string[]): Promise<{ name: string; granted: boolean }[]> {
    const { rights } = await this.ctx.use(GroupAccess).withRight(raw, 'read');
    return permissionList(rights, names);
  }

  /** The viewer's rights on a group already loaded (deleted ones included: they hold none). */
  async permissionsOf(group: Group, names: string[]): Promise<{ name: string; granted: boolean }[]> {
    return permissionList(await this.ctx.use(GroupPolicy).rights(group), names);
  }

  async previewHtml(raw: string, html: string | null | undefined): Promise<string> {
    await this.ctx.use(GroupAccess).withRight(raw, 'read');
    return sanitizeHtml(html ?? '', this.ctx.app.config);
  }
  contextName(group: Group): Promise<string | null> {
    return group.contextType === 'Course'
      ? this.ctx.loaders.byId(Course).load(group.contextId).then((c) => c?.name ?? null)
      : this.ctx.loaders.byId(Account).load(group.contextId).then((a) => a?.name ?? null);
  }

  async concluded(group: Group): Promise<boolean> {
    if (group.contextType !== 'Course') return false;
    const course = await this.ctx.loaders.byId(Course).load(group.contextId);
    return !course || course.workflowState === 'deleted' || course.isConcluded();
  }
}

function permissionList(rights: GroupRights, names: string[]): { name: string; granted: boolean }[] {
  const table: Record<string, boolean> = {
    read: rights.read,
    read_roster: rights.readRoster,
    join: rights.join,
    update: rights.update,
    manage: rights.manage,
    delete: rights.delete,
    leave: rights.leave,
    create_discussion_topic: rights.createDiscussionTopic,
    create_announcement: rights.createAnnouncement,
    manage_files: rights.manageFiles,
    post_to_forum: rights.read,
    read_forum: rights.read,
    read_files: rights.read,
    read_sis: rights.readSis,
    manage_sis: rights.manageSis,
  };
  return names.map((name) => ({ name, granted: table[name] ?? false }));
}
