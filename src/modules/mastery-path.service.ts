import { In } from 'typeorm';
import type { Course } from '../courses/course.entity';
import { ForbiddenError, NotFoundError, RequestError, Validator } from '../common/errors';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { contentAdapter, loadStudentFacts } from './content-registry';
import { MasteryPathRule, MasteryPathSelection, ScoreRange } from './mastery-path.entity';
import type { ModuleItemView } from './module-views';
import { contentObjects } from './module-item-content';
import type { MasteryPathInfo } from './sequence.service';
import { CourseService } from '../courses/course.service';
import { ModuleItemService } from './module-item.service';
import { UserService } from '../users/user.service';
import { ProgressService } from './progress.service';
import { SequenceService } from './sequence.service';

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

  /** Per request: assignments withheld from each student (cleared when a selection changes them). */
  private readonly withheld = new Map<string, Promise<Set<number>>>();

  /**
   * Assignments Mastery Paths holds back from a student, as Canvas's conditional release does: every
   * assignment of some rule's sets, except those released to the student (the set they chose, or the
   * only set of the range their trigger score falls in). Without a student (an observer's view) all
   * of them are withheld. Nothing when the course feature is off (no statements either).
   */
  withheldFor(course: Course, userId: number | null): Promise<Set<number>> {
    if (!course.masteryPathsEnabled) return Promise.resolve(new Set());
    const key = `${course.id}:${userId}`;
    let found = this.withheld.get(key);
    if (!found) {
      found = this.computeWithheld(course, userId);
      this.withheld.set(key, found);
    }
    return found;
  }

  private async computeWithheld(course: Course, userId: number | null): Promise<Set<number>> {
    const rules = await this.ctx.ds.getRepository(MasteryPathRule).findBy({ courseId: course.id });
    const conditional = new Set(rules.flatMap((r) => r.scoreRanges.flatMap((range) => range.assignmentSets.flatMap((set) => set.assignmentIds))));
    if (!conditional.size || userId == null) return conditional;
    const [selections, facts] = await Promise.all([
      this.ctx.ds.getRepository(MasteryPathSelection).findBy({ ruleId: In(rules.map((r) => r.id)), userId }),
      loadStudentFacts(this.ctx, course.id, [userId]),
    ]);
    const mine = facts.get(userId);
    for (const rule of rules) {
      const range = rangeOf(rule, mine?.byAssignment.get(rule.triggerAssignmentId));
      if (!range) continue;
      const chosen = selections.find((s) => s.ruleId === rule.id)?.assignmentSetId;
      const set = range.assignmentSets.find((x) => x.id === chosen) ?? (range.assignmentSets.length === 1 ? range.assignmentSets[0] : undefined);
      for (const id of set?.assignmentIds ?? []) conditional.delete(id);
    }
    return conditional;
  }

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

  /** The range a student's trigger score falls in ('pending' until graded, null when in no range). */
  private async rangeFor(course: Course, rule: MasteryPathRule, userId: number): Promise<ScoreRange | null | 'pending'> {
    const facts = (await loadStudentFacts(this.ctx, course.id, [userId])).get(userId);
    const f = facts?.byAssignment.get(rule.triggerAssignmentId);
    if (!f || f.score == null) return 'pending';
    return rangeOf(rule, f);
  }

  /** The mastery_path object of a sequence node whose current item is a trigger assignment. */
  async pathInfo(course: Course, node: ModuleItemView): Promise<MasteryPathInfo | null> {
    if (node.item.contentType !== 'Assignment' || node.item.contentId == null) return null;
    const rule = await this.ctx.ds.getRepository(MasteryPathRule).findOneBy({ courseId: course.id, triggerAssignmentId: node.item.contentId });
    if (!rule) return null;
    const viewer = this.ctx.authz.requireViewer();
    const range = await this.rangeFor(course, rule, viewer.id);
    const selection = await this.ctx.ds.getRepository(MasteryPathSelection).findOneBy({ ruleId: rule.id, userId: viewer.id });
    const sets = range && range !== 'pending' ? range.assignmentSets : [];
    const selected = selection?.assignmentSetId ?? (sets.length === 1 ? sets[0].id : null);
    return {
      locked: range === 'pending',
      assignmentSets: sets,
      selectedSetId: selected,
      awaitingChoice: sets.length > 1 && selected == null,
      stillProcessing: false,
      modulesUrl: `${this.ctx.baseUrl}/courses/${course.id}/modules`,
      chooseUrl: `${this.ctx.baseUrl}/courses/${course.id}/modules/items/${node.item.id}/choose`,
      modulesTabDisabled: false,
    };
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
    const range = await this.rangeFor(course, rule, studentId);
    const set = range && range !== 'pending' ? range.assignmentSets.find((s) => String(s.id) === String(args.assignmentSetId)) : undefined;
    if (!set) throw new RequestError('invalid assignment_set_id', 400, { message: 'invalid assignment_set_id' });
    await transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(MasteryPathSelection);
      const row = (await repo.findOneBy({ ruleId: rule.id, userId: studentId })) ?? repo.create({ ruleId: rule.id, userId: studentId });
      row.assignmentSetId = set.id;
      await repo.save(row);
      await this.ctx.use(ProgressService).markStale(em, { courseId: course.id, userId: studentId });
    });
    this.withheld.clear();
    // The chosen assignments in the set's order (published ones only), and this module's items linking them.
    const published = (await contentAdapter('Assignment')?.load(this.ctx, course.id, set.assignmentIds)) ?? new Map();
    const assignmentIds = set.assignmentIds.filter((id) => published.get(id)?.published);
    const linked = new Set((await this.ctx.use(SequenceService).itemsForAssignments(course.id, assignmentIds)).map((i) => i.id));
    const moduleItems = (await this.ctx.use(ModuleItemService).visibleItems(view.module)).filter((v) => linked.has(v.item.id));
    return { assignmentIds, assignments: await contentObjects(this.ctx, 'Assignment', assignmentIds), moduleItems };
  }
}

/** The scoring range a trigger score falls in: percent of points possible, the top range including 100. */
function rangeOf(rule: MasteryPathRule, f: { score?: number | null; pointsPossible?: number | null } | undefined): ScoreRange | null {
  if (!f || f.score == null) return null;
  const points = f.pointsPossible ?? 0;
  const pct = points > 0 ? (f.score / points) * 100 : 0;
  return rule.scoreRanges.find((r) => pct >= r.lowerBound && (pct < r.upperBound || (r.upperBound >= 100 && pct >= 100))) ?? null;
}
