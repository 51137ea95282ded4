import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { Assignment } from '../content/assignments/assignment.entity';
import { WikiPage } from '../content/pages/page.entity';
import { Quiz } from '../content/quizzes/quiz.entity';
import { Submission } from '../content/submissions/submission.entity';
import { DiscussionParticipant } from '../discussions/discussion-participant.entity';
import { DiscussionTopic } from '../discussions/discussion-topic.entity';
import { leanRows, selectColumns } from '../db/lean-read';
import { PlannerNote } from './planner-note.entity';
import { PlannerOverride } from './planner-override.entity';
import { CalendarEvent } from '../calendar-events/calendar-event.entity';

/**
 * The rows a page of planner items is built from, one plain statement per kind mapped by leanRows:
 * only the columns the items show (what planner-items.service.ts reads; the others stay unset on these
 * entities, which never leave the planner), instead of repository.find's query builder and full-entity
 * hydration, which cost more than the SQL on this hot list. Overrides are whole: they are returned as
 * they are.
 */
const COLUMNS = {
  assignment: ['id', 'courseId', 'name', 'pointsPossible', 'dueAt', 'submissionTypes', 'createdAt', 'updatedAt'],
  quiz: ['id', 'courseId', 'assignmentId', 'title', 'pointsPossible', 'dueAt', 'createdAt', 'updatedAt'],
  topic: ['id', 'contextType', 'contextId', 'assignmentId', 'title', 'isAnnouncement', 'todoDate', 'createdAt', 'updatedAt'],
  submission: ['assignmentId', 'workflowState', 'submittedAt', 'score', 'excused', 'gradedAt', 'latePolicyStatus', 'gradeMatchesCurrentSubmission'],
  note: ['id', 'userId', 'courseId', 'title', 'details', 'todoDate', 'workflowState', 'createdAt', 'updatedAt'],
  page: ['id', 'courseId', 'title', 'url', 'todoDate', 'createdAt', 'updatedAt'],
  participant: ['discussionTopicId', 'workflowState'],
  event: ['id', 'contextType', 'contextId', 'effectiveContextCode', 'title', 'description', 'locationName', 'locationAddress', 'startAt', 'endAt', 'allDay', 'createdAt', 'updatedAt'],
} as const;

export interface PlannableRows {
  assignments: Assignment[];
  /** Quizzes and graded discussions behind the assignments. */
  backingQuizzes: Quiz[];
  backingTopics: DiscussionTopic[];
  submissions: Submission[];
  quizzes: Quiz[];
  notes: PlannerNote[];
  pages: WikiPage[];
  topics: DiscussionTopic[];
  events: CalendarEvent[];
}

const marks = (xs: readonly unknown[]) => xs.map(() => '?').join(', ');

/** Rows of `entity` (the listed columns, or all) from `table` where `where`; nothing to read when `ids` is empty. */
async function read<T extends ObjectLiteral>(
  ds: DataSource,
  entity: EntityTarget<T>,
  props: readonly string[] | undefined,
  where: string,
  params: unknown[],
  ids: readonly number[],
): Promise<T[]> {
  if (!ids.length) return [];
  const table = ds.getMetadata(entity).tableName;
  // These entities are plain (no relations or embedded columns): leanRows always maps them.
  return (await leanRows<T>(ds, entity, `SELECT ${selectColumns(ds, entity, 'x', props)} FROM ${ds.driver.escape(table)} x WHERE ${where}`, [...params, ...ids]))!;
}

/** The plannables of one page by kind, with the subject's submissions for its assignments. */
export async function readPlannables(
  ds: DataSource,
  ids: { assignments: number[]; quizzes: number[]; notes: number[]; pages: number[]; topics: number[]; events: number[] },
  userId: number | null,
): Promise<PlannableRows> {
  const a = ids.assignments;
  const [assignments, backingQuizzes, backingTopics, submissions, quizzes, notes, pages, topics, events] = await Promise.all([
    read(ds, Assignment, COLUMNS.assignment, `x.id IN (${marks(a)})`, [], a),
    read(ds, Quiz, COLUMNS.quiz, `x.assignment_id IN (${marks(a)}) AND x.workflow_state <> 'deleted'`, [], a),
    read(ds, DiscussionTopic, COLUMNS.topic, `x.assignment_id IN (${marks(a)}) AND x.workflow_state <> 'deleted'`, [], a),
    userId == null ? [] : read(ds, Submission, COLUMNS.submission, `x.user_id = ? AND x.assignment_id IN (${marks(a)})`, [userId], a),
    read(ds, Quiz, COLUMNS.quiz, `x.id IN (${marks(ids.quizzes)})`, [], ids.quizzes),
    read(ds, PlannerNote, COLUMNS.note, `x.id IN (${marks(ids.notes)})`, [], ids.notes),
    read(ds, WikiPage, COLUMNS.page, `x.id IN (${marks(ids.pages)})`, [], ids.pages),
    read(ds, DiscussionTopic, COLUMNS.topic, `x.id IN (${marks(ids.topics)})`, [], ids.topics),
    read(ds, CalendarEvent, COLUMNS.event, `x.id IN (${marks(ids.events)})`, [], ids.events),
  ]);
  return { assignments, backingQuizzes, backingTopics, submissions, quizzes, notes, pages, topics, events };
}

/** The subject's live overrides of the shown plannables (whole rows: the items carry them). */
export function readOverrides(ds: DataSource, userId: number, plannableIds: number[]): Promise<PlannerOverride[]> {
  return read(ds, PlannerOverride, undefined, `x.user_id = ? AND x.plannable_id IN (${marks(plannableIds)}) AND x.workflow_state <> 'deleted'`, [userId], plannableIds);
}

/** The subject's read states of the topics. */
export function readParticipants(ds: DataSource, userId: number, topicIds: number[]): Promise<DiscussionParticipant[]> {
  return read(ds, DiscussionParticipant, COLUMNS.participant, `x.user_id = ? AND x.discussion_topic_id IN (${marks(topicIds)})`, [userId], topicIds);
}

/** Entries of each topic the subject has not read (others' live entries past their last read one). */
export async function readUnreadCounts(ds: DataSource, userId: number, topicIds: number[]): Promise<Map<number, number>> {
  if (!topicIds.length) return new Map();
  const rows: { tid: number | string; n: number | string }[] = await ds.query(
    `SELECT e.discussion_topic_id AS tid, COUNT(*) AS n FROM discussion_entries e` +
      ` LEFT JOIN discussion_topic_participants p ON p.discussion_topic_id = e.discussion_topic_id AND p.user_id = ?` +
      ` WHERE e.discussion_topic_id IN (${marks(topicIds)}) AND e.workflow_state = 'active' AND e.user_id <> ? AND e.id > COALESCE(p.last_read_entry_id, 0)` +
      ` GROUP BY e.discussion_topic_id`,
    [userId, ...topicIds, userId],
  );
  return new Map(rows.map((r) => [Number(r.tid), Number(r.n)]));
}
