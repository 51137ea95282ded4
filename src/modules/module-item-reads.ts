import DataLoader from 'dataloader';
import { In } from 'typeorm';
import { afterKey, KeyWindow, orderSql, SortKey } from '../common/keyset';
import { leanRows, selectColumns } from '../db/lean-read';
import type { RequestContext } from '../request/context';
import { ContentInfo, loadContent } from './content-registry';
import { ModuleItem } from './module-item.entity';
import { ItemAudience, itemVisibilitySql, marks, MAX_EMBEDDED_ITEMS, SqlPart, titleContains } from './module-item-sql';
import { ModuleItemView, ModuleView } from './module-views';
import { itemLinked, itemVisibleToStudents, withheldItem } from './module-visibility';
import { MasteryPathReads } from './mastery-path-reads';

export { MAX_EMBEDDED_ITEMS };

/** A module's items in list order, on the (module_id, position, id) index. */
export const ITEM_ORDER: readonly SortKey[] = [
  { expr: 'mi.position', dir: 'ASC' },
  { expr: 'mi.id', dir: 'ASC' },
];
export const itemKey = (v: ModuleItemView) => [v.item.position, v.item.id];

/** Module items as a viewer sees them, read per request; progress, sequences and mastery paths build on it. */
export class ModuleItemReads {
  constructor(private readonly ctx: RequestContext) {}

  /** Live items of modules, by module, in position order (batched). */
  private itemsLoader(): DataLoader<number, ModuleItem[]> {
    return this.ctx.loaders.manyBy(ModuleItem, 'moduleId', { workflowState: In(['active', 'unpublished']) }, { position: 'ASC', id: 'ASC' } as never);
  }

  /** Content objects of items, batched per kind across every module (and course) of the request. */
  contentOf(courseId: number, item: ModuleItem): Promise<ContentInfo | null> {
    return item.contentId == null ? Promise.resolve(null) : loadContent(this.ctx, item.contentType, courseId, item.contentId);
  }

  /**
   * Items of a module the viewer sees: everything live for content managers, published items whose
   * content exists for everyone else. Reads every item of the module: lists page with page() instead.
   */
  async visibleItems(view: ModuleView): Promise<ModuleItemView[]> {
    return this.shown(view, await this.itemsLoader().load(view.module.id));
  }

  /** Views of items read for `view`, with the rules applied to their loaded content (the SQL already applied them). */
  private async shown(view: ModuleView, items: ModuleItem[]): Promise<ModuleItemView[]> {
    const withContent = await Promise.all(items.map(async (it) => new ModuleItemView(it, view, await this.contentOf(view.course.id, it))));
    if (view.showPublished) return withContent.filter((v) => itemLinked(v.item, v.content));
    const withheld = await this.ctx.use(MasteryPathReads).withheldFor(view.course, view.student);
    return withContent.filter((v) => itemVisibleToStudents(v.item, v.content) && !withheldItem(v.content, withheld));
  }

  private async audience(view: ModuleView): Promise<ItemAudience> {
    return { showPublished: view.showPublished, withheld: view.showPublished ? new Set() : await this.ctx.use(MasteryPathReads).withheldFor(view.course, view.student) };
  }

  /** The item visibility condition for `view`. */
  async visibilitySql(view: ModuleView, alias = 'mi'): Promise<SqlPart> {
    return itemVisibilitySql(await this.audience(view), alias);
  }

  /** The statement's WHERE for a module's visible items (matching `term`). */
  private async where(view: ModuleView, term: string | null): Promise<SqlPart> {
    const vis = await this.visibilitySql(view);
    const parts = ['mi.module_id = ?', vis.sql];
    const params = [view.module.id, ...vis.params];
    if (term) {
      const t = titleContains('mi.title', term);
      parts.push(t.sql);
      params.push(...t.params);
    }
    return { sql: parts.join(' AND '), params };
  }

  /**
   * One page of a module's visible items: the rows after the window's key (or its legacy offset), read
   * with LIMIT limit + 1 on the (module_id, position, id) index.
   */
  async page(view: ModuleView, w: KeyWindow, term: string | null): Promise<ModuleItemView[]> {
    const where = await this.where(view, term);
    const params = [...where.params];
    let sql = where.sql;
    if (w.after) {
      const k = afterKey(ITEM_ORDER, w.after);
      sql += ` AND ${k.sql}`;
      params.push(...k.params);
    }
    const ds = this.ctx.ds;
    const tail = ` LIMIT ${w.limit + 1}${w.offset > 0 ? ` OFFSET ${w.offset}` : ''}`;
    const rows = await leanRows(ds, ModuleItem, `SELECT ${selectColumns(ds, ModuleItem, 'mi')} FROM module_items mi WHERE ${sql} ORDER BY ${orderSql(ITEM_ORDER)}${tail}`, params);
    // These entities are plain (no relations or embedded columns): leanRows always maps them.
    return this.shown(view, rows!);
  }

  /** How many items page() would list in all (totalCount, a Link rel="last"): only when asked. */
  async count(view: ModuleView, term: string | null): Promise<number> {
    const where = await this.where(view, term);
    const rows: { n: number | string }[] = await this.ctx.ds.query(`SELECT COUNT(*) AS n FROM module_items mi WHERE ${where.sql}`, where.params);
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * The first MAX_EMBEDDED_ITEMS + 1 visible items of each module asked in this tick, in one
   * statement (a LIMIT per module, glued with UNION ALL): embedded item lists never read a long module.
   */
  async firstItems(view: ModuleView): Promise<ModuleItemView[]> {
    const vis = await this.visibilitySql(view);
    const ds = this.ctx.ds;
    const loader = this.ctx.loaders.get(`modules:first-items:${view.course.id}:${view.showPublished}:${view.student}`, () =>
      new DataLoader<number, ModuleItem[]>(async (ids) => {
        const one = `SELECT ${selectColumns(ds, ModuleItem, 'mi')} FROM module_items mi WHERE mi.module_id = ? AND ${vis.sql} ORDER BY ${orderSql(ITEM_ORDER)} LIMIT ${MAX_EMBEDDED_ITEMS + 1}`;
        const sql = ids.map((_, i) => `SELECT * FROM (${one}) t${i}`).join(' UNION ALL ');
        const rows = (await leanRows(ds, ModuleItem, sql, ids.flatMap((id) => [id, ...vis.params])))!;
        // UNION ALL keeps no order across its parts: sort each module's rows again.
        rows.sort((a, b) => a.position - b.position || a.id - b.id);
        return ids.map((id) => rows.filter((r) => r.moduleId === id));
      }),
    );
    return this.shown(view, await loader.load(view.module.id));
  }

  /** Visible items per module beyond what firstItems shows (itemsCount of long modules), batched. */
  async countFor(view: ModuleView): Promise<number> {
    const first = await this.firstItems(view);
    if (first.length <= MAX_EMBEDDED_ITEMS) return first.length;
    const vis = await this.visibilitySql(view);
    const loader = this.ctx.loaders.get(`modules:item-counts:${view.course.id}:${view.showPublished}:${view.student}`, () =>
      new DataLoader<number, number>(async (ids) => {
        const rows: { module_id: number | string; n: number | string }[] = await this.ctx.ds.query(
          `SELECT mi.module_id, COUNT(*) AS n FROM module_items mi WHERE mi.module_id IN (${marks(ids.length)}) AND ${vis.sql} GROUP BY mi.module_id`,
          [...ids, ...vis.params],
        );
        return ids.map((id) => Number(rows.find((r) => Number(r.module_id) === id)?.n ?? 0));
      }),
    );
    return loader.load(view.module.id);
  }

  /** One visible item of the module by id (batched by id across the request), or null. */
  async one(view: ModuleView, id: number): Promise<ModuleItemView | null> {
    const vis = await this.visibilitySql(view);
    const ds = this.ctx.ds;
    const loader = this.ctx.loaders.get(`modules:item-by-id:${view.course.id}:${view.showPublished}:${view.student}`, () =>
      new DataLoader<number, ModuleItem | null>(async (ids) => {
        const rows = (await leanRows(ds, ModuleItem, `SELECT ${selectColumns(ds, ModuleItem, 'mi')} FROM module_items mi WHERE mi.id IN (${marks(ids.length)}) AND ${vis.sql}`, [...ids, ...vis.params]))!;
        return ids.map((i) => rows.find((r) => r.id === i) ?? null);
      }),
    );
    const item = await loader.load(id);
    if (!item || item.moduleId !== view.module.id) return null;
    return (await this.shown(view, [item]))[0] ?? null;
  }
}
