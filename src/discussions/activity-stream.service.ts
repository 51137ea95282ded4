import { Brackets, SelectQueryBuilder } from 'typeorm';
import { STAFF_TYPES } from '../auth/permissions';
import { ForbiddenError } from '../common/errors';
import type { RequestContext } from '../request/context';
import { keysetConnection } from '../common/connection';
import { afterKey, KeyValue, KeyWindow, keyWindow, SortKey } from '../common/keyset';
import { dateKey, readDate } from '../common/sql-dates';
import { ConnectionResult } from '../common/relay';
import { DiscussionEntry } from './discussion-entry.entity';
import { DiscussionParticipant } from './discussion-participant.entity';
import { DiscussionTopic } from './discussion-topic.entity';
import { GroupService } from '../groups/group.service';
import { GroupPolicy } from '../groups/group-policy';
import { CourseService } from '../courses/course.service';
import { DiscussionService } from './discussion.service';

/** Canvas pages activity streams 21 items at a time. */
export const STREAM_PAGE_SIZE = 21;

/** The stream's order: newest activity first; activity_seq orders activity within one second, the id ties. */
const STREAM_ORDER: SortKey[] = [
  { expr: 't.activity_at', dir: 'DESC' },
  { expr: 't.activity_seq', dir: 'DESC' },
  { expr: 't.id', dir: 'DESC' },
];
/** Beyond this many courses and groups, the viewer's stream is one statement over all of them (SQLite allows 500 arms in a union). */
const MAX_STREAM_ARMS = 200;
const streamKey = (t: DiscussionTopic): KeyValue[] => [dateKey(t.activityAt), t.activitySeq, t.id];

/** Whose stream: one group's, one course's, or the viewer's across their courses and groups. */
export type StreamScope = { kind: 'Group'; id: number } | { kind: 'Course'; id: number } | { kind: 'User'; userId: number };

export interface StreamSummaryItem {
  type: string;
  unreadCount: number;
  count: number;
  notificationCategory: string | null;
}

/**
 * Activity streams, derived from the discussion topics and announcements of the scope's contexts:
 * every published topic that has been posted, newest activity (posting, a new top-level entry, a
 * change of content) first, as Canvas's stream items for DiscussionTopic and Announcement. The read
 * state is the viewer's read state of the topic, as Canvas copies it onto their stream item.
 */
export class ActivityStreamService {
  constructor(private readonly ctx: RequestContext) {}

  /** The scope of a path: a group or course the caller may read (403 otherwise), or the caller. */
  async scope(kind: string, raw?: string | null): Promise<StreamScope> {
    const viewer = this.ctx.authz.requireViewer();
    if (kind === 'Group') {
      const group = await this.ctx.use(GroupService).lookup(raw ?? '');
      if (!(await this.ctx.use(GroupPolicy).rights(group)).read) throw new ForbiddenError();
      return { kind: 'Group', id: group.id };
    }
    if (kind === 'Course') {
      const course = await this.ctx.use(CourseService).find(raw ?? '', 'read');
      return { kind: 'Course', id: course.id };
    }
    return { kind: 'User', userId: viewer.id };
  }

  private topics(scope: StreamScope): SelectQueryBuilder<DiscussionTopic> {
    const qb = this.ctx.ds
      .getRepository(DiscussionTopic)
      .createQueryBuilder('t')
      .where('t.workflow_state = :active', { active: 'active' })
      .andWhere('(t.delayed_post_at IS NULL OR t.delayed_post_at <= :now)', { now: new Date() });
    if (scope.kind !== 'User') return qb.andWhere('t.context_type = :ct AND t.context_id = :cid', { ct: scope.kind, cid: scope.id });
    // The viewer's contexts: courses they take part in (published ones, unless they teach there) and groups they belong to.
    return qb
      .andWhere(
        new Brackets((b) =>
          b
            .where(
              `t.context_type = 'Course' AND t.context_id IN (SELECT e.course_id FROM enrollments e INNER JOIN courses c ON c.id = e.course_id
                WHERE e.user_id = :uid AND e.workflow_state = 'active' AND c.workflow_state <> 'deleted'
                AND (c.workflow_state IN ('available', 'completed') OR e.type IN (:...staff)))`,
            )
            .orWhere(
              `t.context_type = 'Group' AND t.context_id IN (SELECT m.group_id FROM group_memberships m INNER JOIN groups g ON g.id = m.group_id
                WHERE m.user_id = :uid AND m.workflow_state = 'accepted' AND g.workflow_state = 'available' AND g.non_collaborative = :collab)`,
            ),
        ),
      )
      .setParameters({ uid: scope.userId, staff: [...STAFF_TYPES], collab: false });
  }

  /**
   * A page of the stream, newest activity first. Key set pages (GraphQL cursors carry activity_at,
   * activity_seq and id); Canvas's numbered REST pages come as old offset cursors and read only their
   * page. A course's or group's stream is read from the (context, activity_at, activity_seq, id) index,
   * seeking to the cursor; the total (Link rel="last", totalCount) is counted only when asked.
   */
  async stream(scope: StreamScope, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<DiscussionTopic>> {
    const w = keyWindow(args, STREAM_ORDER.length, STREAM_PAGE_SIZE);
    const rows = w.limit <= 0 ? [] : scope.kind === 'User' ? await this.viewerPage(scope.userId, w) : await this.page(this.topics(scope), w).getMany();
    for (const r of rows) this.ctx.loaders.byId(DiscussionTopic).prime(r.id, r);
    return keysetConnection(rows, w, streamKey, () => this.listed(this.topics(scope)).getCount());
  }

  /** Every published topic has an activity time (set when it is posted), so the order's first column holds no NULL and a cursor can seek on it. */
  private listed(qb: SelectQueryBuilder<DiscussionTopic>): SelectQueryBuilder<DiscussionTopic> {
    return qb.andWhere('t.activity_at IS NOT NULL');
  }

  /** The window's rows of `qb` in the stream's order: after the cursor's key, first + 1 of them (after an old cursor's offset). */
  private page(qb: SelectQueryBuilder<DiscussionTopic>, w: KeyWindow, read = w.limit + 1, offset = w.offset): SelectQueryBuilder<DiscussionTopic> {
    this.listed(qb);
    if (w.after) {
      const after = afterKey(STREAM_ORDER, w.after);
      let n = 0;
      const named: Record<string, unknown> = {};
      qb.andWhere(
        after.sql.replace(/\?/g, () => {
          named[`streamKey${n}`] = after.params[n];
          return `:streamKey${n++}`;
        }),
        named,
      );
    }
    STREAM_ORDER.forEach((k, i) => (i ? qb.addOrderBy(k.expr, k.dir) : qb.orderBy(k.expr, k.dir)));
    return qb.limit(read).offset(offset || undefined);
  }

  /**
   * A page of the viewer's own stream: each of their courses and groups is read from its (context,
   * activity) index after the cursor, first + 1 rows each, in one UNION ALL, and the newest of those
   * rows make the page (merged here: no temporary sort in the engines); the page's topics are then read
   * by id. Where the viewer has very many contexts, one statement over all of them instead.
   */
  private async viewerPage(userId: number, w: KeyWindow): Promise<DiscussionTopic[]> {
    const ds = this.ctx.ds;
    const staff = [...STAFF_TYPES];
    const contexts: { ct: string; id: unknown }[] = await ds.query(
      `SELECT 'Course' AS ct, e.course_id AS id FROM enrollments e INNER JOIN courses c ON c.id = e.course_id
        WHERE e.user_id = ? AND e.workflow_state = 'active' AND c.workflow_state <> 'deleted' AND (c.workflow_state IN ('available', 'completed') OR e.type IN (${staff.map(() => '?').join(', ')}))
       UNION SELECT 'Group' AS ct, m.group_id AS id FROM group_memberships m INNER JOIN ${ds.driver.escape('groups')} g ON g.id = m.group_id
        WHERE m.user_id = ? AND m.workflow_state = 'accepted' AND g.workflow_state = 'available' AND g.non_collaborative = 0`,
      [userId, ...staff, userId],
    );
    if (!contexts.length) return [];
    if (contexts.length > MAX_STREAM_ARMS) return this.page(this.topics({ kind: 'User', userId }), w).getMany();
    // Each arm reads the page's rows and those an old offset cursor skips; the offset applies to the merge.
    const read = w.offset + w.limit + 1;
    const sqls: string[] = [];
    const params: unknown[] = [];
    contexts.forEach((c, i) => {
      const qb = this.topics({ kind: c.ct === 'Group' ? 'Group' : 'Course', id: Number(c.id) })
        .select('t.id', 'id')
        .addSelect('t.activity_at', 'at')
        .addSelect('t.activity_seq', 'seq');
      const [sql, ps] = this.page(qb, w, read, 0).getQueryAndParameters();
      sqls.push(`SELECT s${i}.* FROM (${sql}) s${i}`);
      params.push(...ps);
    });
    const rows: { id: unknown; at: unknown; seq: unknown }[] = await ds.query(sqls.join(' UNION ALL '), params);
    const keyed = rows.map((r) => ({ id: Number(r.id), at: readDate(r.at).getTime(), seq: Number(r.seq) }));
    keyed.sort((a, b) => b.at - a.at || b.seq - a.seq || b.id - a.id);
    const ids = keyed.slice(w.offset, read).map((r) => r.id);
    const topics = await this.ctx.loaders.byId(DiscussionTopic).loadMany(ids);
    return topics.filter((t): t is DiscussionTopic => t != null && !(t instanceof Error));
  }

  /** Counts per item type (Announcement, DiscussionTopic), sorted by type, as Canvas's summary. */
  async summary(scope: StreamScope): Promise<StreamSummaryItem[]> {
    const rows: { ann: number | string | boolean; n: number | string; unread: number | string | null }[] = await this.topics(scope)
      .leftJoin(DiscussionParticipant, 'p', 'p.discussion_topic_id = t.id AND p.user_id = :viewer', { viewer: this.ctx.viewer?.id ?? -1 })
      .select('t.is_announcement', 'ann')
      .addSelect('COUNT(*)', 'n')
      .addSelect("SUM(CASE WHEN p.workflow_state = 'read' THEN 0 ELSE 1 END)", 'unread')
      .groupBy('t.is_announcement')
      .getRawMany();
    return rows
      .map((r) => ({
        type: Number(r.ann) ? 'Announcement' : 'DiscussionTopic',
        unreadCount: Number(r.unread ?? 0),
        count: Number(r.n),
        notificationCategory: null,
      }))
      .filter((r) => r.count > 0)
      .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  }

  // ---- per-item facts ---------------------------------------------------------------------------

  /** Null unless the topic requires an initial post; then whether the viewer may see the responses. */
  async userHasPosted(topic: DiscussionTopic): Promise<boolean | null> {
    const sees = await this.ctx.use(DiscussionService).userCanSeePosts(topic);
    return topic.requireInitialPost ? sees : null;
  }

  /** The latest three top-level entries, hidden from a student who has yet to post in a require_initial_post topic. */
  async rootEntries(topic: DiscussionTopic): Promise<DiscussionEntry[]> {
    // Loaded alongside the check, so every item of a page joins the same batch.
    const [posted, entries] = await Promise.all([this.userHasPosted(topic), this.ctx.use(DiscussionService).loaders.recentRootEntries(topic.id)]);
    return posted === false ? [] : entries;
  }
}
