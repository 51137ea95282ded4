import DataLoader from 'dataloader';
import { In } from 'typeorm';
import type { Course } from '../courses/course.entity';
import { findRows } from '../db/lean-read';
import type { RequestContext } from '../request/context';
import type { ContextModule } from './module.entity';
import { ModuleProgression } from './progression.entity';
import { ProgressService } from './progress.service';

interface Ask {
  course: Course;
  userId: number;
  modules: ContextModule[];
}

/**
 * A student's progressions of the modules on one page, without reading the course's other modules.
 *
 * A module's state depends only on itself and on the modules it names as prerequisites (sequential
 * progress stays inside a module), and stored rows are re-evaluated whenever one is missing or stale.
 * Every write that can change a state marks stale at least every row that depends on it: module,
 * item and override writes mark the whole course, a student's work marks all of that student's rows,
 * a relock marks the module and every module that builds on it, and an evaluation stores every
 * published module's row. So a page's states are right when the page's modules and their
 * prerequisites all have fresh rows: a page reads those rows, plus one aggregate over just those
 * modules (not every module before the page, which made a deep page of a long course cost the whole
 * course); only when one lacks a fresh row does the course get evaluated, exactly as
 * ProgressService.forStudent does. Batched: courses of one request asking in the same tick share two
 * statements.
 */
export class ProgressReads {
  constructor(private readonly ctx: RequestContext) {}

  async forModules(course: Course, userId: number, modules: ContextModule[]): Promise<Map<number, ModuleProgression>> {
    const published = modules.filter((m) => m.published);
    if (!published.length) return new Map();
    // Fields that show the same modules again (an item's module, the items connection's module)
    // reuse the first answer: forgotten on every write, as ProgressService's own memo is.
    const progress = this.ctx.use(ProgressService);
    const key = `${course.id}:${userId}:${published.map((m) => m.id).join(',')}`;
    let found = progress.pageMemo.get(key);
    if (!found) {
      found = this.loader()
        .load({ course, userId, modules: published })
        .then((fresh) => fresh ?? progress.forStudent(course, userId));
      progress.pageMemo.set(key, found);
      found.catch(() => progress.pageMemo.delete(key));
    }
    return found;
  }

  /** Per ask: the stored rows when every module up to the page's end is fresh, else null. */
  private loader(): DataLoader<Ask, Map<number, ModuleProgression> | null> {
    return this.ctx.loaders.get('progress:page', () =>
      new DataLoader<Ask, Map<number, ModuleProgression> | null>(
        async (asks) => {
          const ds = this.ctx.ds;
          const parts: string[] = [];
          const params: unknown[] = [];
          asks.forEach((a, i) => {
            const ids = [...new Set(a.modules.flatMap((m) => [m.id, ...m.prerequisiteIds]))];
            parts.push(
              // `+m.course_id`: the ids pick the page's modules by primary key; without the plus SQLite
              // reads the course's whole (course, state) index range and filters it by the ids.
              `SELECT ${i} AS k, COUNT(*) AS n FROM context_modules m WHERE +m.course_id = ? AND m.workflow_state = 'active' AND m.id IN (${ids.map(() => '?').join(', ')})` +
                ' AND NOT EXISTS (SELECT 1 FROM module_progressions p WHERE p.module_id = m.id AND p.user_id = ? AND p.stale = 0)',
            );
            params.push(a.course.id, ...ids, a.userId);
          });
          const where = { userId: In([...new Set(asks.map((a) => a.userId))]), moduleId: In([...new Set(asks.flatMap((a) => a.modules.map((m) => m.id)))]) };
          const [counts, rows] = await Promise.all([
            ds.query(parts.join(' UNION ALL '), params) as Promise<{ k: number | string; n: number | string }[]>,
            findRows(ds, ModuleProgression, where),
          ]);
          return asks.map((a, i) => {
            if (Number(counts.find((c) => Number(c.k) === i)?.n ?? 1) > 0) return null;
            const ids = new Set(a.modules.map((m) => m.id));
            return new Map(rows.filter((r) => r.userId === a.userId && ids.has(r.moduleId)).map((r) => [r.moduleId, r]));
          });
        },
        // Never cached: a read after a write in the same request sees the write.
        { cache: false },
      ),
    );
  }
}
