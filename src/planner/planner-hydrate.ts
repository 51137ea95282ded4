import { DiscussionTopic } from '../discussions/discussion-topic.entity';
import type { RequestContext } from '../request/context';
import { readOverrides, readParticipants, readPlannables, readUnreadCounts } from './planner-reads';
import { eventCourseId, PlannableKind } from './plannables';
import { Cursor, K, Kind, Plan } from './planner-query';
import { ItemContext, itemView, NO_CONTEXT, PlannableView, plannableView, PlannerItemView, submissionStatus } from './planner-item-view';


/**
 * A page's items from its key set rows: each kind's rows, the user's overrides, submissions and read
 * states, one batch each, built whole in the page's order.
 */
export async function hydratePlannerItems(ctx: RequestContext, plan: Plan, rows: Cursor[]): Promise<(PlannerItemView | null)[]> {
  if (!rows.length) return [];
  const idsOf = (k: Kind) => rows.filter((r) => r.k === k).map((r) => r.id);
  const [aIds, qIds, nIds, pIds, tIds, eIds] = [idsOf(K.assignment), idsOf(K.quiz), idsOf(K.note), idsOf(K.page), idsOf(K.topic), idsOf(K.event)];
  const uid = plan.subjectId;
  const ds = ctx.ds;
  const { assignments, backingQuizzes, backingTopics, submissions, quizzes, notes, pages, topics, events } = await readPlannables(
    ds,
    { assignments: aIds, quizzes: qIds, notes: nIds, pages: pIds, topics: tIds, events: eIds },
    uid,
  );
  const byId = <T extends { id: number }>(xs: T[]) => new Map(xs.map((x) => [x.id, x]));
  const [aMap, qMap, nMap, pMap, tMap, eMap] = [byId(assignments), byId(quizzes), byId(notes), byId(pages), byId(topics), byId(events)];
  const quizOf = new Map(backingQuizzes.map((q) => [q.assignmentId!, q]));
  const topicOf = new Map(backingTopics.map((t) => [t.assignmentId!, t]));
  const subOf = new Map(submissions.map((s) => [s.assignmentId, s]));

  // What each row is shown as: an assignment behind a quiz or graded discussion is that quiz or topic.
  const shownAs = (r: Cursor): { type: PlannableKind; id: number } | null => {
    switch (r.k) {
      case K.assignment: {
        const q = quizOf.get(r.id);
        if (q) return { type: 'quiz', id: q.id };
        const t = topicOf.get(r.id);
        if (t) return { type: 'discussion_topic', id: t.id };
        return { type: 'assignment', id: r.id };
      }
      case K.quiz:
        return { type: 'quiz', id: r.id };
      case K.note:
        return { type: 'planner_note', id: r.id };
      case K.page:
        return { type: 'wiki_page', id: r.id };
      case K.event:
        return { type: 'calendar_event', id: r.id };
      default: {
        const t = tMap.get(r.id);
        return t ? { type: t.isAnnouncement ? 'announcement' : 'discussion_topic', id: r.id } : null;
      }
    }
  };
  const shown = rows.map(shownAs);
  const readTopicIds = [...new Set([...tIds, ...backingTopics.map((t) => t.id)])];
  const plannableIds = [...new Set(shown.filter(Boolean).map((s) => s!.id))];
  const [overrides, participants, unreadOf] = await Promise.all([
    uid == null ? [] : readOverrides(ds, uid, plannableIds),
    uid == null ? [] : readParticipants(ds, uid, readTopicIds),
    uid == null ? new Map<number, number>() : readUnreadCounts(ds, uid, readTopicIds),
  ]);
  const overrideOf = new Map(overrides.map((o) => [`${o.plannableType}:${o.plannableId}`, o]));
  const readOf = new Map(participants.map((p) => [p.discussionTopicId, p.workflowState]));
  const readInfo = (t: DiscussionTopic) => {
    const readState = uid == null ? null : (readOf.get(t.id) ?? 'unread');
    const unreadCount = uid == null ? 0 : (unreadOf.get(t.id) ?? 0);
    return { readState, unreadCount, newActivity: uid != null && (readState === 'unread' || unreadCount > 0) };
  };

  const base = ctx.baseUrl;
  const out: (PlannerItemView | null)[] = rows.map(() => null);
  const inCourse = (courseId: number): ItemContext => ({ contextType: 'Course', courseId, groupId: null, contextName: plan.courses.get(courseId)?.name ?? null });
  rows.forEach((r, i) => {
    const as = shown[i];
    if (!as) return;
    const override = overrideOf.get(`${as.type}:${as.id}`) ?? null;
    switch (r.k) {
      case K.assignment: {
        const a = aMap.get(r.id);
        if (!a) return;
        const sub = uid == null ? undefined : subOf.get(a.id);
        const status = submissionStatus(a, sub ?? null);
        const q = quizOf.get(a.id);
        const t = topicOf.get(a.id);
        const submittedUrl = status.submitted || status.graded || status.hasFeedback;
        let plannable: PlannableView;
        let htmlUrl: string;
        let newActivity = false;
        if (q) {
          plannable = plannableView(q.id, q.title, a.courseId, q.createdAt, q.updatedAt);
          htmlUrl = `${base}/courses/${a.courseId}/quizzes/${q.id}`;
        } else if (t) {
          const info = readInfo(t);
          newActivity = info.newActivity;
          plannable = plannableView(t.id, t.title, a.courseId, t.createdAt, t.updatedAt);
          plannable.todoDate = t.todoDate;
          plannable.unreadCount = info.unreadCount;
          plannable.readState = info.readState;
          htmlUrl = submittedUrl && uid != null ? `${base}/courses/${a.courseId}/assignments/${a.id}/submissions/${uid}` : `${base}/courses/${a.courseId}/discussion_topics/${t.id}`;
        } else {
          plannable = plannableView(a.id, a.name, a.courseId, a.createdAt, a.updatedAt);
          htmlUrl = submittedUrl && uid != null ? `${base}/courses/${a.courseId}/assignments/${a.id}/submissions/${uid}` : `${base}/courses/${a.courseId}/assignments/${a.id}`;
        }
        plannable.assignmentId = a.id;
        plannable.pointsPossible = a.pointsPossible;
        plannable.dueAt = a.dueAt;
        out[i] = itemView(inCourse(a.courseId), as.id, as.type, r.d, override, newActivity, status, plannable, htmlUrl);
        return;
      }
      case K.quiz: {
        const q = qMap.get(r.id);
        if (!q) return;
        const plannable = plannableView(q.id, q.title, q.courseId, q.createdAt, q.updatedAt);
        plannable.pointsPossible = q.pointsPossible;
        plannable.dueAt = q.dueAt;
        out[i] = itemView(inCourse(q.courseId), q.id, 'quiz', r.d, override, false, null, plannable, `${base}/courses/${q.courseId}/quizzes/${q.id}`);
        return;
      }
      case K.note: {
        const n = nMap.get(r.id);
        if (!n) return;
        const plannable = plannableView(n.id, n.title, n.courseId, n.createdAt, n.updatedAt);
        plannable.userId = n.userId;
        plannable.todoDate = n.todoDate;
        plannable.details = n.details;
        plannable.workflowState = n.workflowState;
        const context = n.courseId != null ? inCourse(n.courseId) : NO_CONTEXT;
        out[i] = itemView(context, n.id, 'planner_note', r.d, override, false, null, plannable, `${base}/api/v1/planner_notes/${n.id}`);
        return;
      }
      case K.page: {
        const p = pMap.get(r.id);
        if (!p) return;
        const plannable = plannableView(p.id, p.title, p.courseId, p.createdAt, p.updatedAt);
        plannable.todoDate = p.todoDate;
        plannable.url = p.url;
        out[i] = itemView(inCourse(p.courseId), p.id, 'wiki_page', r.d, override, false, null, plannable, `${base}/courses/${p.courseId}/pages/${p.url}`);
        return;
      }
      case K.event: {
        const e = eMap.get(r.id);
        if (!e) return;
        // A section's event shows in its course; a user's own event has no context keys, as a note without a course.
        const courseId = eventCourseId(e);
        const group = e.contextType === 'Group';
        const context: ItemContext = courseId != null ? inCourse(courseId) : group ? { contextType: 'Group', courseId: null, groupId: e.contextId, contextName: plan.groups.get(e.contextId)?.name ?? null } : NO_CONTEXT;
        const plannable = plannableView(e.id, e.title, courseId, e.createdAt, e.updatedAt);
        plannable.groupId = group ? e.contextId : null;
        plannable.userId = e.contextType === 'User' ? e.contextId : null;
        plannable.locationName = e.locationName;
        plannable.locationAddress = e.locationAddress;
        plannable.description = e.description;
        plannable.startAt = e.startAt;
        plannable.endAt = e.endAt;
        plannable.allDay = Boolean(e.allDay);
        const htmlUrl = `${base}/calendar?event_id=${e.id}&include_contexts=${e.effectiveContextCode}`;
        out[i] = itemView(context, e.id, 'calendar_event', r.d, override, false, null, plannable, htmlUrl);
        return;
      }
      default: {
        const t = tMap.get(r.id)!;
        const info = readInfo(t);
        const group = t.contextType === 'Group';
        const context: ItemContext = group ? { contextType: 'Group', courseId: null, groupId: t.contextId, contextName: plan.groups.get(t.contextId)?.name ?? null } : inCourse(t.contextId);
        const plannable = plannableView(t.id, t.title, group ? null : t.contextId, t.createdAt, t.updatedAt);
        plannable.groupId = group ? t.contextId : null;
        plannable.todoDate = t.todoDate;
        plannable.unreadCount = info.unreadCount;
        plannable.readState = info.readState;
        const htmlUrl = `${base}/${group ? 'groups' : 'courses'}/${t.contextId}/discussion_topics/${t.id}`;
        out[i] = itemView(context, t.id, as.type, r.d, override, info.newActivity, null, plannable, htmlUrl);
      }
    }
  });
  return out;
}
