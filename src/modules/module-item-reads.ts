import DataLoader from 'dataloader';
import { In } from 'typeorm';
import type { RequestContext } from '../request/context';
import { ContentInfo, loadContent } from './content-registry';
import { ModuleItem } from './module-item.entity';
import { ModuleItemView, ModuleView } from './module-views';
import { itemLinked, itemVisibleToStudents, withheldItem } from './module-visibility';
import { MasteryPathReads } from './mastery-path-reads';

/** Module items as a viewer sees them, read per request; progress, sequences and mastery paths build on it. */
export class ModuleItemReads {
  constructor(private readonly ctx: RequestContext) {}

  /** Live items of modules, by module, in position order (batched). */
  private itemsLoader(): DataLoader<number, ModuleItem[]> {
    return this.ctx.loaders.manyBy(ModuleItem, 'moduleId', { workflowState: In(['active', 'unpublished']) }, { position: 'ASC', id: 'ASC' } as never);
  }

  /** Content objects of items, batched per kind across every module (and course) of the request. */
  contentOf(courseId: number, item: ModuleItem): Promise<ContentInfo | null> {
    return item.contentId == null ? Promise.resolve(null) : loadContent(this.ctx, item.contentType, courseId, item.contentId);
  }

  /**
   * Items of a module the viewer sees: everything live for content managers, published items whose
   * content exists for everyone else.
   */
  async visibleItems(view: ModuleView): Promise<ModuleItemView[]> {
    const items = await this.itemsLoader().load(view.module.id);
    const withContent = await Promise.all(items.map(async (it) => new ModuleItemView(it, view, await this.contentOf(view.course.id, it))));
    if (view.showPublished) return withContent.filter((v) => itemLinked(v.item, v.content));
    const withheld = await this.ctx.use(MasteryPathReads).withheldFor(view.course, view.student);
    return withContent.filter((v) => itemVisibleToStudents(v.item, v.content) && !withheldItem(v.content, withheld));
  }
}
