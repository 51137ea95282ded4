import DataLoader from 'dataloader';
import { In } from 'typeorm';
import { Course } from '../courses/course.entity';
import { findRows } from '../db/lean-read';
import type { RequestContext } from '../request/context';
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

/** The rights a group draws from its context (course or account), the same for all its groups. */
interface ContextRights {
  contextAdmin: boolean;
  canParticipate: boolean;
  readSis: boolean;
  manageSis: boolean;
  manageStorageQuotas: boolean;
}

const NO_CONTEXT_RIGHTS: ContextRights = { contextAdmin: false, canParticipate: false, readSis: false, manageSis: false, manageStorageQuotas: false };

export class GroupPolicy {
  private readonly cache = new Map<number, Promise<GroupRights>>();
  private readonly contexts = new Map<string, Promise<ContextRights>>();
  /**
   * The rights asked for in one tick, computed together (a page of groups asks for every group's at
   * once): one read of the viewer's memberships of those groups, their categories through the
   * request's loader, each context's rights once, then each group's rights without a promise of its own
   * per input. Not cached here: `cache` keeps every group's answer for the request.
   */
  private readonly batch: DataLoader<Group, GroupRights, number>;

  constructor(private readonly ctx: RequestContext) {
    this.batch = new DataLoader<Group, GroupRights, number>((groups) => this.computeAll(groups), { cache: false });
  }

  category(group: Group): Promise<GroupCategory | null> {
    return this.ctx.loaders.byId(GroupCategory).load(group.groupCategoryId);
  }

  rights(group: Group): Promise<GroupRights> {
    let r = this.cache.get(group.id);
    if (!r) {
      r = !this.ctx.viewer || group.workflowState === 'deleted' ? Promise.resolve(NONE) : this.batch.load(group);
      this.cache.set(group.id, r);
    }
    return r;
  }

  /** Context admin rights for a group or category context: group management, or tags for tags. */
  async isContextAdmin(contextType: string, contextId: number, nonCollaborative: boolean): Promise<boolean> {
    return (await this.contextRights(contextType, contextId, nonCollaborative)).contextAdmin;
  }

  /** Whether the user may take part in a context: enrolled in the course, or any user of the account. */
  async canParticipate(contextType: string, contextId: number): Promise<boolean> {
    return (await this.contextRights(contextType, contextId, false)).canParticipate;
  }

  /**
   * The viewer's rights over a group context, which every group of that context shares: computed once
   * per context and kind in a request, so a page of groups checks its course once, not once per group.
   */
  private contextRights(contextType: string, contextId: number, nonCollaborative: boolean): Promise<ContextRights> {
    const key = `${contextType}:${contextId}:${nonCollaborative}`;
    let r = this.contexts.get(key);
    if (!r) {
      r = this.computeContext(contextType, contextId, nonCollaborative);
      this.contexts.set(key, r);
    }
    return r;
  }

  private async computeContext(contextType: string, contextId: number, nonCollaborative: boolean): Promise<ContextRights> {
    if (!this.ctx.viewer) return NO_CONTEXT_RIGHTS;
    const authz = this.ctx.authz;
    if (contextType === 'Account') {
      const admin = await authz.isAccountAdmin(contextId);
      return { contextAdmin: admin, canParticipate: true, readSis: admin, manageSis: admin, manageStorageQuotas: admin };
    }
    const course = await this.ctx.loaders.byId(Course).load(contextId);
    if (!course) return NO_CONTEXT_RIGHTS;
    const [roles, contextAdmin, readSis, manageSis, manageStorageQuotas, read] = await Promise.all([
      authz.courseRoles(course),
      authz.canCourse(course, nonCollaborative ? 'manage_tags' : 'manage_groups'),
      authz.canCourse(course, 'read_sis'),
      authz.canCourse(course, 'manage_sis'),
      authz.canCourse(course, 'manage_storage_quotas'),
      authz.canCourse(course, 'read'),
    ]);
    const canParticipate = course.workflowState !== 'deleted' && (roles.admin || (roles.types.size > 0 && read));
    return { contextAdmin, canParticipate, readSis, manageSis, manageStorageQuotas };
  }

  /** Rights of groups of a viewer (rights() answers the others itself), in their order; a failed input fails its groups. */
  private async computeAll(groups: readonly Group[]): Promise<(GroupRights | Error)[]> {
    const viewer = this.ctx.viewer!;
    const categoryIds = [...new Set(groups.map((g) => g.groupCategoryId))];
    const contextKey = (g: Group) => `${g.contextType}:${g.contextId}:${g.nonCollaborative}`;
    const contexts = new Map<string, Promise<ContextRights | Error>>();
    for (const g of groups) {
      const key = contextKey(g);
      if (!contexts.has(key)) contexts.set(key, this.contextRights(g.contextType, g.contextId, g.nonCollaborative).catch((e: Error) => e));
    }
    const [categoryList, memberships, contextList] = await Promise.all([
      this.ctx.loaders.byId(GroupCategory).loadMany(categoryIds),
      this.viewerMemberships(viewer.id, groups.map((g) => g.id)),
      Promise.all(contexts.values()),
    ]);
    const categories = new Map(categoryIds.map((id, i) => [id, categoryList[i]]));
    const contextOf = new Map([...contexts.keys()].map((k, i) => [k, contextList[i]]));
    return groups.map((g) => {
      const category = categories.get(g.groupCategoryId)!;
      if (category instanceof Error) return category;
      const context = contextOf.get(contextKey(g))!;
      if (context instanceof Error) return context;
      return rightsOf(g, viewer.id, category, memberships.get(g.id) ?? null, context);
    });
  }

  /** The viewer's live membership (accepted, invited or requested) of each group, in one statement. */
  private async viewerMemberships(userId: number, groupIds: number[]): Promise<Map<number, GroupMembership>> {
    const where = { userId, groupId: In(groupIds), workflowState: In(['accepted', 'invited', 'requested']) };
    const rows = await findRows(this.ctx.ds, GroupMembership, where);
    const byGroup = new Map<number, GroupMembership>();
    for (const r of rows) if (!byGroup.has(r.groupId)) byGroup.set(r.groupId, r);
    return byGroup;
  }
}

/** The viewer's rights on a group from its category, the viewer's membership and the rights over its context. */
function rightsOf(group: Group, viewerId: number, category: GroupCategory | null, membership: GroupMembership | null, context: ContextRights): GroupRights {
  const { contextAdmin, canParticipate, readSis: sis, manageSis, manageStorageQuotas: quotas } = context;
  // Differentiation tags have no collaborative side: only tag managers see or touch them.
  if (group.nonCollaborative) {
    return { ...NONE, contextAdmin, membership, canParticipate, read: contextAdmin, readRoster: contextAdmin, update: contextAdmin, manage: contextAdmin, delete: contextAdmin, readSis: sis, manageSis, manageStorageQuotas: quotas };
  }
  const member = membership?.workflowState === 'accepted' && canParticipate;
  const moderator = member && membership!.moderator;
  const leader = member && group.leaderId === viewerId;
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
