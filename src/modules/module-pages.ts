import type { Course } from '../courses/course.entity';
import { afterKey, deepPage, KeyWindow, orderSql, SortKey } from '../common/keyset';
import { selectColumns } from '../db/lean-read';
import { countLoader, pageLoader, pageSql } from './batched-pages';
import type { RequestContext } from '../request/context';
import { itemVisibilitySql, SqlPart, titleContains } from './module-item-sql';
import { ContextModule } from './module.entity';
import { ModuleVisibility } from './module-visibility';
import { MasteryPathReads } from './mastery-path-reads';

/** A course's modules in list order, on the (course_id, position, id) index. */
export const MODULE_ORDER: readonly SortKey[] = [
  { expr: 'm.position', dir: 'ASC' },
  { expr: 'm.id', dir: 'ASC' },
];

export interface ModuleSearch {
  /** Trimmed, lower-cased; null for no search. */
  term: string | null;
  /** With include[]=items a module also matches through the title of an item the viewer sees. */
  includeItems: boolean;
}

/**
 * Pages of the modules a viewer sees, cut in SQL: the visibility rules (ModuleVisibility.visibleSql)
 * and the search are conditions of one statement read with LIMIT after the page's key, so a page reads
 * its own modules only, and the total is counted only when asked.
 */
export class ModulePages {
  constructor(private readonly ctx: RequestContext) {}

  private async where(course: Course, student: number | null, showPublished: boolean, search: ModuleSearch): Promise<SqlPart> {
    const vis = await this.ctx.use(ModuleVisibility).visibleSql(course, student);
    const parts = ['m.course_id = ?', vis.sql];
    const params: unknown[] = [course.id, ...vis.params];
    if (search.term) {
      const name = titleContains('m.name', search.term);
      if (search.includeItems) {
        // The items the module's view shows (module-item-sql.ts), as Module.items lists them.
        const withheld = showPublished ? new Set<number>() : await this.ctx.use(MasteryPathReads).withheldFor(course, student);
        const items = itemVisibilitySql({ showPublished, withheld, course: 'm.course_id' }, 'smi');
        const title = titleContains('smi.title', search.term);
        parts.push(`(${name.sql} OR EXISTS (SELECT 1 FROM module_items smi WHERE smi.module_id = m.id AND ${items.sql} AND ${title.sql}))`);
        params.push(...name.params, ...items.params, ...title.params);
      } else {
        parts.push(name.sql);
        params.push(...name.params);
      }
    }
    return { sql: parts.join(' AND '), params };
  }

  /**
   * The page's modules: rows after the window's key (or legacy offset, a deep one from the list's nearer
   * end), LIMIT limit + 1; the pages of courses asking in the same tick (a list of courses with their
   * modules) share one statement.
   */
  async page(course: Course, student: number | null, showPublished: boolean, search: ModuleSearch, w: KeyWindow): Promise<ContextModule[]> {
    const where = await this.where(course, student, showPublished, search);
    let sql = where.sql;
    const params = [...where.params];
    if (w.after) {
      const k = afterKey(MODULE_ORDER, w.after);
      sql += ` AND ${k.sql}`;
      params.push(...k.params);
    }
    const end = await deepPage(w, MODULE_ORDER, () => this.count(course, student, showPublished, search));
    if (end === 'empty') return [];
    const ds = this.ctx.ds;
    const part = { parent: course.id, sql: pageSql(this.ctx, selectColumns(ds, ContextModule, 'm'), 'context_modules m', 'm.id', sql, orderSql(MODULE_ORDER), w, end), params };
    return pageLoader(this.ctx, `modules:${JSON.stringify([student, showPublished, search, w])}`, ContextModule, (r) => r.courseId, byPosition).load(part);
  }

  async count(course: Course, student: number | null, showPublished: boolean, search: ModuleSearch): Promise<number> {
    const where = await this.where(course, student, showPublished, search);
    return countLoader(this.ctx, `modules:${JSON.stringify([student, showPublished, search])}`).load({ parent: course.id, from: `context_modules m WHERE ${where.sql}`, params: where.params });
  }
}

const byPosition = (a: ContextModule, b: ContextModule) => a.position - b.position || a.id - b.id;
