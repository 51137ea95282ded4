import DataLoader from 'dataloader';
import { In } from 'typeorm';
import { Course } from '../courses/course.entity';
import type { RequestContext } from '../graphql/context';
import { GroupCategory } from './group-category.entity';
import { Group } from './group.entity';
import { GroupMembership } from './group-membership.entity';

/** What the viewer may do with one group (Canvas's group policy, as the spec narrows it). */
export interface GroupRights {
  /** Admin over the group's context with group (or, for tags, tag) management rights. */
  contextAdmin: boolean;
  member: boolean;
  moderator: boolean;
  /** The viewer's live membership row, if any (accepted, invited or requested). */
  membership: GroupMembership | null;
  read: boolean;
  readRoster: boolean;
  join: boolean;
  update: boolean;
  manage: boolean;
  delete: boolean;
  leave: boolean;
  createDiscussionTopic: boolean;
  createAnnouncement: boolean;
  manageFiles: boolean;
  readSis: boolean;
  manageSis: boolean;
  manageStorageQuotas: boolean;
  /** The viewer may take part in the group's context (enrolled in its course, or any user for accounts). */
  canParticipate: boolean;
}

const NONE: GroupRights = {
  contextAdmin: false,
  member: false,
  moderator: false,
  membership: null,
  read: false,
  readRoster: false,
  join: false,
  update: false,
  manage: false,
  delete: false,
  leave: false,
  createDiscussionTopic: false,
  createAnnouncement: false,
  manageFiles: false,
  readSis: false,
  manageSis: false,
  manageStorageQuotas: false,
  canParticipate: false,
};

export class GroupPolicy {
  private readonly ownMemberships: DataLoader<number, GroupMembership | null>;
  private readonly cache = new Map<number, Promise<GroupRights>>();

  constructor(private readonly ctx: RequestContext) {
    this.ownMemberships = ctx.loaders.get('groups:viewerMemberships', () =>
      new DataLoader<number, GroupMembership | null>(async (groupIds) => {
        const viewer = ctx.viewer;
        if (!viewer) return groupIds.map(() => null);
        const rows = await ctx.ds.getRepository(GroupMembership).findBy({
          userId: viewer.id,
          groupId: In([...groupIds]),
          workflowState: In(['accepted', 'invited', 'requested']),
        });
        return groupIds.map((id) => rows.find((r) => r.groupId === id) ?? null);
      }),
    );
  }

  category(group: Group): Promise<GroupCategory | null> {
    return this.ctx.loaders.byId(GroupCategory).load(group.groupCategoryId);
  }

  rights(group: Group): Promise<GroupRights> {
    let r = this.cache.get(group.id);
    if (!r) {
      r = this.compute(group);
      this.cache.set(group.id, r);
    }
    return r;
  }

  /** Context admin rights for a group or category context: group management, or tags for tags. */
  async isContextAdmin(contextType: string, contextId: number, nonCollaborative: boolean): Promise<boolean> {
    if (!this.ctx.viewer) return false;
    if (contextType === 'Account') return this.ctx.authz.isAccountAdmin(contextId);
    const course = await this.ctx.loaders.byId(Course).load(contextId);
    if (!course) return false;
    return this.ctx.authz.canCourse(course, nonCollaborative ? 'manage_tags' : 'manage_groups');
  }

  /** Whether the user may take part in a context: enrolled in the course, or any user of the account. */
  async canParticipate(contextType: string, contextId: number): Promise<boolean> {
    if (!this.ctx.viewer) return false;
    if (contextType === 'Account') return true;
    const course = await this.ctx.loaders.byId(Course).load(contextId);
    if (!course || course.workflowState === 'deleted') return false;
    const roles = await this.ctx.authz.courseRoles(course);
    return roles.admin || (roles.types.size > 0 && (await this.ctx.authz.canCourse(course, 'read')));
  }

  private async compute(group: Group): Promise<GroupRights> {
    const viewer = this.ctx.viewer;
    if (!viewer || group.workflowState === 'deleted') return NONE;
    const [category, membership, contextAdmin, canParticipate] = await Promise.all([
      this.category(group),
      this.ownMemberships.load(group.id),
      this.isContextAdmin(group.contextType, group.contextId, group.nonCollaborative),
      this.canParticipate(group.contextType, group.contextId),
    ]);
    const sis = group.contextType === 'Account' ? contextAdmin : await this.courseRight(group, 'read_sis');
    const manageSis = group.contextType === 'Account' ? contextAdmin : await this.courseRight(group, 'manage_sis');
    const quotas = group.contextType === 'Account' ? contextAdmin : await this.courseRight(group, 'manage_storage_quotas');
    // Differentiation tags have no collaborative side: only tag managers see or touch them.
    if (group.nonCollaborative) {
      return { ...NONE, contextAdmin, membership, canParticipate, read: contextAdmin, readRoster: contextAdmin, update: contextAdmin, manage: contextAdmin, delete: contextAdmin, readSis: sis, manageSis, manageStorageQuotas: quotas };
    }
    const member = membership?.workflowState === 'accepted' && canParticipate;
    const moderator = member && membership!.moderator;
    const leader = member && group.leaderId === viewer.id;
    const selfSignup = category?.selfSignup != null && group.contextType === 'Course';
    // The spec: auto_join and request levels let anyone of the parent context join (or ask to); class
    // groups are always invitation_only, so only self-signup opens them.
    const freelyJoinable = group.joinLevel !== 'invitation_only' || selfSignup;
    const invited = membership?.workflowState === 'invited';
    const join = canParticipate && !member && (freelyJoinable || invited);
    // A public community group is open to every logged-in user to look at.
    const read = member || contextAdmin || (group.isPublic && (category?.isCommunities ?? false));
    return {
      contextAdmin,
      member,
      moderator,
      membership,
      canParticipate,
      read,
      readRoster: read || join,
      join,
      update: moderator || leader || contextAdmin,
      manage: moderator || contextAdmin,
      delete: moderator || contextAdmin,
      // What the user could join freely they may leave; teacher-assigned class groups cannot be left.
      leave: member && ((category?.allowsMultipleMemberships ?? false) || freelyJoinable),
      createDiscussionTopic: read,
      createAnnouncement: moderator || contextAdmin || member,
      // Group files are managed by members and admins over the group, not by public readers.
      manageFiles: member || contextAdmin,
      readSis: sis,
      manageSis,
      manageStorageQuotas: quotas,
    };
  }

  private async courseRight(group: Group, permission: 'read_sis' | 'manage_sis' | 'manage_storage_quotas'): Promise<boolean> {
    const course = await this.ctx.loaders.byId(Course).load(group.contextId);
    return course ? this.ctx.authz.canCourse(course, permission) : false;
  }
}
