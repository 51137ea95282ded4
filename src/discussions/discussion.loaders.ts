import DataLoader from 'dataloader';
import { In } from 'typeorm';
import { leanRows, selectColumns } from '../db/lean-read';
import type { RequestContext } from '../request/context';
import { DiscussionEntry } from './discussion-entry.entity';
import { DiscussionParticipant } from './discussion-participant.entity';

/** Canvas's stream items carry the latest three top-level entries; entry JSON the latest ten replies. */
export const STREAM_ENTRY_LIMIT = 3;
export const RECENT_REPLIES_LIMIT = 10;

/**
 * Per-request loaders of the discussions area. Each turns the per-topic (or per-entry) lookups of a
 * whole list into one statement, so listing topics costs the same whatever the list's length.
 */
export class DiscussionLoaders {
  constructor(private readonly ctx: RequestContext) {}

  private get viewerId(): number {
    return this.ctx.viewer?.id ?? -1;
  }

  /** Counts of active replies per top-level entry (a repliesConnection's totalCount). */
  replyCount(): DataLoader<number, number> {
    return this.ctx.loaders.get('discussions:replyCount', () =>
      new DataLoader<number, number>(async (ids) => {
        const rows: { rid: number; n: number | string }[] = await this.ctx.ds
          .getRepository(DiscussionEntry)
          .createQueryBuilder('e')
          .select('e.root_entry_id', 'rid')
          .addSelect('COUNT(*)', 'n')
          .where('e.root_entry_id IN (:...ids) AND e.workflow_state = :active', { ids: [...ids], active: 'active' })
          .groupBy('e.root_entry_id')
          .getRawMany();
        const map = new Map(rows.map((r) => [Number(r.rid), Number(r.n)]));
        return ids.map((id) => map.get(id) ?? 0);
      }),
    );
  }

  /** Counts of active entries per topic: all of them, or top-level ones only. */
  entryCount(rootOnly: boolean): DataLoader<number, number> {
    return this.ctx.loaders.get(`discussions:entryCount:${rootOnly}`, () =>
      new DataLoader<number, number>(async (ids) => {
        const qb = this.ctx.ds
          .getRepository(DiscussionEntry)
          .createQueryBuilder('e')
          .select('e.discussion_topic_id', 'tid')
          .addSelect('COUNT(*)', 'n')
          .where('e.discussion_topic_id IN (:...ids) AND e.workflow_state = :active', { ids: [...ids], active: 'active' });
        if (rootOnly) qb.andWhere('e.parent_id IS NULL');
        const rows: { tid: number; n: number | string }[] = await qb.groupBy('e.discussion_topic_id').getRawMany();
        const map = new Map(rows.map((r) => [Number(r.tid), Number(r.n)]));
        return ids.map((id) => map.get(id) ?? 0);
      }),
    );
  }

  /**
   * The newest active entries per key (a topic's top-level entries, or the replies under a top-level
   * entry), older than the entry `before` (a key set cursor: newest first, the id is the whole key) with
   * `offset` and `limit` applied per key, in one statement: the ids come from a UNION ALL of small
   * per-key range scans of the (key, …, state, id) indexes, each seeking to the cursor and reading only
   * the rows it returns; the rows with them.
   */
  private newest(key: string, column: 'discussion_topic_id' | 'root_entry_id', offset: number, limit: number, before: number | null = null): DataLoader<number, DiscussionEntry[]> {
    if (before != null && !Number.isSafeInteger(before)) throw new Error(`bad cursor id ${before}`);
    return this.ctx.loaders.get(`discussions:${key}:${offset}:${limit}:${before ?? ''}`, () =>
      new DataLoader<number, DiscussionEntry[]>(
        async (keys) => {
          const roots = column === 'discussion_topic_id' ? ' AND x.parent_id IS NULL' : '';
          const older = before == null ? '' : ` AND x.id < ${before}`;
          // Keys are integers (ids), so they are written into the statement; the derived tables let MySQL take LIMIT inside IN.
          const ids = keys
            .map((k, i) => {
              if (!Number.isSafeInteger(k)) throw new Error(`bad key ${k}`);
              return `SELECT b${i}.id FROM (SELECT x.id FROM discussion_entries x WHERE x.${column} = ${k} AND x.workflow_state = 'active'${roots}${older}
                ORDER BY x.id DESC LIMIT ${Math.trunc(limit)} OFFSET ${Math.trunc(offset)}) b${i}`;
            })
            .join(' UNION ALL ');
          // The rows by a join to the ids' derived table: with `id IN (… UNION ALL …)` MariaDB ran the
          // union per row of the whole table. No ORDER BY on the outer read (a sort of the union's rows
          // in a temporary table): the few rows read are put in order here, newest first.
          const sql = `SELECT ${selectColumns(this.ctx.ds, DiscussionEntry, 'e')} FROM (${ids}) p INNER JOIN discussion_entries e ON e.id = p.id`;
          // DiscussionEntry is a plain entity (no relations or embedded columns): leanRows always maps it.
          const rows = (await leanRows(this.ctx.ds, DiscussionEntry, sql, []))!.sort((a, b) => b.id - a.id);
          const by = new Map<number, DiscussionEntry[]>(keys.map((k) => [k, []]));
          for (const r of rows) {
            this.ctx.loaders.byId(DiscussionEntry).prime(r.id, r);
            by.get(column === 'discussion_topic_id' ? r.discussionTopicId : r.rootEntryId!)?.push(r);
          }
          return keys.map((k) => by.get(k)!);
        },
        { maxBatchSize: 100 },
      ),
    );
  }

  /** The latest `limit` active top-level entries of each topic, oldest of them first (as Canvas's stream). */
  async recentRootEntries(topicId: number, limit = STREAM_ENTRY_LIMIT): Promise<DiscussionEntry[]> {
    return [...(await this.newest('roots', 'discussion_topic_id', 0, limit).load(topicId))].reverse();
  }

  /** A page of a topic's active top-level entries, newest first, older than the entry `before` when given. */
  rootEntriesPage(topicId: number, offset: number, limit: number, before: number | null = null): Promise<DiscussionEntry[]> {
    return this.newest('roots', 'discussion_topic_id', offset, limit, before).load(topicId);
  }

  /** A page of the active replies under a top-level entry, newest first, older than the entry `before` when given. */
  repliesPage(rootEntryId: number, offset: number, limit: number, before: number | null = null): Promise<DiscussionEntry[]> {
    return this.newest('replies', 'root_entry_id', offset, limit, before).load(rootEntryId);
  }

  /** The latest replies under each top-level entry, newest first; one more than shown, to tell if there are more. */
  recentReplies(rootEntryId: number): Promise<DiscussionEntry[]> {
    return this.newest('replies', 'root_entry_id', 0, RECENT_REPLIES_LIMIT + 1).load(rootEntryId);
  }

  /** Whether the viewer has an active entry in each topic. */
  viewerPosted(): DataLoader<number, boolean> {
    return this.ctx.loaders.get('discussions:viewerPosted', () =>
      new DataLoader<number, boolean>(async (ids) => {
        if (!this.ctx.viewer) return ids.map(() => false);
        const rows: { tid: number }[] = await this.ctx.ds
          .getRepository(DiscussionEntry)
          .createQueryBuilder('e')
          .select('DISTINCT e.discussion_topic_id', 'tid')
          .where('e.user_id = :uid AND e.discussion_topic_id IN (:...ids) AND e.workflow_state = :active', { uid: this.viewerId, ids: [...ids], active: 'active' })
          .getRawMany();
        const posted = new Set(rows.map((r) => Number(r.tid)));
        return ids.map((id) => posted.has(id));
      }),
    );
  }

  /** The viewer's read-state row of each topic, if any. */
  viewerParticipant(): DataLoader<number, DiscussionParticipant | null> {
    return this.ctx.loaders.get('discussions:viewerParticipant', () =>
      new DataLoader<number, DiscussionParticipant | null>(async (ids) => {
        if (!this.ctx.viewer) return ids.map(() => null);
        const rows = await this.ctx.ds.getRepository(DiscussionParticipant).findBy({ userId: this.viewerId, discussionTopicId: In([...ids]) });
        const map = new Map(rows.map((r) => [r.discussionTopicId, r]));
        return ids.map((id) => map.get(id) ?? null);
      }),
    );
  }

  /** Active entries of others the viewer has not read, per topic. */
  unreadCount(): DataLoader<number, number> {
    return this.ctx.loaders.get('discussions:unreadCount', () =>
      new DataLoader<number, number>(async (ids) => {
        if (!this.ctx.viewer) return ids.map(() => 0);
        const rows: { tid: number; n: number | string }[] = await this.ctx.ds
          .getRepository(DiscussionEntry)
          .createQueryBuilder('e')
          .leftJoin(DiscussionParticipant, 'p', 'p.discussion_topic_id = e.discussion_topic_id AND p.user_id = :uid')
          .select('e.discussion_topic_id', 'tid')
          .addSelect('COUNT(*)', 'n')
          .where('e.discussion_topic_id IN (:...ids) AND e.workflow_state = :active AND e.user_id <> :uid', { ids: [...ids], active: 'active' })
          .andWhere('e.id > COALESCE(p.last_read_entry_id, 0)')
          .setParameter('uid', this.viewerId)
          .groupBy('e.discussion_topic_id')
          .getRawMany();
        const map = new Map(rows.map((r) => [Number(r.tid), Number(r.n)]));
        return ids.map((id) => map.get(id) ?? 0);
      }),
    );
  }
}
