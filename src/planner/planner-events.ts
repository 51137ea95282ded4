import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager, In, Not } from 'typeorm';
import { formatDateTime } from '../common/dates';
import { Setting } from '../db/setting.entity';
import { transaction } from '../db/transaction';
import { Enrollment } from '../courses/enrollment.entity';
import { Assignment } from '../content/assignments/assignment.entity';
import { WikiPage } from '../content/pages/page.entity';
import { Quiz } from '../content/quizzes/quiz.entity';
import { DiscussionTopic } from '../discussions/discussion-topic.entity';
import { afterCommit } from '../db/transaction';
import { ContentKind, type DomainEventHandler } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import type { PlannerNote } from './planner-note.entity';
import { PlannerOverride } from './planner-override.entity';
import { CalendarEvent } from '../calendar-events/calendar-event.entity';
import { CourseSection } from '../courses/section.entity';
import { GroupMembership } from '../groups/group-membership.entity';

/**
 * Live planner events. Everything is published only after the transaction of the change commits,
 * and always to one user's routed topic (`topic`, user id), so a subscriber only ever receives what
 * concerns their own planner. With REDIS_URL the pubsub carries them to every instance.
 */
export const PLANNER_CHANGED = 'PLANNER_CHANGED';
export const PLANNER_NOTE_CHANGED = 'PLANNER_NOTE_CHANGED';

/** What a plannerChanged subscriber receives (plain JSON: it may cross Redis). */
export interface PlannerChangePayload {
  change: 'created' | 'updated' | 'deleted';
  plannableType: string;
  plannableId: number;
  courseId: number | null;
  reason: 'note' | 'override' | 'content' | 'submission';
  occurredAt: string;
}

export interface PlannerNoteChangePayload {
  change: 'updated' | 'deleted';
  noteId: number;
}

const NAMESPACE_SETTING = 'planner_channel_namespace';
const namespaces = new WeakMap<DataSource, Promise<string>>();

/**
 * Channels are namespaced by installation (a value generated once and kept in the database), so
 * instances sharing one database share channels while deployments (or test runs) that happen to share
 * one Redis never see each other's users, whose ids coincide.
 */
export function channelNamespace(ds: DataSource): Promise<string> {
  let p = namespaces.get(ds);
  if (!p) {
    p = transaction(ds, async (em) => {
      const repo = em.getRepository(Setting);
      const found = await repo.findOneBy({ name: NAMESPACE_SETTING });
      if (found) return found.value;
      const value = randomBytes(8).toString('hex');
      await repo.insert({ name: NAMESPACE_SETTING, value });
      return value;
    }).catch(async () => (await ds.getRepository(Setting).findOneByOrFail({ name: NAMESPACE_SETTING })).value);
    p.catch(() => namespaces.delete(ds));
    namespaces.set(ds, p);
  }
  return p;
}

/** The routed id of one user's (or one note's) channel. */
export async function channelId(ds: DataSource, id: number): Promise<string> {
  return `${await channelNamespace(ds)}:${id}`;
}

async function publish(ctx: RequestContext, topic: string, id: number, payload: unknown): Promise<void> {
  // A context built without an app pubsub (CLI seeding) has nobody to tell.
  if (!ctx.app?.pubsub) return;
  ctx.app.pubsub.publish(topic, await channelId(ctx.ds, id), payload);
}

/** Tells each user, once `em` commits, that an item of their planner changed. */
export function publishPlannerChange(em: EntityManager, ctx: RequestContext, userIds: Iterable<number>, change: Omit<PlannerChangePayload, 'occurredAt'>): void {
  const users = [...new Set(userIds)];
  if (!users.length) return;
  afterCommit(em, async () => {
    const payload: PlannerChangePayload = { ...change, occurredAt: formatDateTime(new Date())! };
    for (const u of users) await publish(ctx, PLANNER_CHANGED, u, payload);
  });
}

/** A note was written: its owner's planner changed, and so did the note's own subscription. */
export function publishNoteChange(em: EntityManager, ctx: RequestContext, note: PlannerNote, change: 'created' | 'updated' | 'deleted'): void {
  publishPlannerChange(em, ctx, [note.userId], { change, plannableType: 'planner_note', plannableId: note.id, courseId: note.courseId, reason: 'note' });
  if (change !== 'created') {
    afterCommit(em, () => publish(ctx, PLANNER_NOTE_CHANGED, note.id, { change, noteId: note.id } satisfies PlannerNoteChangePayload));
  }
}

export function publishOverrideChange(em: EntityManager, ctx: RequestContext, o: PlannerOverride, change: 'created' | 'updated' | 'deleted', courseId: number | null): void {
  publishPlannerChange(em, ctx, [o.userId], { change, plannableType: o.plannableType, plannableId: o.plannableId, courseId, reason: 'override' });
}

/** The planner names and override states of a changed content object, read in the transaction. */
async function plannableOf(em: EntityManager, kind: ContentKind, id: number): Promise<{ types: string[]; type: string; state: PlannerOverride['workflowState'] } | null> {
  const state = (published: boolean, deleted: boolean): PlannerOverride['workflowState'] => (deleted ? 'deleted' : published ? 'active' : 'unpublished');
  switch (kind) {
    case 'Assignment': {
      const a = await em.getRepository(Assignment).findOneBy({ id });
      return a && { types: ['assignment'], type: 'assignment', state: state(a.published, a.workflowState === 'deleted') };
    }
    case 'Quiz': {
      const q = await em.getRepository(Quiz).findOneBy({ id });
      return q && { types: ['quiz'], type: 'quiz', state: state(q.published, q.workflowState === 'deleted') };
    }
    case 'Page': {
      const p = await em.getRepository(WikiPage).findOneBy({ id });
      return p && { types: ['wiki_page'], type: 'wiki_page', state: state(p.published, p.workflowState === 'deleted') };
    }
    case 'Discussion': {
      const t = await em.getRepository(DiscussionTopic).findOneBy({ id });
      return t && { types: ['discussion_topic', 'announcement'], type: t.isAnnouncement ? 'announcement' : 'discussion_topic', state: state(t.published, t.workflowState === 'deleted') };
    }
    default:
      return null;
  }
}

/** Students whose planner shows a course's content. */
async function studentsOf(em: EntityManager, courseId: number): Promise<number[]> {
  const rows = await em.getRepository(Enrollment).find({ select: { userId: true }, where: { courseId, type: 'StudentEnrollment', workflowState: In(['active']) } });
  return rows.map((r) => r.userId);
}

/** Whose planner shows a calendar event: a course's (or section's) students, a group's members, its user. */
async function calendarAudience(em: EntityManager, e: CalendarEvent): Promise<{ users: number[]; courseId: number | null }> {
  switch (e.contextType) {
    case 'Course':
      return { users: e.hidden ? [] : await studentsOf(em, e.contextId), courseId: e.contextId };
    case 'CourseSection': {
      const section = await em.getRepository(CourseSection).findOneBy({ id: e.contextId });
      if (!section) return { users: [], courseId: null };
      const rows = await em.getRepository(Enrollment).find({ select: { userId: true }, where: { courseSectionId: section.id, type: 'StudentEnrollment', workflowState: 'active' } });
      return { users: rows.map((r) => r.userId), courseId: section.courseId };
    }
    case 'Group': {
      const rows = await em.getRepository(GroupMembership).find({ select: { userId: true }, where: { groupId: e.contextId, workflowState: 'accepted' } });
      return { users: rows.map((r) => r.userId), courseId: null };
    }
    default:
      return { users: [e.contextId], courseId: null };
  }
}

export const plannerContentHandler: DomainEventHandler = async (em, ctx, event) => {
  switch (event.type) {
    case 'content.changed': {
      const p = await plannableOf(em, event.contentType, event.contentId);
      if (!p) return;
      // Overrides follow their object's published state (Canvas's PlannerOverride.update_for); rows the user deleted stay deleted.
      await em.getRepository(PlannerOverride).update({ plannableType: In(p.types), plannableId: event.contentId, workflowState: Not('deleted') }, { workflowState: p.state });
      publishPlannerChange(em, ctx, await studentsOf(em, event.courseId), {
        change: event.change,
        plannableType: p.type,
        plannableId: event.contentId,
        courseId: event.courseId,
        reason: 'content',
      });
      return;
    }
    case 'submission.submitted':
    case 'submission.updated':
    case 'submission.graded':
      publishPlannerChange(em, ctx, [event.userId], { change: 'updated', plannableType: 'assignment', plannableId: event.assignmentId, courseId: event.courseId, reason: 'submission' });
      return;
    case 'quiz_submission.completed':
    case 'quiz_submission.scored':
      publishPlannerChange(em, ctx, [event.userId], { change: 'updated', plannableType: 'quiz', plannableId: event.quizId, courseId: event.courseId, reason: 'submission' });
      return;
    default:
      return;
  }
};

/** A calendar event changed: overrides of a deleted one are deleted, and its audience's planners hear of it. */
export const plannerCalendarHandler: DomainEventHandler = async (em, ctx, event) => {
  if (event.type !== 'calendar_event.changed') return;
  const e = await em.getRepository(CalendarEvent).findOneBy({ id: event.eventId });
  if (!e) return;
  if (e.workflowState === 'deleted') {
    await em.getRepository(PlannerOverride).update({ plannableType: 'calendar_event', plannableId: e.id, workflowState: Not('deleted') }, { workflowState: 'deleted' });
  }
  const { users, courseId } = await calendarAudience(em, e);
  publishPlannerChange(em, ctx, users, { change: event.change, plannableType: 'calendar_event', plannableId: e.id, courseId, reason: 'content' });
};
