import { Brackets } from 'typeorm';
import { ValidationError } from '../common/errors';
import { OrderColumn, pagePerParent, settleEach } from '../db/page-per-parent';
import type { RequestContext } from '../request/context';
import { ConnectionResult } from '../common/relay';
import { containsPattern } from '../common/like';
import { DiscussionContext, DiscussionContexts, DiscussionRights } from './discussion-context';
import { DiscussionTopic } from './discussion-topic.entity';
import { ORDERS } from './discussion.constants';
import type { TopicListArgs } from './topic-inputs';

/** Topic list reads: the topics or announcements of a context (or of many at once) that the viewer may see. */
export class TopicListService {
  private readonly contexts: DiscussionContexts;

  constructor(private readonly ctx: RequestContext) {
    // The request's instance: rights are cached per instance.
    this.contexts = ctx.use(DiscussionContexts);
  }

  /**
   * A context's topics (or, with onlyAnnouncements, its announcements) that the viewer may see.
   * Topics: pinned ones first in their order, then newest first; announcements newest posted first.
   */
  async list(contextType: string, contextRaw: string, args: TopicListArgs): Promise<ConnectionResult<DiscussionTopic>> {
    const context = await this.contexts.lookup(contextType, contextRaw);
    return this.listIn(context, args);
  }

  /** One context's list (as list). Batched across contexts of one type (listInMany): a list of courses each asking for its topics. */
  listIn(context: DiscussionContext, args: TopicListArgs): Promise<ConnectionResult<DiscussionTopic>> {
    return this.ctx.loaders.perParent(`discussions:${context.type}`, args, (contexts: readonly DiscussionContext[]) => this.listInMany(contexts, args)).load(context);
  }

  /**
   * One page of topics per context (all of one type) in one statement pair: moderators see drafts,
   * others active topics (and announcements once posted); a context the viewer may not read is
   * refused alone.
   */
  async listInMany(contexts: readonly DiscussionContext[], args: TopicListArgs): Promise<(ConnectionResult<DiscussionTopic> | Error)[]> {
    const orderBy = args.orderBy ?? 'position';
    // The permission first, as for one context: a refused caller learns nothing, not even about its arguments.
    const rights = await settleEach(contexts, async (c) => {
      const r = await this.contexts.readable(c);
      if (!(ORDERS as readonly string[]).includes(orderBy)) throw ValidationError.of('order_by', 'inclusion', `order_by must be one of ${ORDERS.join(', ')}`);
      return r;
    });
    const readable = contexts.filter((_, i) => !(rights[i] instanceof Error));
    const moderated = readable.filter((c) => (rights[contexts.indexOf(c)] as DiscussionRights).moderate).map((c) => c.id);
    const others = readable.filter((c) => !(rights[contexts.indexOf(c)] as DiscussionRights).moderate).map((c) => c.id);
    const qb = this.ctx.ds
      .getRepository(DiscussionTopic)
      .createQueryBuilder('t')
      .where('t.context_type = :ct', { ct: contexts[0]?.type })
      .andWhere('t.is_announcement = :ann', { ann: Boolean(args.onlyAnnouncements) })
      .andWhere(
        new Brackets((b) => {
          b.where('1 = 0');
          if (moderated.length) b.orWhere('(t.workflow_state <> :deleted AND t.context_id IN (:...moderated))', { deleted: 'deleted', moderated });
          if (others.length) {
            const posted = args.onlyAnnouncements ? ' AND (t.delayed_post_at IS NULL OR t.delayed_post_at <= :now)' : '';
            b.orWhere(`(t.workflow_state = :active AND t.context_id IN (:...others)${posted})`, { active: 'active', others, now: new Date() });
          }
        }),
      );
    const term = args.searchTerm?.trim();
    if (term) {
      const like = containsPattern(term);
      qb.andWhere(new Brackets((b) => b.where("LOWER(t.title) LIKE :like ESCAPE '!'", { like }).orWhere("LOWER(t.message) LIKE :like ESCAPE '!'", { like })));
    }
    // Nullable columns say so: a key set page after a value must also reach the NULLs sorted after it.
    const order: OrderColumn[] = args.onlyAnnouncements
      ? [['posted_at', 'DESC', true], ['id', 'DESC']]
      : orderBy === 'title'
        ? [['title', 'ASC'], ['id', 'ASC']]
        : orderBy === 'recent_activity'
          ? [['last_reply_at', 'DESC', true], ['posted_at', 'DESC', true], ['id', 'DESC']]
          : [['pinned', 'DESC'], ['position', 'ASC', true], ['created_at', 'DESC'], ['id', 'DESC']];
    const pages = await pagePerParent(qb, 'context_id', order, readable.map((c) => c.id), args);
    // The loader cache learns the rows, so per-topic lookups by id that follow cost nothing.
    for (const page of pages.values()) for (const r of page.nodes) this.ctx.loaders.byId(DiscussionTopic).prime(r.id, r);
    return contexts.map((c, i) => (rights[i] instanceof Error ? (rights[i] as Error) : pages.get(c.id)!));
  }
}
