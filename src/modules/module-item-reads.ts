import DataLoader from 'dataloader';
import { In } from 'typeorm';
import { afterKey, deepPage, KeyValue, KeyWindow, orderSql, SortKey } from '../common/keyset';
import { leanRows, selectColumns } from '../db/lean-read';
import type { RequestContext } from '../request/context';
import { ContentInfo, loadContent } from './content-registry';
import { ModuleItem } from './module-item.entity';
import { ItemAudience, itemVisibilitySql, marks, MAX_EMBEDDED_ITEMS, SqlPart, titleContains } from './module-item-sql';
import { countLoader, pageLoader, pageSql } from './batched-pages';
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
const byPosition = (a: ModuleItem, b: ModuleItem) => a.position - b.position || a.id - b.id;

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

  /** Content of rows read for several modules at once (see pageLoader's prepare). */
  private readonly withContent = (rows: ModuleItem[]) => Promise.all(rows.map((r) => this.contentOf(r.courseId, r)));

  /** Views of items read for `view`, with the rules applied to their loaded content (the SQL already applied them). */
  private async shown(view: ModuleView, items: ModuleItem[]): Promise<ModuleItemView[]> {
    const withContent = await Promise.all(items.map(async (it) => new ModuleItemView(it, view, await this.contentOf(view.course.id, it))));
    if (view.showPublished) return withContent.filter((v) => itemLinked(v.item, v.content));
    const withheld = await this.ctx.use(MasteryPathReads).withheldFor(view.course, view.student);
    return withContent.filter((v) => itemVisibleToStudents(v.item, v.content) && !withheldItem(v.content, withheld));
  }

  private async audience(view: ModuleView): Promise<ItemAudience> {
    const withheld = view.showPublished ? new Set<number>() : await this.ctx.use(MasteryPathReads).withheldFor(view.course, view.student);
    // Our own integer: the condition then reads only columns the (module_id, position, …) index holds.
    return { showPublished: view.showPublished, withheld, course: String(Number(view.course.id)) };
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
   * One page of a module's visible items: the rows after the window's key (or its legacy offset, a deep
   * one from the list's nearer end), read with LIMIT limit + 1 on the (module_id, position, id) index;
   * the pages of modules asking in the same tick (a page of modules, each with its items connection)
   * share one statement.
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
    const end = await deepPage(w, ITEM_ORDER, () => this.count(view, term));
    if (end === 'empty') return [];
    const ds = this.ctx.ds;
    const part = { parent: view.module.id, sql: pageSql(this.ctx, selectColumns(ds, ModuleItem, 'mi'), 'module_items mi', 'mi.id', sql, orderSql(ITEM_ORDER), w, end), params };
    const key = `items:${this.viewKey(view)}:${JSON.stringify([w, term])}`;
    return this.shown(view, await pageLoader(this.ctx, key, ModuleItem, (r) => r.moduleId, byPosition, this.withContent).load(part));
  }

  /** How many items page() would list in all (totalCount, a Link rel="last"): only when asked. */
  async count(view: ModuleView, term: string | null): Promise<number> {
    const where = await this.where(view, term);
    return countLoader(this.ctx, `items:${this.viewKey(view)}:${JSON.stringify(term)}`).load({ parent: view.module.id, from: `module_items mi WHERE ${where.sql}`, params: where.params });
  }

  /** What the visibility of a module's items depends on besides the module (and its course). */
  private viewKey(view: ModuleView): string {
    return `${view.showPublished}:${view.student}`;
  }

  /**
   * The first MAX_EMBEDDED_ITEMS + 1 visible items of the module: embedded item lists never read a
   * long module; one more than the bound says it is too long. Modules of a page ask in one statement
   * (batched like page()) with the item rules only: a UNION of dozens of members each carrying the
   * content conditions costs MariaDB's optimiser more than the rows, so content is checked on the
   * rows read (as every listing also does) and, should it hide rows of a long module, the next rows
   * are read after the last one.
   */
  async firstItems(view: ModuleView): Promise<ModuleItemView[]> {
    const ds = this.ctx.ds;
    const state = view.showPublished ? "mi.workflow_state IN ('active', 'unpublished')" : "mi.workflow_state = 'active'";
    const shown: ModuleItemView[] = [];
    let after: KeyValue[] | null = null;
    for (;;) {
      const k = after ? afterKey(ITEM_ORDER, after) : null;
      const sql = `SELECT ${selectColumns(ds, ModuleItem, 'mi')} FROM module_items mi WHERE mi.module_id = ? AND ${state}${k ? ` AND ${k.sql}` : ''} ORDER BY ${orderSql(ITEM_ORDER)} LIMIT ${MAX_EMBEDDED_ITEMS + 1}`;
      const part = { parent: view.module.id, sql, params: [view.module.id, ...(k?.params ?? [])] };
      const rows: ModuleItem[] = await pageLoader(this.ctx, `first:${view.showPublished}:${JSON.stringify(after)}`, ModuleItem, (r) => r.moduleId, byPosition, this.withContent).load(part);
      shown.push(...(await this.shown(view, rows)));
      if (shown.length > MAX_EMBEDDED_ITEMS || rows.length <= MAX_EMBEDDED_ITEMS) return shown.slice(0, MAX_EMBEDDED_ITEMS + 1);
      const last: ModuleItem = rows[rows.length - 1];
      after = [last.position, last.id];
    }
  }

  /** Module.itemsCount: from firstItems when the module is short, else counted (batched). */
  async countFor(view: ModuleView): Promise<number> {
    const first = await this.firstItems(view);
    return first.length <= MAX_EMBEDDED_ITEMS ? first.length : this.count(view, null);
  }

  /**
   * One visible item of the module by id, or null. Batched across the request: items of several
   * courses (whose rules may differ, e.g. by what Mastery Paths withholds) in one statement, each
   * group of ids under its own condition.
   */
  async one(view: ModuleView, id: number): Promise<ModuleItemView | null> {
    const vis = await this.visibilitySql(view);
    const ds = this.ctx.ds;
    const loader = this.ctx.loaders.get(`modules:item-by-id:${this.viewKey(view)}`, () =>
      new DataLoader<{ id: number; vis: SqlPart }, ModuleItem | null, number>(
        async (asks) => {
          const groups = new Map<string, { vis: SqlPart; ids: number[] }>();
          for (const a of asks) {
            const k = JSON.stringify(a.vis);
            const g = groups.get(k) ?? groups.set(k, { vis: a.vis, ids: [] }).get(k)!;
            g.ids.push(a.id);
          }
          const ors = [...groups.values()].map((g) => `(mi.id IN (${marks(g.ids.length)}) AND ${g.vis.sql})`);
          const params = [...groups.values()].flatMap((g) => [...g.ids, ...g.vis.params]);
          const rows = (await leanRows(ds, ModuleItem, `SELECT ${selectColumns(ds, ModuleItem, 'mi')} FROM module_items mi WHERE ${ors.join(' OR ')}`, params))!;
          return asks.map((a) => rows.find((r) => r.id === a.id) ?? null);
        },
        { cacheKeyFn: (a) => a.id },
      ),
    );
    const item = await loader.load({ id, vis });
    if (!item || item.moduleId !== view.module.id) return null;
    return (await this.shown(view, [item]))[0] ?? null;
  }
}
