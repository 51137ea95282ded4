import { In } from 'typeorm';
import { nowToSecond } from '../db/columns';
import type { DomainEventHandler } from '../events/domain-events';
import { ModuleItem } from './module-item.entity';

/**
 * Deleting content deletes the module items that link it, as Canvas deletes an object's content tags
 * with it (ContentTag.delete_for). An item's own state then says whether it is live, so a content
 * manager's list and its count read the items index alone instead of testing every item's content. The
 * other items keep their positions (Canvas does not renumber either). Runs inside the deleting
 * transaction, before module progress re-evaluates.
 */
export const moduleContentRemovalHandler: DomainEventHandler = async (em, _ctx, event) => {
  if (event.type !== 'content.changed' || event.change !== 'deleted') return;
  await em
    .getRepository(ModuleItem)
    .update(
      { courseId: event.courseId, contentType: event.contentType, contentId: event.contentId, workflowState: In(['active', 'unpublished']) as never },
      { workflowState: 'deleted', updatedAt: nowToSecond() },
    );
};
