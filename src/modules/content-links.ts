import { In } from 'typeorm';
import { nowToSecond } from '../db/columns';
import type { DomainEventHandler } from '../events/domain-events';
import { ModuleItem } from './module-item.entity';
import { ContextModule } from './module.entity';

const LIVE_ITEM = In(['active', 'unpublished']) as never;

/**
 * Module items follow the content they link, as Canvas's content tags do.
 *
 * Deleted content takes its items with it (ContentTag.delete_for). An item's own state then says
 * whether it is live, so a content manager's list and its count read the items index alone instead of
 * testing every item's content. The other items keep their positions (Canvas does not renumber either).
 *
 * Replaced content (a course file overwritten by an upload of the same name) keeps its items: they now
 * link the new object, and their modules are touched, as Canvas's Attachment#handle_duplicates updates
 * the content tags of the overwritten file. The replacement is raised before the old object's deletion,
 * so no item is left for the deletion to take.
 *
 * Runs inside the changing transaction, before module progress re-evaluates.
 */
export const moduleContentLinksHandler: DomainEventHandler = async (em, _ctx, event) => {
  if (event.type === 'content.changed' && event.change === 'deleted') {
    await em
      .getRepository(ModuleItem)
      .update({ courseId: event.courseId, contentType: event.contentType, contentId: event.contentId, workflowState: LIVE_ITEM }, { workflowState: 'deleted', updatedAt: nowToSecond() });
    return;
  }
  if (event.type === 'content.replaced') {
    const items = em.getRepository(ModuleItem);
    const linking = { courseId: event.courseId, contentType: event.contentType, contentId: event.contentId, workflowState: LIVE_ITEM };
    const moved = await items.find({ where: linking, select: { id: true, moduleId: true } });
    if (!moved.length) return;
    const now = nowToSecond();
    await items.update({ id: In(moved.map((i) => i.id)) }, { contentId: event.replacementId, updatedAt: now });
    await em.getRepository(ContextModule).update({ id: In([...new Set(moved.map((i) => i.moduleId))]) }, { updatedAt: now });
  }
};
