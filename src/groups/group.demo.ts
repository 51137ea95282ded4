import type { EntityManager } from 'typeorm';
import type { DemoExtension } from '../courses/demo-world';
import { GroupCategory } from './group-category.entity';
import { GroupCategoryService } from './group-category.service';
import { GroupMembership } from './group-membership.entity';
import { Group, JoinLevel } from './group.entity';
import { memberSortName } from './member-sort-name';

export const DEMO_LAB_CATEGORY = 'Lab Teams';
export const DEMO_LAB_GROUPS = ['Lab Team 1', 'Lab Team 2'];
export const DEMO_COMMUNITY = 'Biology Study Circle';

/** A group row as GroupService.insert writes it. */
function newGroup(em: EntityManager, category: GroupCategory, name: string, joinLevel: JoinLevel): Promise<Group> {
  const repo = em.getRepository(Group);
  return repo.save(
    repo.create({
      contextType: category.contextType,
      contextId: category.contextId,
      rootAccountId: category.rootAccountId,
      groupCategoryId: category.id,
      name,
      description: null,
      isPublic: false,
      joinLevel,
      maxMembership: null,
      storageQuotaMb: null,
      avatarAttachmentId: null,
      leaderId: null,
      sisGroupId: null,
      sisImportId: null,
      nonCollaborative: category.nonCollaborative,
      stickyFields: null,
      workflowState: 'available',
      deletedAt: null,
    }),
  );
}

async function accept(em: EntityManager, group: Group, userId: number, moderator = false): Promise<GroupMembership> {
  const repo = em.getRepository(GroupMembership);
  return repo.save(repo.create({ groupId: group.id, userId, workflowState: 'accepted', moderator, sisImportId: null, sortableName: await memberSortName(em, userId) }));
}

/**
 * The demo's groups: a "Lab Teams" category in the course whose two class groups split the students
 * (first half in Lab Team 1, the rest in Lab Team 2), and a community group in the root account
 * created by the first student (its moderator), which the last student has joined.
 */
export const groupsDemo: DemoExtension = {
  name: 'groups',
  async seed(em, world, { rootAccountId }) {
    const students = [...world.enrollments.entries()].filter(([, e]) => e.type === 'StudentEnrollment').map(([key]) => world.users.get(key)!);

    // As POST /courses/:id/group_categories then POST /group_categories/:id/groups (class groups are invitation_only).
    const categories = em.getRepository(GroupCategory);
    const lab = await categories.save(
      categories.create({
        contextType: 'Course',
        contextId: world.course.id,
        rootAccountId: world.course.rootAccountId,
        name: DEMO_LAB_CATEGORY,
        role: null,
        selfSignup: null,
        groupLimit: null,
        autoLeader: null,
        nonCollaborative: false,
        sisGroupCategoryId: null,
        sisImportId: null,
        workflowState: 'active',
        deletedAt: null,
      }),
    );
    const teams = [];
    for (const name of DEMO_LAB_GROUPS) teams.push(await newGroup(em, lab, name, 'invitation_only'));
    // As a teacher adding students (POST /groups/:id/memberships with user_id): accepted members.
    const half = Math.ceil(students.length / 2);
    for (const [i, student] of students.entries()) await accept(em, teams[i < half ? 0 : 1], student.id);

    // As POST /api/v1/groups by the first student: the creator is the accepted moderator.
    if (students.length) {
      const communities = await GroupCategoryService.builtInIn(em, { type: 'Account', id: rootAccountId, rootAccountId }, 'communities');
      const circle = await newGroup(em, communities, DEMO_COMMUNITY, 'parent_context_auto_join');
      await accept(em, circle, students[0].id, true);
      if (students.length > 1) await accept(em, circle, students[students.length - 1].id);
    }
  },
};
