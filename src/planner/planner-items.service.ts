import { ForbiddenError } from '../common/errors';
import { Course } from '../courses/course.entity';
import type { RequestContext } from '../request/context';
import { ConnectionResult, pageWindow } from '../common/relay';
import { Group } from '../groups/group.entity';
import { itemsWindow, parseContextCodes, resolveScope, ScopeArgs } from './planner-scope';
import { CourseService } from '../courses/course.service';
import { GroupPolicy } from '../groups/group-policy';
import { Branch, Cursor, decodeCursor, DEFAULT_PER_PAGE, encodeCursor, ints, ItemEdge, K, MAX_PER_PAGE, Plan, PLANNER_FILTERS, PlannerItemsPage, readDate, sqlDate } from './planner-query';
import type { PlannerItemView } from './planner-item-view';
import { hydratePlannerItems } from './planner-hydrate';
import { unionOfReads } from '../db/union-pages';

export interface PlannerItemsArgs extends ScopeArgs {
  first?: number | null;
  after?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  filter?: string | null;
  include?: string[] | null;
  order?: string | null;
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
    const rows = page.length && w.limit > 0 ? await this.readPage(page, dir, w.limit + 1) : [];
    const hasNext = rows.length > w.limit;
    const shown = rows.slice(0, w.limit);
    // Aligned with the rows; a row whose object vanished since the union read is left out.
    const hydrated = await hydratePlannerItems(this.ctx, plan, shown);
    const kept = shown.map((r, i) => new ItemEdge(r, hydrated[i])).filter((e): e is ItemEdge & { node: PlannerItemView } => e.node != null);
    const items = kept.map((e) => e.node);
    const count = () => this.countAll(plan);
    // The next page starts after the last row read, shown or not.
    const pageInfo = { hasNextPage: hasNext, hasPreviousPage: cursor != null, startCursor: kept.length ? kept[0].cursor : null, endCursor: shown.length ? encodeCursor(shown[shown.length - 1]) : null };
    return new PlannerItemsPage(items, kept, pageInfo, count);
  }

  private async countAll(plan: Plan): Promise<number> {
    const all = plan.branches();
    if (!all.length) return 0;
    const [row] = await this.ctx.ds.query(`SELECT COUNT(*) AS n FROM (${all.map((b) => b.sql()).join(' UNION ALL ')}) u`, all.flatMap((b) => b.params));
    return Number(row?.n ?? 0);
  }

  /**
   * The page: each collection's first `n` rows after the cursor (its own index range, in order, LIMITed),
   * merged here and cut to `n`. A union of whole collections sorted at the end read every item of the
   * window (2,000 notes for a page of 50); an ORDER BY over the union made SQLite sort each read again
   * to merge them, which cost more than the merge of at most collections × n rows in JavaScript
   * (docs/PERFORMANCE.md, eleventh round).
   */
  private async readPage(branches: Branch[], dir: 'ASC' | 'DESC', n: number): Promise<Cursor[]> {
    const union = unionOfReads(branches.map((b) => ({ sql: b.page(dir, n), params: b.params })));
    const raw: { k: number | string; id: number | string; d: unknown }[] = await this.ctx.ds.query(union.sql, union.params);
    const sign = dir === 'DESC' ? -1 : 1;
    // The database's own order: SQLite compares its datetime text, which the bookmark's condition
    // compares too (a date stored without milliseconds sorts before the same instant with them).
    raw.sort((a, b) => sign * (compareDates(a.d, b.d) || Number(a.id) - Number(b.id) || Number(a.k) - Number(b.k)));
    return (raw.length > n ? raw.slice(0, n) : raw).map((r) => ({ k: Number(r.k), id: Number(r.id), d: readDate(r.d) }));
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
    // Calendar events of the user's contexts (their own calendar with the user's code), section events of
    // the sections the user is enrolled in; a parent of section events is hidden.
    const events = (): Branch | null => {
      const courseCodes = [...scope.courses.keys()].map((id) => `'course_${Math.trunc(id)}'`);
      const codes = [...courseCodes, ...[...scope.groups.keys()].map((id) => `'group_${Math.trunc(id)}'`)];
      if (scope.userNotes) codes.push(`'user_${uid}'`);
      const parts = [codes.length && `(e.context_code IN (${codes.join(', ')}) AND e.hidden = 0)`];
      if (C) {
        // A section's event carries its course as its effective context: found from that index, not by
        // a scan of every section event of the installation.
        parts.push(
          `(e.effective_context_code IN (${courseCodes.join(', ')}) AND e.context_type = 'CourseSection' AND e.context_id IN (SELECT en.course_section_id FROM enrollments en WHERE en.user_id = ${uid} AND en.course_id IN (${C}) AND en.workflow_state = 'active'))`,
        );
      }
      const where = parts.filter(Boolean);
      if (!where.length) return null;
      const b = new Branch(K.event, 'calendar_events', 'e', 'e.start_at').and(`e.workflow_state = 'active' AND (${where.join(' OR ')}) AND e.start_at >= ? AND e.start_at <= ?`, S, E);
      if (filter === 'complete_items') b.and(override('calendar_event', 'e.id'));
      if (filter === 'incomplete_items') b.and(`NOT ${override('calendar_event', 'e.id')}`);
      return b;
    };
    const build = (): Branch[] => {
      let makers: (() => Branch | null)[];
      if (filter === 'new_activity') makers = [assignments, topics, announcements];
      else if (filter === 'ungraded_todo_items') makers = [pages, topics, announcements];
      else makers = [assignments, quizzes, notes, pages, topics, announcements, events];
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
}

/** Two dates as the database orders them: SQLite's text by its characters, MySQL's Date objects by time. */
function compareDates(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return readDate(a).getTime() - readDate(b).getTime();
}
