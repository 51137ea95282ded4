import { In } from 'typeorm';
import type { Course } from '../courses/course.entity';
import { ForbiddenError, NotFoundError, RequestError, Validator } from '../common/errors';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { contentAdapter } from './content-registry';
import { MasteryPathRule, MasteryPathSelection, ScoreRange } from './mastery-path.entity';
import { contentObjects } from './module-item-content';
import { CourseService } from '../courses/course.service';
import { ModuleItemService } from './module-item.service';
import { UserService } from '../users/user.service';
import { ProgressService } from './progress.service';
import { MasteryPathReads } from './mastery-path-reads';
import { ModuleItemReads } from './module-item-reads';
import { ModuleItem } from './module-item.entity';

export interface ScoreRangeInput {
  lowerBound: number;
  upperBound: number;
  assignmentSets: { assignmentIds: string[] }[];
}

/**
 * Mastery Paths (Canvas's conditional release): the student's score on a trigger assignment picks the
 * score range, whose assignment sets the student chooses among (or gets, when there is one).
 */
export class MasteryPathService {
  constructor(private readonly ctx: RequestContext) {}

  private async managedCourse(courseRaw: string): Promise<Course> {
    const course = await this.ctx.use(CourseService).find(courseRaw, 'read');
    if (!(await this.ctx.authz.canCourse(course, 'manage_assignments'))) throw new ForbiddenError();
    if (!course.masteryPathsEnabled) throw new RequestError('mastery paths not enabled', 400, { message: 'mastery paths not enabled' });
    return course;
  }

  async rules(courseRaw: string): Promise<MasteryPathRule[]> {
    const course = await this.managedCourse(courseRaw);
    return this.ctx.ds.getRepository(MasteryPathRule).find({ where: { courseId: course.id }, order: { id: 'ASC' } });
  }

  /** Creates or replaces the rule of a trigger assignment. */
  async setRule(courseRaw: string, triggerAssignmentId: string, ranges: ScoreRangeInput[]): Promise<{ rule: MasteryPathRule }> {
    const course = await this.managedCourse(courseRaw);
    const adapter = contentAdapter('Assignment');
    const ids = [Number(triggerAssignmentId), ...ranges.flatMap((r) => r.assignmentSets.flatMap((s) => s.assignmentIds.map(Number)))];
    const found = adapter ? await adapter.load(this.ctx, course.id, ids.filter(Number.isFinite)) : new Map();
    const v = new Validator();
    v.check(found.has(Number(triggerAssignmentId)), 'trigger_assignment_id', 'invalid', 'must be an assignment of the course');
    v.check(ranges.length > 0, 'scoring_ranges', 'blank', 'at least one scoring range is required');
    for (const r of ranges) {
      v.check(r.lowerBound >= 0 && r.upperBound <= 100 && r.lowerBound < r.upperBound, 'scoring_ranges', 'invalid', 'bounds must satisfy 0 <= lower < upper <= 100');
      for (const s of r.assignmentSets) for (const a of s.assignmentIds) v.check(found.has(Number(a)), 'assignment_sets', 'invalid', `assignment ${a} is not in the course`);
    }
    v.throwIfInvalid();
    let setId = 1;
    const stored: ScoreRange[] = ranges.map((r) => ({
      lowerBound: r.lowerBound,
      upperBound: r.upperBound,
      assignmentSets: r.assignmentSets.map((s) => ({ id: setId++, assignmentIds: s.assignmentIds.map(Number) })),
    }));
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(MasteryPathRule);
      const rule = (await repo.findOneBy({ courseId: course.id, triggerAssignmentId: Number(triggerAssignmentId) })) ?? repo.create({ courseId: course.id, triggerAssignmentId: Number(triggerAssignmentId) });
      rule.ranges = JSON.stringify(stored);
      await repo.save(rule);
      await em.getRepository(MasteryPathSelection).delete({ ruleId: rule.id });
      return { rule };
    });
  }

  async deleteRule(courseRaw: string, ruleId: string): Promise<{ rule: MasteryPathRule }> {
    const course = await this.managedCourse(courseRaw);
    const rule = await this.ctx.ds.getRepository(MasteryPathRule).findOneBy({ id: Number(ruleId) || -1, courseId: course.id });
    if (!rule) throw new NotFoundError();
    await transaction(this.ctx.ds, async (em) => {
      await em.getRepository(MasteryPathSelection).delete({ ruleId: rule.id });
      await em.getRepository(MasteryPathRule).delete({ id: rule.id });
    });
    return { rule };
  }

  /**
   * POST …/items/:id/select_mastery_path: the student (or a teacher for a student) picks one of the
   * sets open to their score range. Returns the chosen assignments and the module items linking them.
   */
  async select(courseRaw: string, moduleRaw: string, itemRaw: string, args: { assignmentSetId?: string | null; studentId?: string | null }) {
    const view = await this.ctx.use(ModuleItemService).show(courseRaw, moduleRaw, itemRaw);
    const course = view.module.course;
    const viewer = this.ctx.authz.requireViewer();
    const studentId = args.studentId ? (await this.ctx.use(UserService).lookup(args.studentId)).id : viewer.id;
    if (studentId !== viewer.id && !(await this.ctx.authz.canCourse(course, 'manage_assignments'))) throw new ForbiddenError();
    if (studentId === viewer.id && !(await this.ctx.use(ProgressService).isStudent(course, viewer.id))) throw new ForbiddenError();
    if (!course.masteryPathsEnabled) throw new RequestError('mastery paths not enabled', 400, { message: 'mastery paths not enabled' });
    if (!args.assignmentSetId) throw new RequestError('assignment_set_id required', 400, { message: 'assignment_set_id required' });
    if (view.item.contentType !== 'Assignment' || view.item.contentId == null) throw new RequestError('requested item is not an assignment', 400, { message: 'requested item is not an assignment' });
    const rule = await this.ctx.ds.getRepository(MasteryPathRule).findOneBy({ courseId: course.id, triggerAssignmentId: view.item.contentId });
    if (!rule) throw new RequestError('requested item is not a mastery path trigger', 400, { message: 'requested item is not a mastery path trigger' });
    const range = await this.ctx.use(MasteryPathReads).rangeFor(course, rule, studentId);
    const set = range && range !== 'pending' ? range.assignmentSets.find((s) => String(s.id) === String(args.assignmentSetId)) : undefined;
    if (!set) throw new RequestError('invalid assignment_set_id', 400, { message: 'invalid assignment_set_id' });
    await transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(MasteryPathSelection);
      const row = (await repo.findOneBy({ ruleId: rule.id, userId: studentId })) ?? repo.create({ ruleId: rule.id, userId: studentId });
      row.assignmentSetId = set.id;
      await repo.save(row);
      await this.ctx.use(ProgressService).markStale(em, { courseId: course.id, userId: studentId });
    });
    this.ctx.use(MasteryPathReads).forgetWithheld();
    // The chosen assignments in the set's order (published ones only), and this module's items linking them.
    const published = (await contentAdapter('Assignment')?.load(this.ctx, course.id, set.assignmentIds)) ?? new Map();
    const assignmentIds = set.assignmentIds.filter((id) => published.get(id)?.published);
    const linked = new Set((await this.itemsForAssignments(course.id, assignmentIds)).map((i) => i.id));
    const moduleItems = (await this.ctx.use(ModuleItemReads).visibleItems(view.module)).filter((v) => linked.has(v.item.id));
    return { assignmentIds, assignments: await contentObjects(this.ctx, 'Assignment', assignmentIds), moduleItems };
  }

  /** Items of a course linking any of the given assignments (the module items a selection opens). */
  private itemsForAssignments(courseId: number, assignmentIds: number[]): Promise<ModuleItem[]> {
    return this.ctx.ds.getRepository(ModuleItem).findBy({ courseId, contentType: 'Assignment', contentId: In(assignmentIds.concat(-1)), workflowState: 'active' });
  }
}
