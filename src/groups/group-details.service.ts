import { Account } from '../accounts/account.entity';
import { sanitizeHtml } from '../common/sanitize';
import { Course } from '../courses/course.entity';
import type { RequestContext } from '../request/context';
import { GroupAccess } from './group-access';
import { GroupPolicy, GroupRights } from './group-policy';
import { Group } from './group.entity';

/** Reads of one group's fields beyond its row: the caller's permissions, its context's name and state, html previews. */
export class GroupDetailsService {
  /**
   * One answer per context (and category) and request, shared by every group of a page that asks:
   * a page of 50 groups of one course then makes one promise for its context name, not 50.
   */
  private readonly contextNames = new Map<string, Promise<string | null>>();
  private readonly concludedContexts = new Map<number, Promise<boolean>>();
  private readonly roles = new Map<number, Promise<string | null>>();

  constructor(private readonly ctx: RequestContext) {}

  /** GET /groups/:id/permissions: each asked name → whether the caller holds it; unknown names are false. */
  async permissions(raw: string, names: string[]): Promise<{ name: string; granted: boolean }[]> {
    const { rights } = await this.ctx.use(GroupAccess).withRight(raw, 'read');
    return permissionList(rights, names);
  }

  /** The viewer's rights on a group already loaded (deleted ones included: they hold none). */
  permissionsOf(group: Group, names: string[]): Promise<{ name: string; granted: boolean }[]> {
    return this.ctx.use(GroupPolicy).rights(group).then((rights) => permissionList(rights, names));
  }

  async previewHtml(raw: string, html: string | null | undefined): Promise<string> {
    await this.ctx.use(GroupAccess).withRight(raw, 'read');
    return sanitizeHtml(html ?? '', this.ctx.app.config);
  }
  contextName(group: Group): Promise<string | null> {
    const key = `${group.contextType}:${group.contextId}`;
    let name = this.contextNames.get(key);
    if (!name) {
      name =
        group.contextType === 'Course'
          ? this.ctx.loaders.byId(Course).load(group.contextId).then((c) => c?.name ?? null)
          : this.ctx.loaders.byId(Account).load(group.contextId).then((a) => a?.name ?? null);
      this.contextNames.set(key, name);
    }
    return name;
  }

  /** Whether the group's course has concluded or is gone (account groups never conclude). */
  concluded(group: Group): Promise<boolean> | boolean {
    if (group.contextType !== 'Course') return false;
    let concluded = this.concludedContexts.get(group.contextId);
    if (!concluded) {
      concluded = this.ctx.loaders
        .byId(Course)
        .load(group.contextId)
        .then((course) => !course || course.workflowState === 'deleted' || course.isConcluded());
      this.concludedContexts.set(group.contextId, concluded);
    }
    return concluded;
  }

  /** The role of the group's category (communities, student_organized, imported or null). */
  role(group: Group): Promise<string | null> {
    let role = this.roles.get(group.groupCategoryId);
    if (!role) {
      role = this.ctx.use(GroupPolicy).category(group).then((c) => c?.role ?? null);
      this.roles.set(group.groupCategoryId, role);
    }
    return role;
  }
}

/** Canvas's permission names → the right that answers each (a table made once, not per group). */
const PERMISSION_RIGHTS = new Map<string, keyof GroupRights>([
  ['read', 'read'],
  ['read_roster', 'readRoster'],
  ['join', 'join'],
  ['update', 'update'],
  ['manage', 'manage'],
  ['delete', 'delete'],
  ['leave', 'leave'],
  ['create_discussion_topic', 'createDiscussionTopic'],
  ['create_announcement', 'createAnnouncement'],
  ['manage_files', 'manageFiles'],
  ['post_to_forum', 'read'],
  ['read_forum', 'read'],
  ['read_files', 'read'],
  ['read_sis', 'readSis'],
  ['manage_sis', 'manageSis'],
]);

function permissionList(rights: GroupRights, names: string[]): { name: string; granted: boolean }[] {
  return names.map((name) => {
    const right = PERMISSION_RIGHTS.get(name);
    return { name, granted: right ? rights[right] === true : false };
  });
}
