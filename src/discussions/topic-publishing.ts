import { EntityManager, In } from 'typeorm';
import { nowToSecond } from '../db/columns';
import { DiscussionTopic } from './discussion-topic.entity';

/** The next number of the activity sequence (see DiscussionTopic.activitySeq). */
export async function nextActivitySeq(em: EntityManager): Promise<number> {
  const row: { m: number | string | null } | undefined = await em.getRepository(DiscussionTopic).createQueryBuilder('t').select('MAX(t.activity_seq)', 'm').getRawOne();
  return Number(row?.m ?? 0) + 1;
}

/**
 * Publishes or unpublishes topics from outside a topic write (a module, or a graded topic's
 * assignment): going out as a draft published here does, posted now (or at its delayed time) and at
 * the top of streams. Callers decide which topics may change (ones with students' posts stay out).
 */
export async function setTopicsPublished(em: EntityManager, topics: DiscussionTopic[], published: boolean): Promise<void> {
  const changing = topics.filter((t) => t.published !== published && t.workflowState !== 'deleted');
  if (!changing.length) return;
  const repo = em.getRepository(DiscussionTopic);
  if (!published) {
    await repo.update({ id: In(changing.map((t) => t.id)) }, { workflowState: 'unpublished' });
    for (const t of changing) t.workflowState = 'unpublished';
    return;
  }
  const now = nowToSecond();
  let seq = await nextActivitySeq(em);
  for (const t of changing) {
    const future = t.delayedPostAt && t.delayedPostAt.getTime() > now.getTime() ? t.delayedPostAt : null;
    Object.assign(t, { workflowState: 'active', postedAt: t.postedAt ?? future ?? now, activityAt: future ?? now, activitySeq: seq++ });
    await repo.update({ id: t.id }, { workflowState: 'active', postedAt: t.postedAt, activityAt: t.activityAt, activitySeq: t.activitySeq });
  }
}
