import { keysetConnection } from '../common/connection';
import { KeyWindow, keyWindow, pageLimitSql } from '../common/keyset';
import type { ConnectionResult } from '../common/relay';
import type { Course } from '../courses/course.entity';
import { idKey, SqlPart, qmarks, readParts } from '../db/union-pages';
import type { RequestContext } from '../request/context';
import type { ModuleOverride } from './module-override.entity';
import type { ModuleView } from './module-views';
import { ModuleVisibility } from './module-visibility';
import { ProgressService, ProgressionView } from './progress.service';

/**
 * Module.progressionsConnection: one progression per student who sees the module, by student id,
 * paged in SQL. The students are read from the course's active student enrollments on the
 * (course, type, user) index in student order, and ModuleVisibility.assigned (no overrides,
 * or one targets the student through their section, a tag they carry or its student list) is part of
 * the WHERE, so the LIMIT applies after it: the module's few active overrides are read first (the
 * visibility loader, batched) and become literal id lists inside EXISTS conditions. Only the page's
 * students' progressions are read (or evaluated). A list of modules costs one statement for all (a
 * union); totals are counted only when selected.
 */
export class ProgressionPages {
  constructor(private readonly ctx: RequestContext) {}

  forModule(view: ModuleView, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<ProgressionView>> {
    const w = keyWindow(args, 1);
    return this.ctx.loaders.perParent<ModuleView, ConnectionResult<ProgressionView>>('progressions:page', w, (vs) => this.pages(vs, w)).load(view);
  }

  /** The students whose progressions the viewer reads in the course: null for all of them. */
  private async audience(course: Course): Promise<number[] | null> {
    if (await this.ctx.authz.canCourse(course, 'view_all_grades')) return null;
    const viewer = this.ctx.authz.requireViewer();
    const observed = await this.ctx.use(ModuleVisibility).observedStudents(course);
    const self = (await this.ctx.use(ProgressService).isStudent(course, viewer.id)) ? [viewer.id] : [];
    return [...new Set([...self, ...observed])];
  }

  /** The module's students as a condition over enrollments `e` (null: nobody). */
  private condition(view: ModuleView, audience: number[] | null, overrides: ModuleOverride[]): SqlPart | null {
    if (!view.module.published || (audience && !audience.length)) return null;
    const course = view.course.id;
    const conds = ['e.course_id = ?', "e.type = 'StudentEnrollment'", "e.workflow_state = 'active'"];
    const params: unknown[] = [course];
    if (audience) {
      conds.push(`e.user_id IN (${qmarks(audience.length)})`);
      params.push(...audience);
    }
    if (overrides.length) {
      const students = [...new Set(overrides.flatMap((o) => o.students))];
      const sections = [...new Set(overrides.map((o) => o.courseSectionId).filter((x): x is number => x != null))];
      const groups = [...new Set(overrides.map((o) => o.groupId).filter((x): x is number => x != null))];
      const ors: string[] = [];
      if (students.length) {
        ors.push(`e.user_id IN (${qmarks(students.length)})`);
        params.push(...students);
      }
      if (sections.length) {
        ors.push(
          "EXISTS (SELECT 1 FROM enrollments es WHERE es.user_id = e.user_id AND es.course_id = ? AND es.workflow_state IN ('active', 'invited')" +
            ` AND es.course_section_id IN (${qmarks(sections.length)}))`,
        );
        params.push(course, ...sections);
      }
      if (groups.length) {
        ors.push(
          `EXISTS (SELECT 1 FROM group_memberships gm INNER JOIN ${this.ctx.ds.driver.escape('groups')} g ON g.id = gm.group_id WHERE gm.user_id = e.user_id` +
            ` AND gm.workflow_state = 'accepted' AND gm.group_id IN (${qmarks(groups.length)}) AND g.context_type = 'Course' AND g.context_id = ? AND g.workflow_state = 'available')`,
        );
        params.push(...groups, course);
      }
      conds.push(ors.length ? `(${ors.join(' OR ')})` : '1 = 0');
    }
    return { sql: conds.join(' AND '), params };
  }

  private async pages(views: readonly ModuleView[], w: KeyWindow): Promise<ConnectionResult<ProgressionView>[]> {
    const courses = new Map(views.map((v) => [v.course.id, v.course]));
    const audiences = new Map(await Promise.all([...courses.values()].map(async (c) => [c.id, await this.audience(c)] as const)));
    const overrides = await Promise.all(views.map((v) => this.ctx.use(ModuleVisibility).overridesOf(v.module.id)));
    const conds = views.map((v, i) => this.condition(v, audiences.get(v.course.id)!, overrides[i]));
    const after = w.after ? idKey(w.after[0]) : null;
    const reads: SqlPart[] = [];
    const readOf = conds.map((c) => {
      if (!c || !w.limit) return -1;
      // One row per student (one enrolled in two sections has two enrollments), in index order.
      const sql =
        `SELECT e.user_id AS uid FROM enrollments e WHERE ${c.sql}${after != null ? ' AND e.user_id > ?' : ''}` +
        ` GROUP BY e.user_id ORDER BY e.user_id${pageLimitSql(w)}`;
      return reads.push({ sql, params: after != null ? [...c.params, after] : c.params }) - 1;
    });
    const raw = await readParts<{ uid: unknown }>(this.ctx.ds, reads, 'uid');
    const ids = readOf.map((i) => (i < 0 ? [] : raw[i].map((r) => Number(r.uid))));
    // Every page student's progressions at once, so their stored rows load in one batch.
    const progress = this.ctx.use(ProgressService);
    const read = await Promise.all(views.map((v, i) => Promise.all(ids[i].map((u) => progress.forStudent(v.course, u)))));
    let totals: Promise<number[]> | undefined;
    const count = () => (totals ??= this.totals(conds));
    return views.map((v, i) => {
      const nodes: ProgressionView[] = [];
      ids[i].forEach((userId, j) => {
        const p = read[i][j].get(v.module.id);
        if (p) nodes.push({ moduleId: v.module.id, userId, state: p.state, completedAt: p.completedAt, currentPosition: p.currentPosition, requirementsMet: p.met.map((m) => ({ moduleItemId: m.id, type: m.type })) });
      });
      return keysetConnection(nodes, w, (n) => [n.userId], async () => (await count())[i]);
    });
  }

  private async totals(conds: (SqlPart | null)[]): Promise<number[]> {
    const reads: SqlPart[] = [];
    const readOf = conds.map((c) => (c ? reads.push({ sql: `SELECT COUNT(DISTINCT e.user_id) AS n FROM enrollments e WHERE ${c.sql}`, params: c.params }) - 1 : -1));
    const raw = await readParts<{ n: unknown }>(this.ctx.ds, reads);
    return readOf.map((i) => (i < 0 ? 0 : Number(raw[i][0]?.n ?? 0)));
  }
}
