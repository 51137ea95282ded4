import DataLoader from 'dataloader';
import { In } from 'typeorm';
import { Course } from '../courses/course.entity';
import { leanFind } from '../db/lean-read';
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
  private readonly ownMemberships: DataLoader<number, GroupMembership | null>;
  private readonly cache = new Map<number, Promise<GroupRights>>();
  private readonly contexts = new Map<string, Promise<ContextRights>>();

  constructor(private readonly ctx: RequestContext) {
    this.ownMemberships = ctx.loaders.get('groups:viewerMemberships', () =>
      new DataLoader<number, GroupMembership | null>(async (groupIds) => {
        const viewer = ctx.viewer;
        if (!viewer) return groupIds.map(() => null);
        const where = { userId: viewer.id, groupId: In([...groupIds]), workflowState: In(['accepted', 'invited', 'requested']) };
        const rows = (await leanFind(ctx.ds, GroupMembership, where)) ?? (await ctx.ds.getRepository(GroupMembership).findBy(where));
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

  private compute(group: Group): Promise<GroupRights> {
    const viewer = this.ctx.viewer;
    if (!viewer || group.workflowState === 'deleted') return Promise.resolve(NONE);
    // A then, not an async function: one of these runs per group of a page, and an async function's
    // suspended frame and promise cost more than the combination of the three answers below.
    try {
      return Promise.all([this.category(group), this.ownMemberships.load(group.id), this.contextRights(group.contextType, group.contextId, group.nonCollaborative)]).then(
        ([category, membership, context]) => rightsOf(group, viewer.id, category, membership, context),
      );
    } catch (e) {
      // As the async function did: a failure is the promise's, cached like any answer.
      return Promise.reject(e);
    }
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
