import { Course } from '../courses/course.entity';
import { type DomainEventHandler } from '../events/domain-events';
import type { RequirementType } from './progression-evaluator';
import { ModuleItemService } from './module-item.service';
import { ProgressService } from './progress.service';

/**
 * Module progress follows what students do: views and contributions are recorded on the items that
 * link the content; submissions, grades and quiz scores re-evaluate the student's progress; content
 * changes re-evaluate everyone's in the course. All inside the transaction of the change.
 */
export const moduleProgressHandler: DomainEventHandler = async (em, ctx, event) => {
  switch (event.type) {
    case 'content.viewed':
    case 'content.contributed': {
      const kind: RequirementType = event.type === 'content.viewed' ? 'must_view' : 'must_contribute';
      const items = await ctx.use(ModuleItemService).itemsLinking(em, event.courseId, event.contentType, event.contentId);
      if (!items.length) return;
      const course = await em.getRepository(Course).findOneBy({ id: event.courseId });
      if (!course) return;
      for (const item of items) if (item.workflowState === 'active') await ctx.use(ProgressService).record(em, course, event.userId, item, kind);
      return;
    }
    case 'submission.submitted':
    case 'submission.updated':
    case 'submission.graded':
    case 'quiz_submission.completed':
    case 'quiz_submission.scored':
      await ctx.use(ProgressService).markStale(em, { courseId: event.courseId, userId: event.userId });
      return;
    case 'content.changed':
      await ctx.use(ProgressService).markStale(em, { courseId: event.courseId });
      return;
    default:
      return;
  }
};
