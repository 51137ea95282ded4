import { EntityManager, In } from 'typeorm';
import type { Course } from '../courses/course.entity';
import { ForbiddenError, NotFoundError, RequestError, Validator } from '../common/errors';
import { parseIdParam } from '../common/ids';
import { nowToSecond } from '../db/columns';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import type { ConnectionResult } from '../common/relay';
import { keysetConnection } from '../common/connection';
import { keyWindow } from '../common/keyset';
import { ModulePages } from './module-pages';
import { setModulePublished } from './module-publishing';
import { ProgressReads } from './progress-reads';
import { ModuleItem } from './module-item.entity';
import { ModuleView } from './module-views';
import { ContextModule } from './module.entity';
import { placeAt, renumber } from './positions';
import { CourseService } from '../courses/course.service';
import { ProgressService } from './progress.service';
import { UserService } from '../users/user.service';
import { ModuleVisibility } from './module-visibility';

export interface ModuleInput {
  name?: string | null;
  unlockAt?: Date | null;
  position?: number | null;
  requireSequentialProgress?: boolean | null;
  prerequisiteModuleIds?: string[] | null;
  publishFinalGrade?: boolean | null;
  published?: boolean | null;
  requirementCount?: number | null;
}

/** Modules with more items than this are listed without their items (Canvas: the max page size). */
export { MAX_EMBEDDED_ITEMS } from './module-item-reads';

/**
 * Canvas drops blank prerequisite ids (a form's `prerequisite_module_ids[]=` is its empty list), for
 * GraphQL callers as for REST ones (REST parses them with ids(), which already drops them).
 */
function withoutBlankPrerequisites(input: ModuleInput): ModuleInput {
  const given = input.prerequisiteModuleIds;
  return given ? { ...input, prerequisiteModuleIds: given.filter((id) => String(id).trim() !== '') } : input;
}

export class ModuleService {
  constructor(private readonly ctx: RequestContext) {}

  /** A course the caller may read (module reads need course read). */
  course(raw: string): Promise<Course> {
    return this.ctx.use(CourseService).find(raw, 'read');
  }

  async canManage(course: Course): Promise<boolean> {
    return this.ctx.authz.canCourse(course, 'manage_content');
  }

  async assertManage(course: Course): Promise<void> {
    if (!(await this.canManage(course))) throw new ForbiddenError();
  }

  /**
   * Whose progress a read shows: with student_id, that student (the caller must be the student, teach
   * the course or observe the student); otherwise the caller when they are a student of the course.
   */
  async studentFor(course: Course, studentIdRaw?: string | null): Promise<number | null> {
    const viewer = this.ctx.authz.requireViewer();
    if (studentIdRaw == null || studentIdRaw === '') {
      return (await this.ctx.use(ProgressService).isStudent(course, viewer.id)) ? viewer.id : null;
    }
    const student = await this.ctx.use(UserService).lookup(studentIdRaw);
    if (!(await this.ctx.use(ProgressService).isStudent(course, student.id))) throw new NotFoundError();
    if (student.id === viewer.id) return student.id;
    if (await this.ctx.authz.canCourse(course, 'view_all_grades')) return student.id;
    const roles = await this.ctx.authz.courseRoles(course);
    if (roles.enrollments.some((e) => e.type === 'ObserverEnrollment' && e.workflowState === 'active' && e.associatedUserId === student.id)) return student.id;
    throw new ForbiddenError();
  }

  private async views(course: Course, modules: ContextModule[], student: number | null): Promise<ModuleView[]> {
    const showPublished = await this.showsPublished(course, student);
    // Only these modules' progressions (and what their state depends on): see ProgressReads.
    const progressions = student != null ? await this.ctx.use(ProgressReads).forModules(course, student, modules) : null;
    return modules.map((m) => new ModuleView(m, course, student, showPublished, progressions?.get(m.id) ?? null, this.ctx.baseUrl));
  }

  private async showsPublished(course: Course, student: number | null): Promise<boolean> {
    return student == null && (await this.ctx.use(ModuleVisibility).canSeeUnpublished(course));
  }

  private liveModules(courseId: number, em?: EntityManager): Promise<ContextModule[]> {
    if (em) return em.getRepository(ContextModule).find({ where: { courseId, workflowState: In(['active', 'unpublished']) }, order: { position: 'ASC', id: 'ASC' } });
    // Reads batch across courses (a viewer's courses, each with its modulesConnection) in one statement.
    return this.ctx.loaders.manyBy(ContextModule, 'courseId', { workflowState: In(['active', 'unpublished']) }, { position: 'ASC', id: 'ASC' } as never).load(courseId);
  }

  /**
   * GET /courses/:id/modules: visible modules by position, a page cut in SQL (key set cursors, legacy
   * offset cursors honoured); search_term matches names (and item titles with include items).
   */
  async list(
    courseRaw: string,
    args: { first?: number | null; after?: string | null; searchTerm?: string | null; studentId?: string | null; includeItems?: boolean | null },
  ): Promise<ConnectionResult<ModuleView>> {
    const course = await this.course(courseRaw);
    const student = await this.studentFor(course, args.studentId);
    const term = args.searchTerm?.trim().toLowerCase();
    if (term != null && args.searchTerm != null && term.length < 2) {
      throw new RequestError('search_term too short', 400, { errors: [{ field: 'search_term', code: 'invalid', message: '2 or more characters is required' }] });
    }
    const showPublished = await this.showsPublished(course, student);
    const search = { term: term || null, includeItems: Boolean(args.includeItems) };
    const pages = this.ctx.use(ModulePages);
    const w = keyWindow(args, 2);
    const rows = await pages.page(course, student, showPublished, search, w);
    const views = await this.views(course, rows, student);
    if (term && args.includeItems) for (const v of views) if (!v.module.name.toLowerCase().includes(term)) v.itemSearch = term;
    return keysetConnection(views, w, (v) => [v.module.position, v.module.id], () => pages.count(course, student, showPublished, search));
  }

  /** Every module the caller sees in the course (as student_id's view when given), as views (for sequences and mastery paths). */
  async allVisible(course: Course, studentRaw?: string | null): Promise<ModuleView[]> {
    const student = await this.studentFor(course, studentRaw);
    return this.views(course, await this.ctx.use(ModuleVisibility).visibleModules(course, await this.liveModules(course.id), student), student);
  }

  /** A live module visible to the caller (students: published and assigned), else 404. */
  async show(courseRaw: string, moduleRaw: string, args: { studentId?: string | null } = {}): Promise<ModuleView> {
    const course = await this.course(courseRaw);
    const student = await this.studentFor(course, args.studentId);
    const module = await this.lookup(course, moduleRaw);
    const visible = await this.ctx.use(ModuleVisibility).visibleModules(course, [module], student);
    if (!visible.length) throw new NotFoundError();
    return (await this.views(course, [module], student))[0];
  }

  async lookup(course: Course, raw: string | number, em?: EntityManager): Promise<ContextModule> {
    const p = parseIdParam(raw);
    if (p.kind !== 'id') throw new NotFoundError();
    // Reads go through the per-request loader, so nested fields that look up many modules (each
    // module's items, prerequisites, an item's module) batch into one statement.
    const m = em ? await em.getRepository(ContextModule).findOneBy({ id: p.id, courseId: course.id }) : await this.ctx.loaders.byId(ContextModule).load(p.id);
    if (!m || m.courseId !== course.id || m.workflowState === 'deleted') throw new NotFoundError();
    return m;
  }

  private validate(input: ModuleInput, creating: boolean): void {
    const v = new Validator();
    if (creating || input.name !== undefined) {
      const name = (input.name ?? '').trim();
      if (!name) throw new RequestError('missing module name', 400, { message: 'missing module name' });
      v.check(name.length <= 255, 'name', 'too_long', 'is too long (maximum is 255 characters)');
    }
    if (input.position != null) v.check(Number.isInteger(input.position) && input.position >= 1, 'position', 'invalid', 'Invalid position');
    if (input.requirementCount != null) v.check(input.requirementCount === 1 || input.requirementCount === 0, 'requirement_count', 'invalid', 'requirement_count must be 1 (one) or empty (all)');
    if (input.prerequisiteModuleIds) for (const id of input.prerequisiteModuleIds) v.check(/^(module_)?\d+$/.test(String(id).trim()), 'prerequisite_module_ids', 'invalid', `Invalid module id ${id}`);
    v.throwIfInvalid();
  }

  /** Prerequisites must be modules of the course with a lower position; others are dropped silently. */
  private prerequisites(all: ContextModule[], module: ContextModule, raw: string[]): number[] {
    const ids = raw.map((s) => Number(String(s).trim().replace(/^module_/, '')));
    return [...new Set(ids)].filter((id) => {
      const other = all.find((m) => m.id === id);
      return other && other.id !== module.id && other.position < module.position;
    });
  }

  async create(courseRaw: string, input: ModuleInput): Promise<{ module: ModuleView }> {
    input = withoutBlankPrerequisites(input);
    const course = await this.course(courseRaw);
    await this.assertManage(course);
    this.validate(input, true);
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(ContextModule);
      const all = await this.liveModules(course.id, em);
      const module = repo.create({
        courseId: course.id,
        name: input.name!.trim(),
        position: all.length + 1,
        unlockAt: input.unlockAt ?? null,
        requireSequentialProgress: Boolean(input.requireSequentialProgress),
        requirementCount: input.requirementCount === 1 ? 1 : null,
        publishFinalGrade: Boolean(input.publishFinalGrade),
        prerequisites: null,
        // Canvas creates API modules unpublished; `published` may publish at once.
        workflowState: input.published ? 'active' : 'unpublished',
        deletedAt: null,
      });
      await repo.save(module);
      const changed = placeAt([...all, module], module, input.position);
      await repo.save(changed);
      if (input.prerequisiteModuleIds) {
        module.prerequisites = JSON.stringify(this.prerequisites(all, module, input.prerequisiteModuleIds));
        await repo.save(module);
      }
      await this.ctx.use(ProgressService).markStale(em, { courseId: course.id });
      return { module: (await this.views(course, [module], null))[0] };
    });
  }

  async update(courseRaw: string, moduleRaw: string, input: ModuleInput): Promise<{ module: ModuleView }> {
    input = withoutBlankPrerequisites(input);
    const course = await this.course(courseRaw);
    await this.assertManage(course);
    const module = await this.lookup(course, moduleRaw);
    this.validate(input, false);
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(ContextModule);
      if (input.name !== undefined) module.name = input.name!.trim();
      if (input.unlockAt !== undefined) module.unlockAt = input.unlockAt;
      if (input.requireSequentialProgress != null) module.requireSequentialProgress = input.requireSequentialProgress;
      if (input.publishFinalGrade != null) module.publishFinalGrade = input.publishFinalGrade;
      if (input.requirementCount !== undefined) module.requirementCount = input.requirementCount === 1 ? 1 : null;
      const all = await this.liveModules(course.id, em);
      if (input.position != null) await repo.save(placeAt(all.map((m) => (m.id === module.id ? module : m)), module, input.position));
      if (input.prerequisiteModuleIds !== undefined) {
        const fresh = all.map((m) => (m.id === module.id ? module : m));
        module.prerequisites = input.prerequisiteModuleIds?.length ? JSON.stringify(this.prerequisites(fresh, module, input.prerequisiteModuleIds)) : null;
      }
      if (input.published != null) await setModulePublished(this.ctx, em, course, module, input.published);
      await repo.save(module);
      await this.ctx.use(ProgressService).markStale(em, { courseId: course.id });
      return { module: (await this.views(course, [module], null))[0] };
    });
  }

  /** Soft-deletes the module and its items; later modules move up. */
  async delete(courseRaw: string, moduleRaw: string): Promise<{ module: ModuleView }> {
    const course = await this.course(courseRaw);
    await this.assertManage(course);
    const module = await this.lookup(course, moduleRaw);
    return transaction(this.ctx.ds, async (em) => {
      const view = (await this.views(course, [module], null))[0];
      module.workflowState = 'deleted';
      module.deletedAt = nowToSecond();
      await em.getRepository(ContextModule).save(module);
      await em.getRepository(ModuleItem).update({ moduleId: module.id }, { workflowState: 'deleted' });
      const live = await this.liveModules(course.id, em);
      // A deleted module is no prerequisite any more (Canvas lists only live prerequisite modules).
      const touched = new Set(renumber(live));
      for (const m of live) {
        if (m.prerequisiteIds.includes(module.id)) {
          const rest = m.prerequisiteIds.filter((id) => id !== module.id);
          m.prerequisites = rest.length ? JSON.stringify(rest) : null;
          touched.add(m);
        }
      }
      await em.getRepository(ContextModule).save([...touched]);
      await this.ctx.use(ProgressService).markStale(em, { courseId: course.id });
      return { module: view };
    });
  }

  /** PUT …/relock: every student's progression goes back to locked and is re-evaluated. */
  async relock(courseRaw: string, moduleRaw: string): Promise<{ module: ModuleView }> {
    const course = await this.course(courseRaw);
    await this.assertManage(course);
    const module = await this.lookup(course, moduleRaw);
    return transaction(this.ctx.ds, async (em) => {
      await this.ctx.use(ProgressService).relock(em, module);
      // Modules that build on this one are re-checked too.
      await this.ctx.use(ProgressService).markStale(em, { courseId: course.id });
      return { module: (await this.views(course, [module], null))[0] };
    });
  }
}
