import { EntityManager, In, Not } from 'typeorm';
import { Assignment } from '../content/assignments/assignment.entity';
import { Enrollment } from '../courses/enrollment.entity';
import { DiscussionEntry } from '../discussions/discussion-entry.entity';
import { DiscussionTopic } from '../discussions/discussion-topic.entity';
import { setTopicsPublished } from '../discussions/topic-publishing';
import { ContentInfo, contentAdapter, courseIdList, CourseIds, type ContentAdapter } from './content-registry';

/**
 * How modules reach course discussion topics (mirrors src/modules/course-content.ts): announcements
 * are not module content; a graded topic is scored through its assignment (its assignmentId, so
 * must_submit and min_score apply to it) and takes the assignment's dates where it has none of its own;
 * a delayed post unlocks at its delayed_post_at. Views and entries reach progress through the
 * discussion area's domain events, posts on graded topics also through their submissions.
 */
export const discussionContent: ContentAdapter = {
  kind: 'Discussion',
  async load(ctx, courseIds, ids) {
    const rows = ids.length
      ? await ctx.ds.getRepository(DiscussionTopic).findBy({ id: In(ids), contextType: 'Course', contextId: In(courseIdList(courseIds)), isAnnouncement: false, workflowState: Not('deleted' as const) })
      : [];
    const graded = rows.map((t) => t.assignmentId).filter((id): id is number => id != null);
    const [assignments, posted] = await Promise.all([
      graded.length ? (contentAdapter('Assignment')?.load(ctx, courseIds, graded) ?? Promise.resolve(new Map<number, ContentInfo>())) : Promise.resolve(new Map<number, ContentInfo>()),
      postedByStudents(ctx.ds.manager, courseIds, rows.map((t) => t.id)),
    ]);
    return new Map(
      rows.map((t): [number, ContentInfo] => {
        const a = t.assignmentId != null ? assignments.get(t.assignmentId) : undefined;
        return [
          t.id,
          {
            id: t.id,
            courseId: t.contextId,
            title: t.title,
            published: t.published,
            assignmentId: a ? a.id : null,
            pointsPossible: a?.pointsPossible ?? null,
            dueAt: a?.dueAt ?? null,
            unlockAt: t.delayedPostAt ?? a?.unlockAt ?? null,
            lockAt: t.lockAt ?? a?.lockAt ?? null,
            unpublishable: !posted.has(t.id),
          },
        ];
      }),
    );
  },
  async setPublished(em, courseId, ids, published) {
    let topics = ids.length ? await em.getRepository(DiscussionTopic).findBy({ id: In(ids), contextType: 'Course', contextId: courseId, isAnnouncement: false, workflowState: Not('deleted' as const) }) : [];
    topics = topics.filter((t) => t.published !== published);
    // Topics students have posted to stay published (Canvas: "contains posts").
    if (!published && topics.length) {
      const posted = await postedByStudents(em, courseId, topics.map((t) => t.id));
      topics = topics.filter((t) => !posted.has(t.id));
    }
    // Going out as the discussion area publishes a draft; a graded topic's assignment follows it.
    await setTopicsPublished(em, topics, published);
    await setAssignmentsPublished(em, topics, published);
  },
  async rename(em, courseId, id, title) {
    await em.getRepository(DiscussionTopic).update({ id, contextType: 'Course', contextId: courseId }, { title });
    const topic = await em.getRepository(DiscussionTopic).findOneBy({ id, contextType: 'Course', contextId: courseId });
    if (topic?.assignmentId != null) await em.getRepository(Assignment).update({ id: topic.assignmentId, courseId }, { name: title });
  },
  apiUrl: (baseUrl, courseId, info) => `${baseUrl}/api/v1/courses/${courseId}/discussion_topics/${info.id}`,
  sql: {
    table: 'discussion_topics',
    live: (course) => `mc.context_type = 'Course' AND mc.context_id = ${course} AND mc.is_announcement = 0 AND mc.workflow_state <> 'deleted'`,
    published: "mc.workflow_state = 'active'",
    // As load(): a graded topic is scored by its assignment while that assignment is live.
    assignment: (course) => `(SELECT da.id FROM assignments da WHERE da.id = mc.assignment_id AND da.course_id = ${course} AND da.workflow_state <> 'deleted')`,
  },
};

/** The live assignments of graded topics take the topics' published state. */
async function setAssignmentsPublished(em: EntityManager, topics: DiscussionTopic[], published: boolean): Promise<void> {
  const ids = topics.map((t) => t.assignmentId).filter((id): id is number => id != null);
  if (ids.length) await em.getRepository(Assignment).update({ id: In(ids), workflowState: Not('deleted' as const) }, { workflowState: published ? 'published' : 'unpublished' });
}

/** Topics (of the given ids) with an active entry by a student of the topic's course (courseIds: the topics' courses). */
async function postedByStudents(em: EntityManager, courseIds: CourseIds, topicIds: number[]): Promise<Set<number>> {
  if (!topicIds.length) return new Set();
  const rows: { id: number | string }[] = await em
    .getRepository(DiscussionEntry)
    .createQueryBuilder('e')
    .select('DISTINCT e.discussion_topic_id', 'id')
    .innerJoin(DiscussionTopic, 't', 't.id = e.discussion_topic_id')
    .innerJoin(Enrollment, 'en', "en.user_id = e.user_id AND en.course_id = t.context_id AND en.course_id IN (:...cids) AND en.type = 'StudentEnrollment'", { cids: courseIdList(courseIds) })
    .where('e.discussion_topic_id IN (:...ids) AND e.workflow_state = :active', { ids: topicIds, active: 'active' })
    .getRawMany();
  return new Set(rows.map((r) => Number(r.id)));
}
