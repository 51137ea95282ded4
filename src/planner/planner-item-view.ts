import type { Assignment } from '../content/assignments/assignment.entity';
import type { Submission } from '../content/submissions/submission.entity';
import type { PlannerOverride } from './planner-override.entity';
import type { PlannableKind } from './plannables';

export interface PlannerSubmissionStatus {
  submitted: boolean;
  excused: boolean;
  graded: boolean;
  postedAt: Date | null;
  late: boolean;
  missing: boolean;
  needsGrading: boolean;
  hasFeedback: boolean;
  withFeedback: boolean;
  redoRequest: boolean;
}

export interface PlannableView {
  id: number;
  title: string;
  courseId: number | null;
  groupId: number | null;
  userId: number | null;
  todoDate: Date | null;
  details: string | null;
  url: string | null;
  unreadCount: number | null;
  readState: string | null;
  assignmentId: number | null;
  pointsPossible: number | null;
  dueAt: Date | null;
  workflowState: string | null;
  /** Calendar events: where, what, when. */
  locationName: string | null;
  locationAddress: string | null;
  description: string | null;
  startAt: Date | null;
  endAt: Date | null;
  allDay: boolean | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One planner item, computed whole (so a page costs a fixed number of statements whatever its size). */
export interface PlannerItemView {
  contextType: 'Course' | 'Group' | null;
  courseId: number | null;
  groupId: number | null;
  contextName: string | null;
  plannableId: number;
  plannableType: PlannableKind;
  plannableDate: Date;
  plannerOverride: PlannerOverride | null;
  newActivity: boolean;
  submissions: PlannerSubmissionStatus | null;
  plannable: PlannableView;
  htmlUrl: string | null;
}

/** Submission types that are never "missing" (nothing to turn in online), as the submissions area has them. */
const NOT_EXPECTED = new Set(['none', 'on_paper', 'not_graded', 'external_tool']);

export type ItemContext = Pick<PlannerItemView, 'contextType' | 'courseId' | 'groupId' | 'contextName'>;
export const NO_CONTEXT: ItemContext = { contextType: null, courseId: null, groupId: null, contextName: null };

// Items and plannables are built whole, every field in one literal, then the kind's own fields set:
// one object shape for all rows. Spreading a blank object and overriding its keys was the page's
// hottest code (a third of the service's time on a 50-item page).
export function plannableView(id: number, title: string, courseId: number | null, createdAt: Date, updatedAt: Date): PlannableView {
  return { id, title, courseId, groupId: null, userId: null, todoDate: null, details: null, url: null, unreadCount: null, readState: null, assignmentId: null, pointsPossible: null, dueAt: null, workflowState: null, locationName: null, locationAddress: null, description: null, startAt: null, endAt: null, allDay: null, createdAt, updatedAt };
}

export function itemView(
  c: ItemContext,
  plannableId: number,
  plannableType: PlannableKind,
  plannableDate: Date,
  plannerOverride: PlannerOverride | null,
  newActivity: boolean,
  submissions: PlannerSubmissionStatus | null,
  plannable: PlannableView,
  htmlUrl: string,
): PlannerItemView {
  return { contextType: c.contextType, courseId: c.courseId, groupId: c.groupId, contextName: c.contextName, plannableId, plannableType, plannableDate, plannerOverride, newActivity, submissions, plannable, htmlUrl };
}

/** Canvas's planner submission statuses for one student's submission (absent: nothing turned in yet). */
export function submissionStatus(a: Assignment, s: Submission | null, now = Date.now()): PlannerSubmissionStatus {
  const excused = Boolean(s?.excused);
  const submittedAt = s?.submittedAt ?? null;
  const submitted = submittedAt != null && s!.workflowState !== 'unsubmitted';
  const graded = s != null && s.workflowState === 'graded' && (s.score != null || s.excused);
  let late = !excused && submittedAt != null && a.dueAt != null && submittedAt.getTime() > a.dueAt.getTime();
  let missing = !excused && !submitted && s?.score == null && a.dueAt != null && a.dueAt.getTime() < now && !a.types.every((t) => NOT_EXPECTED.has(t));
  if (s?.latePolicyStatus === 'late') late = !excused;
  if (s?.latePolicyStatus === 'missing') missing = !excused;
  if (s?.latePolicyStatus === 'none') late = missing = false;
  const needsGrading = submitted && !excused && (s!.workflowState === 'submitted' || s!.workflowState === 'pending_review' || !s!.gradeMatchesCurrentSubmission);
  return {
    submitted,
    excused,
    graded,
    // Grades are posted as soon as they are entered here.
    postedAt: graded ? (s!.gradedAt ?? null) : null,
    late,
    missing,
    needsGrading,
    // There are no submission comments in this service, so there is never feedback.
    hasFeedback: false,
    withFeedback: false,
    redoRequest: false,
  };
}
