import { EnrollmentService } from '../courses/enrollment.service';
import DataLoader from 'dataloader';
import { EntityManager, In } from 'typeorm';
import type { Course } from '../courses/course.entity';
import { nowToSecond } from '../db/columns';
import { findRows } from '../db/lean-read';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { ContentInfo, loadStudentFacts, StudentFacts } from './content-registry';
import { ModuleItem } from './module-item.entity';
import { itemVisibleToStudents, withheldItem } from './module-visibility';
import { ContextModule } from './module.entity';
import { actionCounts, EvalItem, EvalModule, evaluateCourse, ItemFacts, MetRequirement, RequirementType } from './progression-evaluator';
import { ModuleProgression } from './progression.entity';
import { ModuleVisibility } from './module-visibility';
import { MasteryPathReads } from './mastery-path-reads';
import { ModuleItemReads } from './module-item-reads';

type EvalInputs = Parameters<typeof evaluateCourse>[1];

/** One student's progression in a module, as GraphQL shows it. */
export interface ProgressionView {
  moduleId: number;
  userId: number;
  state: string;
  completedAt: Date | null;
  currentPosition: number | null;
  requirementsMet: { moduleItemId: number; type: string }[];
}

/**
 * Students' progress through a course's modules: stored per (module, student), re-evaluated by the
 * pure evaluator whenever something that feeds it changed (marked stale), and read cheaply otherwise.
 */
export class ProgressService {
  constructor(private readonly ctx: RequestContext) {}

  /** Whether the user is a student of the course whose progress is tracked (an active student). */
  isStudent(course: Course, userId: number): Promise<boolean> {
    return this.ctx.use(EnrollmentService).isActiveStudent(course, userId);
  }

  /** Students of the course (for teachers' progress views). */
  studentIds(course: Course): Promise<number[]> {
    return this.ctx.use(EnrollmentService).activeStudentIds(course);
  }

  /**
   * The student's progressions for every live module of the course, evaluated where missing or stale.
   * One batch of statements whatever the number of modules or items: every published module keeps a
   * row (a module the student is not assigned stays locked), so a fresh read is two SELECTs.
   */
  async forStudent(course: Course, userId: number, em?: EntityManager): Promise<Map<number, ModuleProgression>> {
    if (em) return this.readOrEvaluate(course, userId, em);
    // Reads outside a transaction share one evaluation per (course, student) per request, so nested
    // GraphQL fields (each module's items, prerequisites, next/previous …) cost nothing per module.
    const key = `${course.id}:${userId}`;
    let memo = this.memo.get(key);
    if (!memo) {
      memo = this.readOrEvaluate(course, userId);
      this.memo.set(key, memo);
      memo.catch(() => this.memo.delete(key));
    }
    return memo;
  }

  /** Progressions read in this request, by "course:student"; any write forgets them all. */
  private readonly memo = new Map<string, Promise<Map<number, ModuleProgression>>>();
  /** Pages' progressions read in this request (ProgressReads), forgotten with the memo. */
  readonly pageMemo = new Map<string, Promise<Map<number, ModuleProgression>>>();

  private forget(): void {
    this.memo.clear();
    this.pageMemo.clear();
  }

  private async readOrEvaluate(course: Course, userId: number, em?: EntityManager): Promise<Map<number, ModuleProgression>> {
    const [modules, stored] = em
      ? await Promise.all([
          em.getRepository(ContextModule).find({ where: { courseId: course.id, workflowState: In(['active', 'unpublished']) }, order: { position: 'ASC', id: 'ASC' } }),
          em.getRepository(ModuleProgression).findBy({ courseId: course.id, userId }),
        ])
      : await this.storedLoader().load(`${course.id}:${userId}`);
    const byModule = new Map(stored.map((p) => [p.moduleId, p]));
    const published = modules.filter((m) => m.published);
    if (published.every((m) => byModule.get(m.id) && !byModule.get(m.id)!.stale)) return byModule;
    if (em) await this.evaluate(em, course, userId, modules, byModule);
    else await transaction(this.ctx.ds, (tx) => this.evaluate(tx, course, userId, modules, byModule));
    return byModule;
  }

  /**
   * Live modules and stored progressions per "course:student", batched: a viewer's courses each asking
   * for their modules read them in two statements, not two per course. Not cached (the memo above
   * is, and forgets on writes), so a read after a write in the same request sees the write.
   */
  private storedLoader(): DataLoader<string, [ContextModule[], ModuleProgression[]]> {
    return this.ctx.loaders.get('progress:stored', () =>
      new DataLoader<string, [ContextModule[], ModuleProgression[]]>(
        async (keys) => {
          const pairs = keys.map((k) => k.split(':').map(Number) as [number, number]);
          const courseIds = [...new Set(pairs.map(([c]) => c))];
          const ds = this.ctx.ds;
          const moduleWhere = { courseId: In(courseIds), workflowState: In(['active', 'unpublished']) };
          const moduleOrder = { position: 'ASC', id: 'ASC' } as const;
          const storedWhere = { courseId: In(courseIds), userId: In([...new Set(pairs.map(([, u]) => u))]) };
          // Every student's modules page reads these: lean reads (src/db/lean-read.ts) where they apply.
          const [modules, stored] = await Promise.all([
            findRows(ds, ContextModule, moduleWhere, moduleOrder),
            findRows(ds, ModuleProgression, storedWhere),
          ]);
          return pairs.map(([c, u]) => [modules.filter((m) => m.courseId === c), stored.filter((p) => p.courseId === c && p.userId === u)]);
        },
        { cache: false },
      ),
    );
  }

  /** Runs the evaluator over the course for one student and stores what changed, in one statement. */
  private async evaluate(em: EntityManager, course: Course, userId: number, modules: ContextModule[], byModule: Map<number, ModuleProgression>): Promise<void> {
    // Unpublished modules are never evaluated; deleted or unpublished prerequisites do not count.
    const published = modules.filter((m) => m.published);
    const positions = new Map(published.map((m) => [m.id, m.position]));
    const visibility = this.ctx.use(ModuleVisibility);
    const [items, assigned, facts, withheld] = await Promise.all([
      em.getRepository(ModuleItem).find({ where: { moduleId: In(published.map((m) => m.id).concat(-1)), workflowState: 'active' }, order: { position: 'ASC', id: 'ASC' } }),
      Promise.all(published.map((m) => visibility.assigned(m, userId))),
      // Read in the evaluating transaction: a submission made earlier in it (a graded discussion post) counts.
      loadStudentFacts(this.ctx, course.id, [userId], em).then((f) => f.get(userId) ?? { byAssignment: new Map(), byQuiz: new Map() }),
      this.ctx.use(MasteryPathReads).withheldFor(course, userId),
    ]);
    const content = await this.contentFor(course.id, items);
    const evalModules: EvalModule[] = [];
    const inputs: EvalInputs = new Map();
    const now = nowToSecond();
    published.forEach((m, i) => {
      if (!assigned[i]) return;
      evalModules.push({
        id: m.id,
        unlockAt: m.unlockAt,
        requireSequentialProgress: m.requireSequentialProgress,
        requirementType: m.requirementType,
        prerequisiteIds: m.prerequisiteIds.filter((p) => positions.has(p) && positions.get(p)! < m.position),
      });
      // The items this student sees: the same rule the listings apply.
      const own = items.filter((it) => it.moduleId === m.id && itemVisibleToStudents(it, content.get(key(it))) && !withheldItem(content.get(key(it)), withheld));
      const prev = byModule.get(m.id);
      inputs.set(m.id, {
        items: own.map<EvalItem>((it) => ({
          id: it.id,
          position: it.position,
          requirement: it.requirementType ? { type: it.requirementType, minScore: it.requirementMinScore, minPercentage: it.requirementMinPercentage } : null,
        })),
        facts: new Map(own.map((it) => [it.id, factsFor(content.get(key(it)), facts)])),
        previous: prev ? { state: prev.state, requirementsMet: prev.met, completedAt: prev.completedAt } : null,
        now,
      });
    });
    const results = evaluateCourse(evalModules, inputs);
    const repo = em.getRepository(ModuleProgression);
    const changed: ModuleProgression[] = [];
    for (const m of published) {
      const r = results.get(m.id);
      const prev = byModule.get(m.id);
      // A module the student is not assigned keeps a locked row, so reads need not evaluate again.
      const next = r
        ? {
            state: r.state,
            requirementsMet: JSON.stringify(r.requirementsMet),
            completedAt: r.completedAt,
            currentPosition: r.currentPosition,
            lockedItems: r.lockedItemIds.length ? JSON.stringify(r.lockedItemIds) : null,
          }
        : { state: 'locked' as const, requirementsMet: prev?.requirementsMet ?? JSON.stringify([]), completedAt: null, currentPosition: null, lockedItems: null };
      if (prev && !prev.stale && sameProgress(prev, next)) continue;
      const row = prev ?? repo.create({ courseId: course.id, moduleId: m.id, userId, createdAt: now });
      Object.assign(row, next, { stale: false, updatedAt: now });
      row.createdAt ??= now;
      byModule.set(m.id, row);
      changed.push(row);
    }
    if (changed.length) {
      await repo
        .createQueryBuilder()
        .insert()
        .into(ModuleProgression)
        .values(
          changed.map((r) => ({
            courseId: r.courseId,
            moduleId: r.moduleId,
            userId: r.userId,
            state: r.state,
            requirementsMet: r.requirementsMet,
            completedAt: r.completedAt,
            currentPosition: r.currentPosition,
            lockedItems: r.lockedItems,
            stale: false,
            createdAt: r.createdAt,
            updatedAt: r.updatedAt,
          })),
        )
        .orUpdate(['state', 'requirements_met', 'completed_at', 'current_position', 'locked_items', 'stale', 'updated_at'], ['module_id', 'user_id'])
        .updateEntity(false)
        .callListeners(false)
        .execute();
    }
  }

  /** What the items link, through the request's batched content loaders (a listing reuses them). */
  private async contentFor(courseId: number, items: ModuleItem[]): Promise<Map<string, ContentInfo>> {
    const out = new Map<string, ContentInfo>();
    const found = await Promise.all(items.map((it) => this.ctx.use(ModuleItemReads).contentOf(courseId, it)));
    items.forEach((it, i) => {
      if (found[i]) out.set(key(it), found[i]!);
    });
    return out;
  }

  /** Marks progressions stale so the next read re-evaluates (module structure or student work changed). */
  async markStale(em: EntityManager, where: { courseId: number; userId?: number; moduleIds?: number[] }): Promise<void> {
    this.forget();
    const criteria: Record<string, unknown> = { courseId: where.courseId };
    if (where.userId != null) criteria.userId = where.userId;
    if (where.moduleIds) criteria.moduleId = In(where.moduleIds.concat(-1));
    await em.getRepository(ModuleProgression).update(criteria, { stale: true });
  }

  /**
   * Relock: progressions of the module, and of every module that (transitively) builds on it, go back
   * to locked and are re-evaluated from the current prerequisites and requirements.
   */
  async relock(em: EntityManager, module: ContextModule): Promise<number[]> {
    this.forget();
    const modules = await em.getRepository(ContextModule).findBy({ courseId: module.courseId, workflowState: In(['active', 'unpublished']) });
    const relocked = new Set([module.id]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const m of modules) {
        if (!relocked.has(m.id) && m.prerequisiteIds.some((p) => relocked.has(p))) {
          relocked.add(m.id);
          grew = true;
        }
      }
    }
    await em.getRepository(ModuleProgression).update({ moduleId: In([...relocked]) }, { state: 'locked', stale: true, completedAt: null });
    return [...relocked];
  }

  /**
   * Records an action (view, contribution, done) on an item for a student, when the item is open to
   * them (module not locked, item not behind sequential progress), and re-evaluates the course.
   * Returns false when it was locked.
   */
  async record(em: EntityManager, course: Course, userId: number, item: ModuleItem, type: RequirementType): Promise<boolean> {
    if (!(await this.isStudent(course, userId))) return true;
    const progressions = await this.forStudent(course, userId, em);
    const p = progressions.get(item.moduleId);
    if (!p || !actionCounts(p, item.id)) return false;
    const met = p.met;
    const before = met.length;
    if (!met.some((m) => m.id === item.id && m.type === type)) met.push({ id: item.id, type });
    // A contribution also counts as a view.
    if (type === 'must_contribute' && !met.some((m) => m.id === item.id && m.type === 'must_view')) met.push({ id: item.id, type: 'must_view' });
    if (met.length === before) return true;
    await this.store(em, course, userId, item.moduleId, met);
    return true;
  }

  /** Removes recorded done marks for an item (DELETE …/done) and re-evaluates. */
  async unrecord(em: EntityManager, course: Course, userId: number, item: ModuleItem): Promise<void> {
    if (!(await this.isStudent(course, userId))) return;
    const progressions = await this.forStudent(course, userId, em);
    const p = progressions.get(item.moduleId);
    if (!p) return;
    const met: MetRequirement[] = p.met.filter((m) => !(m.id === item.id && m.type === 'must_mark_done'));
    if (met.length === p.met.length) return;
    await this.store(em, course, userId, item.moduleId, met);
  }

  /** Stores the recorded actions of one module and re-evaluates the student's course (completion may unlock others). */
  private async store(em: EntityManager, course: Course, userId: number, moduleId: number, met: MetRequirement[]): Promise<void> {
    this.forget();
    await em.getRepository(ModuleProgression).update({ moduleId, userId }, { requirementsMet: JSON.stringify(met) });
    await this.markStale(em, { courseId: course.id, userId });
    await this.forStudent(course, userId, em);
  }
}

const key = (it: ModuleItem) => `${it.contentType}:${it.contentId}`;

function sameProgress(row: ModuleProgression, next: Pick<ModuleProgression, 'state' | 'requirementsMet' | 'completedAt' | 'currentPosition' | 'lockedItems'>): boolean {
  return (
    row.state === next.state &&
    (row.requirementsMet ?? '[]') === (next.requirementsMet ?? '[]') &&
    (row.completedAt?.getTime() ?? null) === (next.completedAt?.getTime() ?? null) &&
    (row.currentPosition ?? null) === (next.currentPosition ?? null) &&
    (row.lockedItems ?? null) === (next.lockedItems ?? null)
  );
}

function factsFor(info: ContentInfo | undefined, facts: StudentFacts): ItemFacts {
  if (!info) return {};
  const f = (info.quizId != null ? facts.byQuiz.get(info.quizId) : undefined) ?? (info.assignmentId != null ? facts.byAssignment.get(info.assignmentId) : undefined);
  return f ? { ...f, pointsPossible: f.pointsPossible ?? info.pointsPossible } : { pointsPossible: info.pointsPossible };
}
