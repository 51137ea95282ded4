import { In } from 'typeorm';
import { CourseSection } from '../courses/section.entity';
import { Enrollment } from '../courses/enrollment.entity';
import { NotFoundError, RequestError } from '../common/errors';
import { Group } from '../groups/group.entity';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import type { ConnectionResult } from '../common/relay';
import { keysetConnection } from '../common/connection';
import { KeyWindow, keyWindow, pageLimitSql } from '../common/keyset';
import { idKey, SqlPart, readParts } from '../db/union-pages';
import type { ContextModule } from './module.entity';
import { User } from '../users/user.entity';
import { ModuleOverride } from './module-override.entity';
import { ModuleService } from './module.service';
import { ProgressService } from './progress.service';

export interface OverrideInput {
  id?: string | null;
  title?: string | null;
  studentIds?: string[] | null;
  courseSectionId?: string | null;
  groupId?: string | null;
}

const bad = (error: string) => new RequestError(error, 400, { error });

export class ModuleOverrideService {
  constructor(private readonly ctx: RequestContext) {}

  private async context(courseRaw: string, moduleRaw: string) {
    const course = await this.ctx.use(ModuleService).course(courseRaw);
    await this.ctx.use(ModuleService).assertManage(course);
    const module = await this.ctx.use(ModuleService).lookup(course, moduleRaw);
    return { course, module };
  }

  /**
   * A module's active overrides by id, paged in SQL on the (module, state, id) index (key set cursors);
   * the modules of one request that ask for theirs are one statement (a union), totals only when selected.
   */
  async list(courseRaw: string, moduleRaw: string, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<ModuleOverride>> {
    const { module } = await this.context(courseRaw, moduleRaw);
    const w = keyWindow(args, 1);
    return this.ctx.loaders.perParent<ContextModule, ConnectionResult<ModuleOverride>>('moduleOverrides:page', w, (ms) => this.pages(ms, w)).load(module);
  }

  private async pages(modules: readonly ContextModule[], w: KeyWindow): Promise<ConnectionResult<ModuleOverride>[]> {
    const after = w.after ? idKey(w.after[0]) : null;
    const where = (m: ContextModule): SqlPart => ({ sql: "o.module_id = ? AND o.workflow_state = 'active'", params: [m.id] });
    const reads = w.limit
      ? modules.map((m) => {
          const c = where(m);
          const sql = `SELECT o.id AS id FROM module_overrides o WHERE ${c.sql}${after != null ? ' AND o.id > ?' : ''} ORDER BY o.id${pageLimitSql(w)}`;
          return { sql, params: after != null ? [...c.params, after] : c.params };
        })
      : [];
    const ids = (await readParts<{ id: unknown }>(this.ctx.ds, reads, 'id')).map((rows) => rows.map((r) => Number(r.id)));
    const all = ids.flat();
    const byId = new Map((all.length ? await this.ctx.ds.getRepository(ModuleOverride).findBy({ id: In(all) }) : []).map((o) => [o.id, o]));
    let totals: Promise<number[]> | undefined;
    const count = () =>
      (totals ??= readParts<{ n: unknown }>(this.ctx.ds, modules.map((m) => ({ sql: `SELECT COUNT(*) AS n FROM module_overrides o WHERE ${where(m).sql}`, params: where(m).params }))).then((r) => r.map((x) => Number(x[0]?.n ?? 0))));
    return modules.map((_, i) => {
      const page = (ids[i] ?? []).map((id) => byId.get(id)).filter((o): o is ModuleOverride => o != null);
      return keysetConnection(page, w, (o) => [o.id], async () => (await count())[i]);
    });
  }

  /**
   * PUT …/assignment_overrides: the module's overrides become exactly the list: entries with an id are
   * updated, entries without are created, the rest deleted (an empty list deletes all). One transaction.
   */
  async replace(courseRaw: string, moduleRaw: string, overrides: OverrideInput[] | null | undefined): Promise<{ ok: boolean }> {
    const { course, module } = await this.context(courseRaw, moduleRaw);
    const list = overrides ?? [];
    for (const o of list) {
      const hasStudents = o.studentIds != null;
      const hasSection = o.courseSectionId != null && o.courseSectionId !== '';
      const hasGroup = o.groupId != null && o.groupId !== '';
      if (!o.id && !hasStudents && !hasSection && !hasGroup) throw bad('id, student_ids, or course_section_id required with each override');
      if (hasSection && hasStudents) throw bad('cannot provide course_section_id and student_ids on the same override');
      if (hasGroup && (hasSection || hasStudents)) throw bad('cannot provide group_id with course_section_id or student_ids on the same override');
      if (o.title != null && o.title.length > 255) throw bad('title is too long');
    }
    const existing = await this.ctx.ds.getRepository(ModuleOverride).findBy({ moduleId: module.id, workflowState: 'active' });
    const sections = new Map((await this.ctx.ds.getRepository(CourseSection).findBy({ courseId: course.id, workflowState: 'active' })).map((s) => [s.id, s]));
    const students = new Set(
      (await this.ctx.ds.getRepository(Enrollment).findBy({ courseId: course.id, type: 'StudentEnrollment', workflowState: In(['active', 'invited', 'creation_pending']) })).map((e) => e.userId),
    );
    const groupIds = list.filter((o) => o.groupId).map((o) => Number(o.groupId));
    const groups = new Map(
      (groupIds.length ? await this.ctx.ds.getRepository(Group).findBy({ id: In(groupIds), contextType: 'Course', contextId: course.id, workflowState: 'available' }) : []).map((g) => [g.id, g]),
    );
    const users = new Map(
      (await this.ctx.ds.getRepository(User).findBy({ id: In(list.flatMap((o) => (o.studentIds ?? []).map(Number)).concat(-1)) })).map((u) => [u.id, u]),
    );

    const planned = list.map((o) => {
      const row = o.id ? existing.find((e) => String(e.id) === String(o.id)) : undefined;
      if (o.id && !row) throw new NotFoundError();
      const target = row ?? this.ctx.ds.getRepository(ModuleOverride).create({ courseId: course.id, moduleId: module.id, workflowState: 'active', groupId: null, courseSectionId: null, studentIds: null });
      if (o.courseSectionId != null && o.courseSectionId !== '') {
        const section = sections.get(Number(o.courseSectionId));
        if (!section) throw new NotFoundError();
        Object.assign(target, { courseSectionId: section.id, studentIds: null, groupId: null, title: section.name });
      } else if (o.groupId != null && o.groupId !== '') {
        const group = groups.get(Number(o.groupId));
        if (!group || !group.nonCollaborative) throw new RequestError('group_id is not allowed as an override', 400, { error: 'group_id is not allowed as an override' });
        Object.assign(target, { groupId: group.id, courseSectionId: null, studentIds: null, title: group.name });
      } else if (o.studentIds != null) {
        const ids = [...new Set(o.studentIds.map(Number))];
        for (const id of ids) if (!students.has(id) || !users.has(id)) throw new NotFoundError();
        const title = o.title?.trim() || (ids.length === 0 ? 'No Students' : ids.length === 1 ? '1 student' : `${ids.length} students`);
        Object.assign(target, { studentIds: JSON.stringify(ids), courseSectionId: null, groupId: null, title });
      } else if (o.title != null && target.studentIds != null) {
        target.title = o.title.trim() || target.title;
      }
      return target;
    });

    await transaction(this.ctx.ds, async (em) => {
      const keep = new Set(planned.filter((p) => p.id).map((p) => p.id));
      const gone = existing.filter((e) => !keep.has(e.id)).map((e) => e.id);
      if (gone.length) await em.getRepository(ModuleOverride).update({ id: In(gone) }, { workflowState: 'deleted' });
      if (planned.length) await em.getRepository(ModuleOverride).save(planned);
      await this.ctx.use(ProgressService).markStale(em, { courseId: course.id });
    });
    return { ok: true };
  }

  /** Students of an ad-hoc override, with names (batched). */
  async students(o: ModuleOverride): Promise<{ id: number; name: string }[]> {
    if (o.studentIds == null) return [];
    const users = await this.ctx.loaders.byId(User).loadMany(o.students);
    return users.filter((u): u is User => Boolean(u) && !(u instanceof Error)).map((u) => ({ id: u.id, name: u.name }));
  }

  async section(o: ModuleOverride): Promise<{ id: number; name: string } | null> {
    if (o.courseSectionId == null) return null;
    const s = await this.ctx.loaders.byId(CourseSection).load(o.courseSectionId);
    return s ? { id: s.id, name: s.name } : null;
  }

  async group(o: ModuleOverride): Promise<{ id: number; nonCollaborative: boolean } | null> {
    if (o.groupId == null) return null;
    const g = await this.ctx.loaders.byId(Group).load(o.groupId);
    return g ? { id: g.id, nonCollaborative: g.nonCollaborative } : null;
  }
}
