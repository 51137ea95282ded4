import DataLoader from 'dataloader';
import { In } from 'typeorm';
import type { Course } from '../courses/course.entity';
import { Enrollment } from '../courses/enrollment.entity';
import { GroupMembership } from '../groups/group-membership.entity';
import type { RequestContext } from '../request/context';
import { CONTENTLESS, ContentInfo, contentAdapter } from './content-registry';
import type { ModuleItem } from './module-item.entity';
import { ModuleOverride } from './module-override.entity';
import type { ContextModule } from './module.entity';
import { marks, SqlPart } from './module-item-sql';

/** An item still links something (its content exists), or links nothing by nature. */
export function itemLinked(item: ModuleItem, content: ContentInfo | null | undefined): boolean {
  return CONTENTLESS.has(item.contentType) || content != null || !contentAdapter(item.contentType);
}

/**
 * Whether students see a live item of a module they see: the item is published and so is what it
 * links. Listings and the progression engine share this rule, so a requirement on an item a student
 * cannot see never blocks them.
 */
/** An item whose content is scored by an assignment Mastery Paths withholds from the student. */
export function withheldItem(content: ContentInfo | null | undefined, withheld: ReadonlySet<number>): boolean {
  return withheld.size > 0 && content?.assignmentId != null && withheld.has(content.assignmentId);
}

export function itemVisibleToStudents(item: ModuleItem, content: ContentInfo | null | undefined): boolean {
  return item.workflowState === 'active' && itemLinked(item, content) && (content == null || content.published);
}

/**
 * Who sees which modules: content managers see every live module; students see published modules,
 * and a module with overrides only when one of its overrides targets them (their section, them, or a
 * tag they carry); observers of students see what those students are assigned, together (Canvas's
 * DifferentiableAssignment filter); anyone else (an observer following nobody, an invitee) has no
 * audience, so no override targets them: they see only the published modules without overrides.
 */
export class ModuleVisibility {
  constructor(private readonly ctx: RequestContext) {}

  canSeeUnpublished(course: Course): Promise<boolean> {
    return this.ctx.authz.canCourse(course, 'view_unpublished_items');
  }

  private overridesLoader(): DataLoader<number, ModuleOverride[]> {
    return this.ctx.loaders.manyBy(ModuleOverride, 'moduleId', { workflowState: 'active' });
  }

  overridesOf(moduleId: number): Promise<ModuleOverride[]> {
    return this.overridesLoader().load(moduleId);
  }

  /** The student's sections and tags in a course, for override targeting (batched across courses and students). */
  private async targets(courseId: number, userId: number): Promise<{ sections: Set<number>; groups: Set<number> }> {
    return this.ctx.loaders
      .get('modules:targets', () =>
        new DataLoader<string, { sections: Set<number>; groups: Set<number> }>(async (keys) => {
          const pairs = keys.map((k) => k.split(':').map(Number) as [number, number]);
          const cids = [...new Set(pairs.map(([c]) => c))];
          const uids = [...new Set(pairs.map(([, u]) => u))];
          const [enrollments, memberships] = await Promise.all([
            this.ctx.ds.getRepository(Enrollment).findBy({ courseId: In(cids), userId: In(uids), workflowState: In(['active', 'invited']) }),
            this.ctx.ds
              .getRepository(GroupMembership)
              .createQueryBuilder('m')
              .innerJoin('groups', 'g', "g.id = m.group_id AND g.context_type = 'Course' AND g.context_id IN (:...cids) AND g.workflow_state = 'available'", { cids })
              .select('m.userId', 'user_id')
              .addSelect('m.groupId', 'group_id')
              .addSelect('g.context_id', 'course_id')
              .where('m.user_id IN (:...uids) AND m.workflow_state = :a', { uids, a: 'accepted' })
              .getRawMany<{ user_id: number | string; group_id: number | string; course_id: number | string }>(),
          ]);
          return pairs.map(([c, u]) => ({
            sections: new Set(enrollments.filter((e) => e.userId === u && e.courseId === c).map((e) => e.courseSectionId)),
            groups: new Set(memberships.filter((m) => Number(m.user_id) === u && Number(m.course_id) === c).map((m) => Number(m.group_id))),
          }));
        }),
      )
      .load(`${courseId}:${userId}`);
  }

  /** Whether a student (by id) is assigned a module: true when it has no overrides or one targets them. */
  async assigned(module: ContextModule, userId: number): Promise<boolean> {
    const overrides = await this.overridesOf(module.id);
    if (!overrides.length) return true;
    const t = await this.targets(module.courseId, userId);
    return overrides.some(
      (o) => (o.courseSectionId != null && t.sections.has(o.courseSectionId)) || (o.groupId != null && t.groups.has(o.groupId)) || o.students.includes(userId),
    );
  }

  /** The students the viewer observes in the course (active observer enrollments). */
  async observedStudents(course: Course): Promise<number[]> {
    if (!this.ctx.viewer) return [];
    const roles = await this.ctx.authz.courseRoles(course);
    const ids = roles.enrollments.filter((e) => e.type === 'ObserverEnrollment' && e.workflowState === 'active' && e.associatedUserId != null).map((e) => e.associatedUserId!);
    return [...new Set(ids)];
  }

  /**
   * visibleModules as a SQL condition over context_modules aliased `m`, so module lists page in the
   * database and read overrides only through it (the overrides' (module_id, workflow_state) index):
   * the same audience, and an override targets someone through their section (an active or invited
   * enrollment), a tag they carry (an accepted membership of an available group of the course), or
   * its student list (stored as JSON.stringify of numbers, matched as a whole element). Who is
   * targeted is looked up inside the condition, only for modules that have overrides.
   */
  async visibleSql(course: Course, asStudent: number | null): Promise<SqlPart> {
    if (asStudent == null && (await this.canSeeUnpublished(course))) return { sql: "m.workflow_state IN ('active', 'unpublished')", params: [] };
    const audience = asStudent != null ? [asStudent] : await this.observedStudents(course);
    const overrides = "SELECT 1 FROM module_overrides o WHERE o.module_id = m.id AND o.workflow_state = 'active'";
    const open = `NOT EXISTS (${overrides})`;
    if (!audience.length) return { sql: `m.workflow_state = 'active' AND ${open}`, params: [] };
    const users = marks(audience.length);
    const ors = [
      `o.course_section_id IN (SELECT e.course_section_id FROM enrollments e WHERE e.course_id = m.course_id AND e.user_id IN (${users}) AND e.workflow_state IN ('active', 'invited'))`,
      `o.group_id IN (SELECT gm.group_id FROM group_memberships gm INNER JOIN ${this.ctx.ds.driver.escape('groups')} g ON g.id = gm.group_id WHERE gm.user_id IN (${users}) AND gm.workflow_state = 'accepted'` +
        " AND g.context_type = 'Course' AND g.context_id = m.course_id AND g.workflow_state = 'available')",
    ];
    const params: unknown[] = [...audience, ...audience];
    for (const u of audience) {
      ors.push('o.student_ids LIKE ? OR o.student_ids LIKE ? OR o.student_ids LIKE ? OR o.student_ids LIKE ?');
      params.push(`[${u}]`, `[${u},%`, `%,${u},%`, `%,${u}]`);
    }
    return { sql: `m.workflow_state = 'active' AND (${open} OR EXISTS (${overrides} AND (${ors.join(' OR ')})))`, params };
  }

  /**
   * The modules a viewer sees, in order. `asStudent` is the student whose view applies (the viewer
   * themself when a student, or the student_id asked for); content managers without it see all; an
   * observer without it sees the modules any of their observed students is assigned.
   */
  async visibleModules(course: Course, modules: ContextModule[], asStudent: number | null): Promise<ContextModule[]> {
    const live = modules.filter((m) => m.workflowState !== 'deleted');
    if (asStudent == null && (await this.canSeeUnpublished(course))) return live;
    const published = live.filter((m) => m.published);
    const audience = asStudent != null ? [asStudent] : await this.observedStudents(course);
    if (!audience.length) {
      // Restricted modules open only to those their overrides name; with nobody to stand in for, none does.
      const open = await Promise.all(published.map(async (m) => (await this.overridesOf(m.id)).length === 0));
      return published.filter((_, i) => open[i]);
    }
    const ok = await Promise.all(published.map(async (m) => (await Promise.all(audience.map((u) => this.assigned(m, u)))).some(Boolean)));
    return published.filter((_, i) => ok[i]);
  }
}
