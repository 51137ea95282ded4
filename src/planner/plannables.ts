import { NotFoundError, ValidationError } from '../common/errors';
import type { RequestContext } from '../request/context';
import { Assignment } from '../content/assignments/assignment.entity';
import { Quiz } from '../content/quizzes/quiz.entity';
import { WikiPage } from '../content/pages/page.entity';
import { DiscussionTopic } from '../discussions/discussion-topic.entity';
import { PlannerNote } from './planner-note.entity';
import { AssignmentService } from '../content/assignments/assignment.service';
import { QuizService } from '../content/quizzes/quiz.service';
import { DiscussionService } from '../discussions/discussion.service';
import { PageService } from '../content/pages/page.service';
import { CalendarEvent } from '../calendar-events/calendar-event.entity';
import { CalendarEventService } from '../calendar-events/calendar-event.service';

/**
 * Canvas's PLANNABLE_TYPES: the snake-case names the planner APIs take and emit. This service has no
 * peer reviews or sub-assignments, so those names are accepted but never match an object (404).
 */
export const PLANNABLE_TYPES = ['assignment', 'quiz', 'discussion_topic', 'announcement', 'wiki_page', 'planner_note', 'calendar_event', 'assessment_request', 'sub_assignment'] as const;
export type PlannableKind = 'assignment' | 'quiz' | 'discussion_topic' | 'announcement' | 'wiki_page' | 'planner_note' | 'calendar_event';

/** Types a planner note may link to (announcements are stored as discussion_topic, as Canvas reports them). */
export const LINKABLE_TYPES = ['announcement', 'assignment', 'discussion_topic', 'wiki_page', 'quiz'] as const;

/** A plannable as the planner stores references to it, normalised as Canvas's PlannerOverride does. */
export interface PlannableRef {
  type: PlannableKind;
  id: number;
  courseId: number | null;
  title: string;
  /** The assignment behind it (an assignment itself, a graded quiz or discussion), or null. */
  assignmentId: number | null;
  /** Override workflow_state following the object: active (published), unpublished, deleted. */
  state: 'active' | 'unpublished' | 'deleted';
  /** Page slug, for URLs. */
  slug?: string;
}

const stateOf = (published: boolean, deleted: boolean): PlannableRef['state'] => (deleted ? 'deleted' : published ? 'active' : 'unpublished');

export function assignmentRef(a: Assignment, quiz: Quiz | null, topic: DiscussionTopic | null): PlannableRef {
  if (quiz) return quizRef(quiz);
  if (topic) return topicRef(topic);
  return { type: 'assignment', id: a.id, courseId: a.courseId, title: a.name, assignmentId: a.id, state: stateOf(a.published, a.workflowState === 'deleted') };
}

export function quizRef(q: Quiz): PlannableRef {
  return { type: 'quiz', id: q.id, courseId: q.courseId, title: q.title, assignmentId: q.assignmentId, state: stateOf(q.published, q.workflowState === 'deleted') };
}

export function topicRef(t: DiscussionTopic): PlannableRef {
  return {
    type: t.isAnnouncement ? 'announcement' : 'discussion_topic',
    id: t.id,
    courseId: t.contextType === 'Course' ? t.contextId : null,
    title: t.title,
    assignmentId: t.assignmentId,
    state: stateOf(t.published, t.workflowState === 'deleted'),
  };
}

export function pageRef(p: WikiPage): PlannableRef {
  return { type: 'wiki_page', id: p.id, courseId: p.courseId, title: p.title, assignmentId: null, state: stateOf(p.published, p.workflowState === 'deleted'), slug: p.url };
}

export function noteRef(n: PlannerNote): PlannableRef {
  return { type: 'planner_note', id: n.id, courseId: n.courseId, title: n.title, assignmentId: null, state: n.workflowState === 'deleted' ? 'deleted' : 'active' };
}

/** The course a calendar event shows in (its effective context), or null for group and user events. */
export const eventCourseId = (e: Pick<CalendarEvent, 'effectiveContextCode'>): number | null => {
  const m = /^course_(\d+)$/.exec(e.effectiveContextCode);
  return m ? Number(m[1]) : null;
};

export function calendarEventRef(e: CalendarEvent): PlannableRef {
  return { type: 'calendar_event', id: e.id, courseId: eventCourseId(e), title: e.title, assignmentId: null, state: e.workflowState === 'deleted' ? 'deleted' : 'active' };
}

/** An unknown plannable_type: 400 naming the accepted values. */
export function unknownType(attribute: string, value: string | null | undefined, allowed: readonly string[]): ValidationError {
  return ValidationError.of(attribute, 'inclusion', `${attribute} must be one of ${allowed.join(', ')}${value ? ` (got "${value}")` : ''}`);
}

/**
 * A plannable the viewer may see, by planner type and id, normalised: an assignment that is really a
 * quiz or graded discussion becomes that quiz or topic. `courseId`, when given, must be its course.
 * Missing, deleted, unpublished-for-students or elsewhere → 404; a course the viewer may not read → 403.
 */
export async function locatePlannable(ctx: RequestContext, type: string, rawId: string | number, courseId?: number): Promise<PlannableRef> {
  const id = /^\d{1,15}$/.test(String(rawId).trim()) ? Number(String(rawId).trim()) : null;
  if (id == null) throw new NotFoundError();
  const courseRaw = courseId ?? null;
  switch (type) {
    case 'assignment': {
      const { assignment } = await ctx.use(AssignmentService).find(courseRaw, id);
      const [quiz, topic] = await Promise.all([
        ctx.use(QuizService).backedBy(assignment.id),
        ctx.ds.getRepository(DiscussionTopic).findOne({ where: { assignmentId: assignment.id }, order: { id: 'ASC' } }),
      ]);
      const liveTopic = topic && topic.workflowState !== 'deleted' ? topic : null;
      return assignmentRef(assignment, quiz, liveTopic);
    }
    case 'quiz':
      return quizRef((await ctx.use(QuizService).find(courseRaw, id)).quiz);
    case 'discussion_topic':
    case 'announcement': {
      const { topic } = await ctx.use(DiscussionService).locate(courseRaw == null ? { id } : { id, contextType: 'Course', contextId: String(courseRaw) });
      if (courseRaw != null && topic.contextType !== 'Course') throw new NotFoundError();
      return topicRef(topic);
    }
    case 'wiki_page':
      return pageRef((await ctx.use(PageService).find(courseRaw, `page_id:${id}`)).page);
    case 'planner_note': {
      const viewer = ctx.authz.requireViewer();
      const note = await ctx.ds.getRepository(PlannerNote).findOneBy({ id, userId: viewer.id, workflowState: 'active' });
      if (!note || (courseId != null && note.courseId !== courseId)) throw new NotFoundError();
      return noteRef(note);
    }
    case 'calendar_event': {
      const e = await ctx.use(CalendarEventService).show(id);
      if (courseId != null && eventCourseId(e) !== courseId) throw new NotFoundError();
      return calendarEventRef(e);
    }
    default:
      // assessment_request, sub_assignment: kinds this service does not have.
      throw new NotFoundError();
  }
}

/** Web and API URLs of a linked or overridden object. */
export function plannableUrls(baseUrl: string, type: string, id: number, courseId: number | null): { html: string | null; api: string | null } {
  if (type === 'calendar_event') return { html: `${baseUrl}/calendar?event_id=${id}${courseId != null ? `&include_contexts=course_${courseId}` : ''}`, api: `${baseUrl}/api/v1/calendar_events/${id}` };
  if (courseId == null) return type === 'planner_note' ? { html: null, api: `${baseUrl}/api/v1/planner_notes/${id}` } : { html: null, api: null };
  const path = (() => {
    switch (type) {
      case 'assignment':
        return `courses/${courseId}/assignments/${id}`;
      case 'quiz':
        return `courses/${courseId}/quizzes/${id}`;
      case 'discussion_topic':
      case 'announcement':
        return `courses/${courseId}/discussion_topics/${id}`;
      case 'wiki_page':
        return `courses/${courseId}/pages/page_id:${id}`;
      default:
        return null;
    }
  })();
  return path ? { html: `${baseUrl}/${path}`, api: `${baseUrl}/api/v1/${path}` } : { html: null, api: null };
}
