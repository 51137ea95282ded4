import { EntityManager, In } from 'typeorm';
import type { Course } from '../courses/course.entity';
import { Enrollment } from '../courses/enrollment.entity';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../graphql/context';
import { ContentInfo, contentAdapter, loadStudentFacts, StudentFacts } from './content-registry';
import { ModuleItem } from './module-item.entity';
import { ContextModule } from './module.entity';
import { EvalItem, EvalModule, evaluateCourse, ItemFacts, MetRequirement, RequirementType } from './progression-evaluator';
import { ModuleProgression } from './progression.entity';

/**
 * Students' progress through a course's modules: stored per (module, student), re-evaluated by the
 * pure evaluator whenever something that feeds it changed (marked stale), and read cheaply otherwise.
 */
export class ProgressService {
  constructor(private readonly ctx: RequestContext) {}

  /** Whether the user is a student of the course whose progress is tracked. */
  async isStudent(course: Course, userId: number): Promise<boolean> {
    const rows = await this.ctx.loaders.manyBy(Enrollment, 'courseId', { type: 'StudentEnrollment', workflowState: In(['active']) }).load(course.id);
    return rows.some((e) => e.userId === userId);
  }

  /**
   * The student's progressions for every live module of the course, evaluated where missing or stale.
   * One batch of statements whatever the number of modules or items.
   */
  async forStudent(course: Course, userId: number, em?: EntityManager): Promise<Map<number, ModuleProgression>> {
    const manager = em ?? this.ctx.ds.manager;
    const modules = await manager.getRepository(ContextModule).find({ where: { courseId: course.id, workflowState: In(['active', 'unpublished']) }, order: { position: 'ASC', id: 'ASC' } });
    const stored = await manager.getRepository(ModuleProgression).findBy({ courseId: course.id, userId });
    const byModule = new Map(stored.map((p) => [p.moduleId, p]));
    const published = modules.filter((m) => m.published);
    if (published.every((m) => byModule.get(m.id) && !byModule.get(m.id)!.stale)) return byModule;
    if (em) await this.evaluate(em, course, userId, modules, byModule);
    else await transaction(this.ctx.ds, (tx) => this.evaluate(tx, course, userId, modules, byModule));
    return byModule;
  }

  /** Runs the evaluator over the course for one student and stores what changed. */
  private async evaluate(em: EntityManager, course: Course, userId: number, modules: ContextModule[], byModule: Map<number, ModuleProgression>): Promise<void> {
    // Unpublished modules are never evaluated; deleted or unpublished prerequisites do not count.
    const published = modules.filter((m) => m.published);
    const positions = new Map(published.map((m) => [m.id, m.position]));
    const items = await em.getRepository(ModuleItem).find({ where: { moduleId: In(published.map((m) => m.id).concat(-1)), workflowState: 'active' }, order: { position: 'ASC', id: 'ASC' } });
    const visibility = this.ctx.services.moduleVisibility;
    const assigned = await Promise.all(published.map((m) => visibility.assigned(m, userId)));
    const content = await this.contentFor(course.id, items);
    const facts = (await loadStudentFacts(this.ctx, course.id, [userId])).get(userId) ?? { byAssignment: new Map(), byQuiz: new Map() };
    const evalModules: EvalModule[] = [];
    const inputs = new Map<number, Parameters<typeof evaluateCourse>[1] extends Map<number, infer V> ? V : never>();
    const now = new Date();
    published.forEach((m, i) => {
      if (!assigned[i]) return;
      evalModules.push({
        id: m.id,
        unlockAt: m.unlockAt,
        requireSequentialProgress: m.requireSequentialProgress,
        requirementType: m.requirementType,
        prerequisiteIds: m.prerequisiteIds.filter((p) => positions.has(p) && positions.get(p)! < m.position),
      });
      const own = items.filter((it) => it.moduleId === m.id && (it.contentType === 'SubHeader' || it.contentType === 'ExternalUrl' || content.has(key(it))));
      const prev = byModule.get(m.id);
      inputs.set(m.id, {
        items: own.map<EvalItem>((it) => ({
          id: it.id,
          position: it.position,
          requirement: it.requirementType ? { type: it.requirementType, minScore: it.requirementMinScore, minPercentage: it.requirementMinPercentage } : null,
        })),
        facts: new Map(own.map((it) => [it.id, factsFor(it, content.get(key(it)), facts)])),
        previous: prev ? { state: prev.state, requirementsMet: prev.met, completedAt: prev.completedAt } : null,
        now,
      });
    });
    const results = evaluateCourse(evalModules, inputs);
    const repo = em.getRepository(ModuleProgression);
    for (const m of published) {
      const r = results.get(m.id);
      if (!r) continue;
      const row = byModule.get(m.id) ?? repo.create({ courseId: course.id, moduleId: m.id, userId });
      Object.assign(row, {
        state: r.state,
        requirementsMet: JSON.stringify(r.requirementsMet),
        completedAt: r.completedAt,
        currentPosition: r.currentPosition,
        lockedItems: r.lockedItemIds.length ? JSON.stringify(r.lockedItemIds) : null,
        stale: false,
      });
      byModule.set(m.id, await repo.save(row));
    }
  }

  private async contentFor(courseId: number, items: ModuleItem[]): Promise<Map<string, ContentInfo>> {
    const out = new Map<string, ContentInfo>();
    const kinds = new Map<string, number[]>();
    for (const it of items) if (it.contentId != null) kinds.set(it.contentType, [...(kinds.get(it.contentType) ?? []), it.contentId]);
    await Promise.all(
      [...kinds].map(async ([kind, ids]) => {
        const adapter = contentAdapter(kind as ModuleItem['contentType']);
        if (!adapter) return;
        const found = await adapter.load(this.ctx, courseId, ids);
        for (const [id, info] of found) out.set(`${kind}:${id}`, info);
      }),
    );
    return out;
  }

  /** Marks progressions stale so the next read re-evaluates (module structure or student work changed). */
  async markStale(em: EntityManager, where: { courseId: number; userId?: number; moduleIds?: number[] }): Promise<void> {
    const criteria: Record<string, unknown> = { courseId: where.courseId };
    if (where.userId != null) criteria.userId = where.userId;
    if (where.moduleIds) criteria.moduleId = In(where.moduleIds.concat(-1));
    await em.getRepository(ModuleProgression).update(criteria, { stale: true });
  }

  /** Relock: progressions of the module go back to locked and are re-evaluated from current requirements. */
  async relock(em: EntityManager, module: ContextModule): Promise<void> {
    await em.getRepository(ModuleProgression).update({ moduleId: module.id }, { state: 'locked', stale: true, completedAt: null });
  }

  /**
   * Records an action (view, contribution, done) on an item for a student, when the module is not
   * locked for them, and re-evaluates the course. Returns false when the module was locked.
   */
  async record(em: EntityManager, course: Course, userId: number, item: ModuleItem, type: RequirementType): Promise<boolean> {
    if (!(await this.isStudent(course, userId))) return true;
    const progressions = await this.forStudent(course, userId, em);
    const p = progressions.get(item.moduleId);
    if (!p || p.state === 'locked') return false;
    const met = p.met;
    if (!met.some((m) => m.id === item.id && m.type === type)) met.push({ id: item.id, type });
    // A contribution also counts as a view.
    if (type === 'must_contribute' && !met.some((m) => m.id === item.id && m.type === 'must_view')) met.push({ id: item.id, type: 'must_view' });
    p.requirementsMet = JSON.stringify(met);
    await em.getRepository(ModuleProgression).save(p);
    await this.markStale(em, { courseId: course.id, userId });
    await this.forStudent(course, userId, em);
    return true;
  }

  /** Removes recorded done marks for an item (DELETE …/done) and re-evaluates. */
  async unrecord(em: EntityManager, course: Course, userId: number, item: ModuleItem): Promise<void> {
    if (!(await this.isStudent(course, userId))) return;
    const progressions = await this.forStudent(course, userId, em);
    const p = progressions.get(item.moduleId);
    if (!p) return;
    const met: MetRequirement[] = p.met.filter((m) => !(m.id === item.id && m.type === 'must_mark_done'));
    p.requirementsMet = JSON.stringify(met);
    p.stale = true;
    await em.getRepository(ModuleProgression).save(p);
    await this.markStale(em, { courseId: course.id, userId });
    await this.forStudent(course, userId, em);
  }

  /** Several students' progressions at once, for teachers' views (only stored rows; evaluates stale ones). */
  async forStudents(course: Course, userIds: number[]): Promise<Map<number, Map<number, ModuleProgression>>> {
    const out = new Map<number, Map<number, ModuleProgression>>();
    for (const id of userIds) out.set(id, await this.forStudent(course, id));
    return out;
  }
}

const key = (it: ModuleItem) => `${it.contentType}:${it.contentId}`;

function factsFor(item: ModuleItem, info: ContentInfo | undefined, facts: StudentFacts): ItemFacts {
  if (!info) return {};
  const f = (info.quizId != null ? facts.byQuiz.get(info.quizId) : undefined) ?? (info.assignmentId != null ? facts.byAssignment.get(info.assignmentId) : undefined);
  return f ? { ...f, pointsPossible: f.pointsPossible ?? info.pointsPossible } : { pointsPossible: info.pointsPossible };
}
