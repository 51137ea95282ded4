import { ForbiddenError } from '../common/errors';
import { Course } from '../courses/course.entity';
import { Assignment } from '../content/assignments/assignment.entity';
import { Submission } from '../content/submissions/submission.entity';
import { DiscussionTopic } from '../discussions/discussion-topic.entity';
import type { RequestContext } from '../request/context';
import { ConnectionResult, pageWindow } from '../common/relay';
import { Group } from '../groups/group.entity';
import { PlannerOverride } from './planner-override.entity';
import { readOverrides, readParticipants, readPlannables, readUnreadCounts } from './planner-reads';
import { itemsWindow, parseContextCodes, resolveScope, ScopeArgs } from './planner-scope';
import { PlannableKind } from './plannables';
import { CourseService } from '../courses/course.service';
import { GroupPolicy } from '../groups/group-policy';

export interface PlannerItemsArgs extends ScopeArgs {
  first?: number | null;
  after?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  filter?: string | null;
  include?: string[] | null;
  order?: string | null;
}

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

/** Collections in Canvas's merge order: the tie-break after (date, id). */
const K = { assignment: 0, quiz: 1, note: 2, page: 3, topic: 4 } as const;
type Kind = (typeof K)[keyof typeof K];

export const PLANNER_FILTERS = ['new_activity', 'incomplete_items', 'complete_items', 'ungraded_todo_items', 'all_ungraded_todo_items'] as const;
export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 100;

/** Submission types that are never "missing" (nothing to turn in online), as the submissions area has them. */
const NOT_EXPECTED = new Set(['none', 'on_paper', 'not_graded', 'external_tool']);

/** The key set position of the last item of a page: (plannable date, id, collection). */
interface Cursor {
  d: Date;
  id: number;
  k: number;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.d.toISOString(), c.id, c.k])).toString('base64url');
}

/** An unreadable cursor is the first page, as Canvas treats a bad bookmark. */
export function decodeCursor(raw: string | null | undefined): Cursor | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!Array.isArray(v) || v.length !== 3) return null;
    const d = new Date(v[0]);
    if (Number.isNaN(d.getTime()) || !Number.isSafeInteger(v[1]) || !Number.isSafeInteger(v[2])) return null;
    return { d, id: v[1], k: v[2] };
  } catch {
    return null;
  }
}

/** A date as both engines compare it with their datetime columns (SQLite stores this exact text). */
const sqlDate = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '');
/** A datetime read back from a raw query: a Date (MySQL) or 'YYYY-MM-DD HH:MM:SS.mmm' text (SQLite). */
const readDate = (v: unknown): Date => (v instanceof Date ? v : new Date(`${String(v).replace(' ', 'T')}${/[zZ]|[+-]\d\d:?\d\d$/.test(String(v)) ? '' : 'Z'}`));
const ints = (xs: Iterable<number>) => [...xs].filter((x) => Number.isSafeInteger(x)).join(', ');

/** One SELECT of the union: rows (k, id, d) of one collection, with its conditions and parameters. */
class Branch {
  readonly where: string[] = [];
  readonly params: unknown[] = [];
  constructor(
    readonly k: Kind,
    readonly from: string,
    readonly alias: string,
    readonly dateExpr: string,
  ) {}

  and(cond: string, ...params: unknown[]): this {
    this.where.push(cond);
    this.params.push(...params);
    return this;
  }

  /** Key set condition: only rows after (or, descending, before) the cursor in (d, id, k) order. */
  after(c: Cursor, desc: boolean): this {
    const D = sqlDate(c.d);
    const op = desc ? '<' : '>';
    // Same date and id: this collection comes after the cursor's only when its rank does.
    const idOp = (desc ? this.k < c.k : this.k > c.k) ? `${op}=` : op;
    return this.and(`(${this.dateExpr} ${op} ? OR (${this.dateExpr} = ? AND ${this.alias}.id ${idOp} ${Math.trunc(c.id)}))`, D, D);
  }

  sql(): string {
    return `SELECT ${this.k} AS k, ${this.alias}.id AS id, ${this.dateExpr} AS d FROM ${this.from} ${this.alias} WHERE ${this.where.join(' AND ')}`;
  }
}

interface Plan {
  courses: Map<number, Course>;
  groups: Map<number, Group>;
  subjectId: number | null;
  branches: () => Branch[];
}

/** An edge whose cursor is encoded only when read: REST and most clients ask for pageInfo alone (issue 11). */
class ItemEdge {
  constructor(
    private readonly position: Cursor,
    readonly node: PlannerItemView | null,
  ) {}

  get cursor(): string {
    return encodeCursor(this.position);
  }
}

type ItemContext = Pick<PlannerItemView, 'contextType' | 'courseId' | 'groupId' | 'contextName'>;
const NO_CONTEXT: ItemContext = { contextType: null, courseId: null, groupId: null, contextName: null };

// Items and plannables are built whole, every field in one literal, then the kind's own fields set:
// one object shape for all rows. Spreading a blank object and overriding its keys was the page's
// hottest code (issue 11: a third of the service's time on a 50-item page).
function plannableView(id: number, title: string, courseId: number | null, createdAt: Date, updatedAt: Date): PlannableView {
  return { id, title, courseId, groupId: null, userId: null, todoDate: null, details: null, url: null, unreadCount: null, readState: null, assignmentId: null, pointsPossible: null, dueAt: null, workflowState: null, createdAt, updatedAt };
}

function itemView(
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

/**
 * The planner items list: every collection Canvas merges (assignments including quizzes and graded
 * discussions, ungraded quizzes, planner notes, wiki pages with a to-do date, ungraded discussions and
 * announcements) as one UNION ALL ordered by (date, id, collection), paged by key set. Then each kind's
 * rows, the user's overrides, submissions and read states are read in one batch each.
 */
export class PlannerItemsService {
  constructor(private readonly ctx: RequestContext) {}

  async list(args: PlannerItemsArgs): Promise<Omit<ConnectionResult<PlannerItemView>, 'totalCount'> & { readonly totalCount: Promise<number> }> {
    const filter = (PLANNER_FILTERS as readonly string[]).includes(args.filter ?? '') ? args.filter! : null;
    const includeConcluded = (args.include ?? []).includes('concluded');
    const { start, end } = itemsWindow(args.startDate, args.endDate);
    const desc = (args.order ?? '').toLowerCase() === 'desc';
    const plan = filter === 'all_ungraded_todo_items' ? await this.publicPlan(args, start, end) : await this.userPlan(args, filter, includeConcluded, start, end);
    const w = pageWindow({ first: args.first }, DEFAULT_PER_PAGE, MAX_PER_PAGE);
    const cursor = decodeCursor(args.after);

    const dir = desc ? 'DESC' : 'ASC';
    const page = plan.branches();
    if (cursor) for (const b of page) b.after(cursor, desc);
    const rows = page.length && w.limit > 0 ? await this.run(page, `ORDER BY u.d ${dir}, u.id ${dir}, u.k ${dir} LIMIT ${w.limit + 1}`) : [];
    const hasNext = rows.length > w.limit;
    const shown = rows.slice(0, w.limit);
    // Aligned with the rows; a row whose object vanished since the union read is left out.
    const hydrated = await this.hydrate(plan, shown);
    const kept = shown.map((r, i) => new ItemEdge(r, hydrated[i])).filter((e): e is ItemEdge & { node: PlannerItemView } => e.node != null);
    const items = kept.map((e) => e.node);
    const count = () => this.countAll(plan);
    return {
      nodes: items,
      edges: kept,
      // The next page starts after the last row read, shown or not.
      pageInfo: { hasNextPage: hasNext, hasPreviousPage: cursor != null, startCursor: kept.length ? kept[0].cursor : null, endCursor: shown.length ? encodeCursor(shown[shown.length - 1]) : null },
      // Counted only when a client asks for it: reading the property starts the count.
      get totalCount() {
        return count();
      },
    };
  }

  private async countAll(plan: Plan): Promise<number> {
    const all = plan.branches();
    if (!all.length) return 0;
    const [row] = await this.ctx.ds.query(`SELECT COUNT(*) AS n FROM (${all.map((b) => b.sql()).join(' UNION ALL ')}) u`, all.flatMap((b) => b.params));
    return Number(row?.n ?? 0);
  }

  private async run(branches: Branch[], tail: string): Promise<Cursor[]> {
    const sql = `SELECT u.k AS k, u.id AS id, u.d AS d FROM (${branches.map((b) => b.sql()).join(' UNION ALL ')}) u ${tail}`;
    const raw: { k: number | string; id: number | string; d: unknown }[] = await this.ctx.ds.query(sql, branches.flatMap((b) => b.params));
    return raw.map((r) => ({ k: Number(r.k), id: Number(r.id), d: readDate(r.d) }));
  }

  // ---- what to list -----------------------------------------------------------------------------

  private async userPlan(args: PlannerItemsArgs, filter: string | null, includeConcluded: boolean, start: Date, end: Date): Promise<Plan> {
    const scope = await resolveScope(this.ctx, { ...args, includeConcluded });
    const uid = scope.subject.id;
    const C = ints(scope.courses.keys());
    const G = ints(scope.groups.keys());
    const S = sqlDate(start);
    const E = sqlDate(end);
    const now = sqlDate(new Date());
    const topicContexts = () => {
      const parts = [C && `(t.context_type = 'Course' AND t.context_id IN (${C}))`, G && `(t.context_type = 'Group' AND t.context_id IN (${G}))`].filter(Boolean);
      return parts.length ? `(${parts.join(' OR ')})` : null;
    };
    const override = (type: string, idExpr: string) =>
      `EXISTS (SELECT 1 FROM planner_overrides o WHERE o.user_id = ${uid} AND o.marked_complete = 1 AND o.workflow_state <> 'deleted' AND o.plannable_type = '${type}' AND o.plannable_id = ${idExpr})`;
    const unread = (idExpr: string) =>
      `(NOT EXISTS (SELECT 1 FROM discussion_topic_participants p WHERE p.discussion_topic_id = ${idExpr} AND p.user_id = ${uid} AND p.workflow_state = 'read')` +
      ` OR EXISTS (SELECT 1 FROM discussion_entries e WHERE e.discussion_topic_id = ${idExpr} AND e.workflow_state = 'active' AND e.user_id <> ${uid}` +
      ` AND e.id > COALESCE((SELECT p2.last_read_entry_id FROM discussion_topic_participants p2 WHERE p2.discussion_topic_id = ${idExpr} AND p2.user_id = ${uid}), 0)))`;

    const assignments = (): Branch | null => {
      if (!C) return null;
      const b = new Branch(K.assignment, 'assignments', 'a', 'a.due_at').and(`a.course_id IN (${C}) AND a.workflow_state = 'published' AND a.due_at >= ? AND a.due_at <= ?`, S, E);
      const complete =
        `(${override('assignment', 'a.id')}` +
        ` OR EXISTS (SELECT 1 FROM quizzes q2 WHERE q2.assignment_id = a.id AND q2.workflow_state <> 'deleted' AND ${override('quiz', 'q2.id')})` +
        ` OR EXISTS (SELECT 1 FROM discussion_topics t2 WHERE t2.assignment_id = a.id AND t2.workflow_state <> 'deleted' AND ${override('discussion_topic', 't2.id')})` +
        ` OR EXISTS (SELECT 1 FROM submissions s WHERE s.assignment_id = a.id AND s.user_id = ${uid} AND s.submitted_at IS NOT NULL))`;
      if (filter === 'complete_items') b.and(complete);
      if (filter === 'incomplete_items') b.and(`NOT ${complete}`);
      if (filter === 'new_activity') b.and(`EXISTS (SELECT 1 FROM discussion_topics t3 WHERE t3.assignment_id = a.id AND t3.workflow_state = 'active' AND ${unread('t3.id')})`);
      return b;
    };
    const quizzes = (): Branch | null => {
      if (!C) return null;
      const b = new Branch(K.quiz, 'quizzes', 'q', 'q.due_at').and(
        `q.course_id IN (${C}) AND q.workflow_state = 'available' AND q.assignment_id IS NULL AND q.due_at >= ? AND q.due_at <= ?`,
        S,
        E,
      );
      const complete = `(${override('quiz', 'q.id')} OR EXISTS (SELECT 1 FROM quiz_submissions qs WHERE qs.quiz_id = q.id AND qs.user_id = ${uid} AND qs.finished_at IS NOT NULL))`;
      if (filter === 'complete_items') b.and(complete);
      if (filter === 'incomplete_items') b.and(`NOT ${complete}`);
      return b;
    };
    const notes = (): Branch | null => {
      const ctxs = [C && `n.course_id IN (${C})`, scope.userNotes && 'n.course_id IS NULL'].filter(Boolean);
      if (!ctxs.length) return null;
      const b = new Branch(K.note, 'planner_notes', 'n', 'n.todo_date').and(
        `n.user_id = ${uid} AND n.workflow_state = 'active' AND n.todo_date >= ? AND n.todo_date <= ? AND (${ctxs.join(' OR ')})`,
        S,
        E,
      );
      if (filter === 'complete_items') b.and(override('planner_note', 'n.id'));
      if (filter === 'incomplete_items') b.and(`NOT ${override('planner_note', 'n.id')}`);
      return b;
    };
    const pages = (): Branch | null => {
      if (!C) return null;
      const b = new Branch(K.page, 'wiki_pages', 'p', 'p.todo_date').and(`p.course_id IN (${C}) AND p.workflow_state = 'active' AND p.todo_date >= ? AND p.todo_date <= ?`, S, E);
      if (filter === 'complete_items') b.and(override('wiki_page', 'p.id'));
      if (filter === 'incomplete_items') b.and(`NOT ${override('wiki_page', 'p.id')}`);
      return b;
    };
    const topics = (): Branch | null => {
      const where = topicContexts();
      if (!where) return null;
      const b = new Branch(K.topic, 'discussion_topics', 't', 't.todo_date').and(
        `${where} AND t.workflow_state = 'active' AND t.is_announcement = 0 AND t.assignment_id IS NULL AND t.todo_date >= ? AND t.todo_date <= ?`,
        S,
        E,
      );
      if (filter === 'complete_items') b.and(override('discussion_topic', 't.id'));
      if (filter === 'incomplete_items') b.and(`NOT ${override('discussion_topic', 't.id')}`);
      if (filter === 'new_activity') b.and(unread('t.id'));
      return b;
    };
    const announcements = (): Branch | null => {
      const where = topicContexts();
      if (!where) return null;
      const date = 'COALESCE(t.todo_date, t.posted_at, t.created_at)';
      const b = new Branch(K.topic, 'discussion_topics', 't', date).and(
        `${where} AND t.workflow_state = 'active' AND t.is_announcement = 1 AND (t.delayed_post_at IS NULL OR t.delayed_post_at <= ?) AND ${date} >= ? AND ${date} <= ?`,
        now,
        S,
        E,
      );
      if (filter === 'complete_items') b.and(override('announcement', 't.id'));
      if (filter === 'incomplete_items') b.and(`NOT ${override('announcement', 't.id')}`);
      if (filter === 'new_activity') b.and(unread('t.id'));
      return b;
    };
    const build = (): Branch[] => {
      let makers: (() => Branch | null)[];
      if (filter === 'new_activity') makers = [assignments, topics, announcements];
      else if (filter === 'ungraded_todo_items') makers = [pages, topics, announcements];
      else makers = [assignments, quizzes, notes, pages, topics, announcements];
      return makers.map((m) => m()).filter((b): b is Branch => b != null);
    };
    return { courses: scope.courses, groups: scope.groups, subjectId: uid, branches: build };
  }

  /**
   * filter=all_ungraded_todo_items (Canvas's public-syllabus use): pages and ungraded discussions with
   * a to-do date in the listed contexts, unpublished ones too where the caller may see them. Open to
   * anonymous callers for public courses; a listed context the caller may not read is refused.
   */
  private async publicPlan(args: PlannerItemsArgs, start: Date, end: Date): Promise<Plan> {
    const codes = parseContextCodes(args.contextCodes);
    const viewer = this.ctx.viewer;
    const courses = new Map<number, Course>();
    const unpublishedToo = new Set<number>();
    const found = codes.courses.size ? await this.ctx.use(CourseService).loadMany([...codes.courses]) : [];
    for (const c of found) {
      if (!c || c.workflowState === 'deleted') throw new ForbiddenError();
      const readable = viewer ? await this.ctx.authz.canCourse(c, 'read') : false;
      if (!readable && !(c.isPublic && c.isAvailable)) {
        if (!viewer) this.ctx.authz.requireViewer();
        throw new ForbiddenError();
      }
      courses.set(c.id, c);
      if (viewer && (await this.ctx.authz.canCourse(c, 'view_unpublished_items'))) unpublishedToo.add(c.id);
    }
    const groups = new Map<number, Group>();
    if (codes.groups.size) {
      this.ctx.authz.requireViewer();
      for (const g of await this.ctx.loaders.byId(Group).loadMany([...codes.groups])) {
        if (!g || g instanceof Error || g.workflowState === 'deleted' || !(await this.ctx.use(GroupPolicy).rights(g)).read) throw new ForbiddenError();
        groups.set(g.id, g);
      }
    }
    const pub = ints([...courses.keys()].filter((id) => !unpublishedToo.has(id)));
    const unpub = ints(unpublishedToo);
    const G = ints(groups.keys());
    const S = sqlDate(start);
    const E = sqlDate(end);
    const byState = (col: string, published: string, live: string) =>
      [pub && `(${col} IN (${pub}) AND ${published})`, unpub && `(${col} IN (${unpub}) AND ${live})`].filter(Boolean) as string[];
    return {
      courses,
      groups,
      subjectId: viewer?.id ?? null,
      branches: () => {
        const out: Branch[] = [];
        const pageCtx = byState('p.course_id', "p.workflow_state = 'active'", "p.workflow_state IN ('active', 'unpublished')");
        if (pageCtx.length) out.push(new Branch(K.page, 'wiki_pages', 'p', 'p.todo_date').and(`(${pageCtx.join(' OR ')}) AND p.todo_date >= ? AND p.todo_date <= ?`, S, E));
        const topicCtx = [
          ...byState('t.context_id', "t.context_type = 'Course' AND t.workflow_state = 'active'", "t.context_type = 'Course' AND t.workflow_state IN ('active', 'unpublished')"),
          ...(G ? [`(t.context_type = 'Group' AND t.context_id IN (${G}) AND t.workflow_state = 'active')`] : []),
        ];
        if (topicCtx.length) {
          out.push(
            new Branch(K.topic, 'discussion_topics', 't', 't.todo_date').and(
              `(${topicCtx.join(' OR ')}) AND t.is_announcement = 0 AND t.assignment_id IS NULL AND t.todo_date >= ? AND t.todo_date <= ?`,
              S,
              E,
            ),
          );
        }
        return out;
      },
    };
  }

  // ---- building the items -----------------------------------------------------------------------

  private async hydrate(plan: Plan, rows: Cursor[]): Promise<(PlannerItemView | null)[]> {
    if (!rows.length) return [];
    const idsOf = (k: Kind) => rows.filter((r) => r.k === k).map((r) => r.id);
    const [aIds, qIds, nIds, pIds, tIds] = [idsOf(K.assignment), idsOf(K.quiz), idsOf(K.note), idsOf(K.page), idsOf(K.topic)];
    const uid = plan.subjectId;
    const ds = this.ctx.ds;
    const { assignments, backingQuizzes, backingTopics, submissions, quizzes, notes, pages, topics } = await readPlannables(
      ds,
      { assignments: aIds, quizzes: qIds, notes: nIds, pages: pIds, topics: tIds },
      uid,
    );
    const byId = <T extends { id: number }>(xs: T[]) => new Map(xs.map((x) => [x.id, x]));
    const [aMap, qMap, nMap, pMap, tMap] = [byId(assignments), byId(quizzes), byId(notes), byId(pages), byId(topics)];
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

    const base = this.ctx.baseUrl;
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
