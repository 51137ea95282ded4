import { EntityManager, In } from 'typeorm';
import type { Course } from '../courses/course.entity';
import { raise } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import { contentAdapter } from './content-registry';
import { ModuleItem } from './module-item.entity';
import type { ContextModule } from './module.entity';

/** Publishing a module publishes its items and their content; unpublishing does the reverse where it can. */
export async function setModulePublished(ctx: RequestContext, em: EntityManager, course: Course, module: ContextModule, published: boolean): Promise<void> {
  module.workflowState = published ? 'active' : 'unpublished';
  const items = await em.getRepository(ModuleItem).findBy({ moduleId: module.id, workflowState: In(['active', 'unpublished']) });
  if (!items.length) return;
  await em.getRepository(ModuleItem).update({ id: In(items.map((i) => i.id)) }, { workflowState: published ? 'active' : 'unpublished' });
  const byKind = new Map<string, number[]>();
  for (const it of items) if (it.contentId != null) byKind.set(it.contentType, [...(byKind.get(it.contentType) ?? []), it.contentId]);
  for (const [kind, ids] of byKind) await publishContent(ctx, em, course, kind as ModuleItem['contentType'], ids, published);
}

/**
 * Publishes (or unpublishes) linked content through a module and says so, so planners, progress and
 * override states follow as they do for a change made on the content itself.
 */
export async function publishContent(ctx: RequestContext, em: EntityManager, course: Course, kind: ModuleItem['contentType'], ids: number[], published: boolean): Promise<void> {
  const adapter = contentAdapter(kind);
  if (!adapter?.setPublished || !ids.length) return;
  await adapter.setPublished(em, course.id, ids, published);
  for (const contentId of ids) await raise(em, ctx, { type: 'content.changed', courseId: course.id, contentType: kind, contentId, change: 'updated' });
}
