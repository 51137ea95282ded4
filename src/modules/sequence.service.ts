import { RequestError } from '../common/errors';
import type { RequestContext } from '../request/context';
import { CONTENTLESS, contentAdapter } from './content-registry';
import { ModuleItemView, ModuleView } from './module-views';
import { parseItemType } from './module-item-input';
import type { Course } from '../courses/course.entity';
import { ModuleService } from './module.service';
import { MasteryPathReads, type MasteryPathInfo } from './mastery-path-reads';
import { ModuleItemReads } from './module-item-reads';

/**
 * The student_id argument that reproduces a module view's perspective: none when the view is the
 * caller's own (or nobody's), else the student whose progress it shows.
 */
export function studentArg(ctx: RequestContext, view: ModuleView): string | null {
  return view.student == null || view.student === ctx.viewer?.id ? null : String(view.student);
}

/** Canvas returns at most this many sequence nodes. */
export const MAX_SEQUENCE_NODES = 10;

const ASSET_TYPES = ['moduleitem', 'file', 'page', 'discussion', 'assignment', 'quiz', 'externaltool', 'externalurl', 'subheader', 'module'];

export interface SequenceNode {
  prev: ModuleItemView | null;
  current: ModuleItemView;
  next: ModuleItemView | null;
  masteryPath: MasteryPathInfo | null;
}


export type { MasteryPathInfo };

export class SequenceService {
  constructor(private readonly ctx: RequestContext) {}

  /**
   * GET /courses/:id/module_item_sequence: every appearance of the asset in the course's visible
   * items (sub-headers skipped), first ten, each with its neighbours across module boundaries.
   */
  async sequence(courseRaw: string, assetType: string | null | undefined, assetId: string | null | undefined): Promise<{ items: SequenceNode[]; modules: ModuleView[] }> {
    const course = await this.ctx.use(ModuleService).course(courseRaw);
    const kind = assetType?.replace(/_/g, '').toLowerCase();
    if (!kind || !ASSET_TYPES.includes(kind)) throw new RequestError('invalid asset_type', 400, { message: 'invalid asset_type' });
    if (assetId == null || assetId === '') throw new RequestError('missing asset_id', 400, { message: 'missing asset_id' });

    const views = await this.ctx.use(ModuleService).allVisible(course);
    const all: ModuleItemView[] = [];
    for (const v of views) for (const i of await this.ctx.use(ModuleItemReads).visibleItems(v)) if (i.item.contentType !== 'SubHeader') all.push(i);

    let matches: number[] = [];
    if (kind === 'moduleitem') matches = all.map((v, i) => (String(v.item.id) === String(assetId) ? i : -1));
    else if (kind === 'page') {
      const page = await contentAdapter('Page')?.findBySlug?.(this.ctx, course.id, String(assetId));
      matches = all.map((v, i) => (page && v.item.contentType === 'Page' && v.item.contentId === page.id ? i : -1));
    } else {
      const type = parseItemType(kind === 'discussion' ? 'discussion' : kind);
      const id = Number(assetId);
      // Quizzes and graded discussions also match items that link their assignment.
      const alsoAssignment = await this.assignmentOf(course.id, type, id);
      matches = all.map((v, i) => {
        if (v.item.contentType === type && v.item.contentId === id) return i;
        if (alsoAssignment != null && v.item.contentType === 'Assignment' && v.item.contentId === alsoAssignment) return i;
        return -1;
      });
    }
    const hits = matches.filter((i) => i >= 0).slice(0, MAX_SEQUENCE_NODES);
    const items: SequenceNode[] = hits.map((i) => ({ prev: all[i - 1] ?? null, current: all[i], next: all[i + 1] ?? null, masteryPath: null }));
    if (course.masteryPathsEnabled) {
      for (const node of items) node.masteryPath = await this.ctx.use(MasteryPathReads).pathInfo(course, node.current);
    }
    const moduleIds = new Set(items.flatMap((n) => [n.prev, n.current, n.next]).filter(Boolean).map((v) => v!.item.moduleId));
    return { items, modules: views.filter((v) => moduleIds.has(v.module.id)) };
  }

  private async assignmentOf(courseId: number, type: ReturnType<typeof parseItemType>, id: number): Promise<number | null> {
    if (!type || CONTENTLESS.has(type) || !Number.isFinite(id) || (type !== 'Quiz' && type !== 'Discussion')) return null;
    const info = (await contentAdapter(type)?.load(this.ctx, courseId, [id]))?.get(id);
    return info?.assignmentId ?? null;
  }

  /**
   * ModuleItem.next / previous: the item's neighbours in the course's sequence of visible items, as
   * module_item_sequence gives them (across module boundaries, sub-headers skipped), seen from the
   * same student view as the item itself. The sequence is built once per course and view per request.
   */
  async neighbours(v: ModuleItemView): Promise<{ previous: ModuleItemView | null; next: ModuleItemView | null }> {
    const all = await this.courseItems(v.module.course, studentArg(this.ctx, v.module));
    const i = all.findIndex((x) => x.item.id === v.item.id);
    if (i < 0) return { previous: null, next: null };
    const step = (x: ModuleItemView) => x.item.contentType !== 'SubHeader';
    const previous = all.slice(0, i).reverse().find(step) ?? null;
    const next = all.slice(i + 1).find(step) ?? null;
    return { previous, next };
  }

  private readonly sequences = new Map<string, Promise<ModuleItemView[]>>();

  /** Every visible item of the course in module then item order, sub-headers included. */
  private courseItems(course: Course, studentRaw: string | null): Promise<ModuleItemView[]> {
    const key = `${course.id}:${studentRaw ?? ''}`;
    let found = this.sequences.get(key);
    if (!found) {
      found = (async () => {
        const views = await this.ctx.use(ModuleService).allVisible(course, studentRaw);
        const lists = await Promise.all(views.map((m) => this.ctx.use(ModuleItemReads).visibleItems(m)));
        return lists.flat();
      })();
      this.sequences.set(key, found);
    }
    return found;
  }
}
