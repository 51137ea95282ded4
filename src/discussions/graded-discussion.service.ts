import { EntityManager, Not } from 'typeorm';
import { Assignment } from '../content/assignments/assignment.entity';
import type { AssignmentBacker } from '../content/assignments/assignment-backers';
import type { AssignmentFields } from '../content/assignments/assignment.service';
import type { LockView } from '../content/content-access';
import type { Course } from '../courses/course.entity';
import { nowToSecond } from '../db/columns';
import { raise } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import { DiscussionContexts, type DiscussionContext } from './discussion-context';
import { DiscussionEntry } from './discussion-entry.entity';
import { DiscussionTopic } from './discussion-topic.entity';
import { DiscussionLoaders } from './discussion.loaders';
import { setTopicsPublished } from './topic-publishing';
import { AssignmentService } from '../content/assignments/assignment.service';
import { EnrollmentService } from '../courses/enrollment.service';
import { SubmissionService } from '../content/submissions/submission.service';

/** Canvas's `assignment[...]` params of a topic write: the assignment's own fields, and set_assignment=false to make it ungraded. */
export interface TopicAssignmentInput {
  setAssignment?: boolean | null;
  pointsPossible?: number | null;
  gradingType?: string | null;
  dueAt?: Date | null;
  unlockAt?: Date | null;
  lockAt?: Date | null;
}

/** What a topic write asks of its assignment, once checked: remove it, or create/update it with these fields. */
export type GradingPlan = { kind: 'remove' } | { kind: 'grade'; fields: AssignmentFields };

/** The submission type of a graded discussion's assignment; students turn it in by posting. */
export const DISCUSSION_SUBMISSION_TYPE = 'discussion_topic';

const live = <T extends { workflowState: string }>(x: T | null | undefined): T | null => (x && x.workflowState !== 'deleted' ? x : null);

/**
 * Graded discussions: a course topic scored through an assignment (submission type discussion_topic)
 * that follows the topic — its title is the assignment's name, its message the description, its
 * published state the assignment's — while points, grading type and dates come from the topic write's
 * `assignment[...]` params. A student's post turns the assignment in; deleting either deletes both.
 */
export class GradedDiscussionService {
  constructor(private readonly ctx: RequestContext) {}

  /**
   * The assignment params of a topic write, as Canvas's apply_assignment_parameters takes them: for
   * course topics (not announcements) from callers who may manage assignments; anyone else's are
   * ignored, as Canvas ignores them. Checked here, before anything is written; null: nothing asked.
   */
  async plan(context: DiscussionContext, topic: DiscussionTopic, input: TopicAssignmentInput | null | undefined): Promise<GradingPlan | null> {
    if (input == null || !context.course || topic.isAnnouncement) return null;
    if (!(await this.ctx.authz.canCourse(context.course, 'manage_assignments'))) return null;
    if (input.setAssignment === false) return { kind: 'remove' };
    const fields: AssignmentFields = {};
    for (const k of ['pointsPossible', 'gradingType', 'dueAt', 'unlockAt', 'lockAt'] as const) if (input[k] !== undefined) (fields as Record<string, unknown>)[k] = input[k];
    const existing = live(topic.assignmentId != null ? await this.ctx.loaders.byId(Assignment).load(topic.assignmentId) : null);
    // The name is the topic's title, checked as a title.
    this.ctx.use(AssignmentService).validateFields(fields, existing, false);
    return { kind: 'grade', fields };
  }

  /**
   * After a topic write is saved (same transaction): carries out the plan, or else keeps an existing
   * assignment in step with the topic. A topic that becomes graded credits the students who already
   * posted, as Canvas's recalculate_context_module_actions!.
   */
  async afterSave(em: EntityManager, topic: DiscussionTopic, course: Course | undefined, plan: GradingPlan | null): Promise<void> {
    if (topic.contextType !== 'Course' || !course) return;
    const current = live(topic.assignmentId != null ? await em.getRepository(Assignment).findOneBy({ id: topic.assignmentId }) : null);
    const synced: AssignmentFields = { name: topic.title, description: topic.message, published: topic.published, submissionTypes: [DISCUSSION_SUBMISSION_TYPE] };
    if (plan?.kind === 'remove') {
      if (current) await this.ctx.use(AssignmentService).softDelete(em, current);
      if (topic.assignmentId != null) await this.link(em, topic, null);
      return;
    }
    if (plan?.kind === 'grade' && !current) {
      const created = await this.ctx.use(AssignmentService).insert(em, course, { ...plan.fields, ...synced });
      this.ctx.loaders.byId(Assignment).clear(created.id).prime(created.id, created);
      await this.link(em, topic, created.id);
      await this.creditPosters(em, topic, created, course);
      return;
    }
    if (!current) return;
    const changed = plan?.kind === 'grade' || current.name !== topic.title || current.description !== topic.message || current.published !== topic.published;
    if (!changed) return;
    await this.ctx.use(AssignmentService).saveWith(em, current, { ...(plan?.kind === 'grade' ? plan.fields : {}), ...synced });
    this.ctx.loaders.byId(Assignment).clear(current.id).prime(current.id, current);
  }

  private async link(em: EntityManager, topic: DiscussionTopic, assignmentId: number | null): Promise<void> {
    topic.assignmentId = assignmentId;
    await em.getRepository(DiscussionTopic).update({ id: topic.id }, { assignmentId });
    this.ctx.loaders.byId(DiscussionTopic).clear(topic.id).prime(topic.id, topic);
  }

  /** Students who posted before the topic was graded have turned it in: one submission each, dated by their first post. */
  private async creditPosters(em: EntityManager, topic: DiscussionTopic, assignment: Assignment, course: Course): Promise<void> {
    const entries = await em.getRepository(DiscussionEntry).find({
      select: { userId: true, createdAt: true },
      where: { discussionTopicId: topic.id, workflowState: 'active' },
      order: { id: 'ASC' },
    });
    const first = new Map<number, Date>();
    for (const e of entries) if (!first.has(e.userId)) first.set(e.userId, e.createdAt);
    for (const [userId, at] of first) {
      if (await this.ctx.use(EnrollmentService).isActiveStudent(course, userId)) await this.ctx.use(SubmissionService).recordDiscussionEntry(em, assignment, userId, at);
    }
  }

  /** A student's post (same transaction as the entry): turns in the topic's assignment. */
  async recordPost(em: EntityManager, topic: DiscussionTopic, userId: number, postedAt: Date): Promise<void> {
    if (topic.assignmentId == null) return;
    const assignment = live(await em.getRepository(Assignment).findOneBy({ id: topic.assignmentId }));
    if (assignment) await this.ctx.use(SubmissionService).recordDiscussionEntry(em, assignment, userId, postedAt);
  }

  /** Deleting a graded topic deletes its assignment. */
  async deleteWith(em: EntityManager, topic: DiscussionTopic): Promise<void> {
    if (topic.assignmentId == null) return;
    const assignment = live(await em.getRepository(Assignment).findOneBy({ id: topic.assignmentId }));
    if (assignment) await this.ctx.use(AssignmentService).softDelete(em, assignment);
  }

  // ---- the assignment's side ------------------------------------------------------------------------

  /** The live topic an assignment grades, if any. */
  topicOf(assignmentId: number): Promise<DiscussionTopic | null> {
    return this.ctx.ds.getRepository(DiscussionTopic).findOne({ where: { assignmentId, contextType: 'Course', workflowState: Not('deleted' as const) }, order: { id: 'ASC' } });
  }

  /** A topic with posts cannot go back to draft (nor, then, can its assignment). */
  async canUnpublish(topic: DiscussionTopic): Promise<boolean> {
    return (await this.ctx.use(DiscussionLoaders).entryCount(false).load(topic.id)) === 0;
  }

  /** An edit of the assignment through the assignments API carries its name and published state over to the topic. */
  async syncFromAssignment(em: EntityManager, topic: DiscussionTopic, a: Assignment): Promise<void> {
    if (topic.title !== a.name) {
      topic.title = a.name;
      await em.getRepository(DiscussionTopic).update({ id: topic.id }, { title: a.name });
    }
    await setTopicsPublished(em, [topic], a.published);
    await raise(em, this.ctx, { type: 'content.changed', courseId: topic.contextId, contentType: 'Discussion', contentId: topic.id, change: 'updated' });
  }

  /** Deleting the assignment deletes the topic it grades, as in Canvas. */
  async deleteTopic(em: EntityManager, topic: DiscussionTopic): Promise<void> {
    await em.getRepository(DiscussionTopic).update({ id: topic.id }, { workflowState: 'deleted', deletedAt: nowToSecond() });
    await raise(em, this.ctx, { type: 'content.changed', courseId: topic.contextId, contentType: 'Discussion', contentId: topic.id, change: 'deleted' });
  }

  // ---- reads ----------------------------------------------------------------------------------------

  /** The topic's live assignment as the viewer may see it (an unpublished one only to moderators), batched. */
  async assignmentOf(topic: DiscussionTopic): Promise<Assignment | null> {
    if (topic.assignmentId == null || topic.contextType !== 'Course') return null;
    const a = live(await this.ctx.loaders.byId(Assignment).load(topic.assignmentId));
    if (!a || a.published) return a;
    return (await this.ctx.use(DiscussionContexts).rightsOfTopic(topic)).moderate ? a : null;
  }

  /** The assignment's availability dates for the viewer (graders and authors are never locked out); null when ungraded. */
  async assignmentLock(topic: DiscussionTopic): Promise<LockView | null> {
    const a = await this.assignmentOf(topic);
    return a ? this.ctx.use(AssignmentService).lockFor(a) : null;
  }
}

/** A graded topic follows its assignment: edits carry its name and published state over, and deleting the assignment deletes the topic. */
export const gradedDiscussionBacker: AssignmentBacker = {
  name: 'graded-discussion',
  async backing(ctx, assignmentId) {
    const graded = ctx.use(GradedDiscussionService);
    const topic = await graded.topicOf(assignmentId);
    if (!topic) return null;
    return {
      unpublishRefusal: async () => ((await graded.canUnpublish(topic)) ? null : 'This topic cannot be set to draft state because it contains posts.'),
      followEdit: (em, a) => graded.syncFromAssignment(em, topic, a),
      followDelete: (em) => graded.deleteTopic(em, topic),
    };
  },
};
