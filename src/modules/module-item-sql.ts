import { CONTENTLESS, contentAdapter } from './content-registry';
import { ITEM_TYPES } from './module-item.entity';

/** Items embedded in a module (Module.items, Module.moduleItems): at most this many (Canvas: the max page size). */
export const MAX_EMBEDDED_ITEMS = 100;

/** A SQL condition with its positional (`?`) parameters, in order. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/** Whose view of items a condition expresses (see ModuleItemReads.visibleItems). */
export interface ItemAudience {
  /** Content managers: every live item whose content exists. */
  showPublished: boolean;
  /** Assignments Mastery Paths withholds from the viewer (never applied to content managers). */
  withheld: ReadonlySet<number>;
  /**
   * The items' course as an SQL expression: a course id (a module's items all belong to its course,
   * so the condition reads only indexed item columns) or a column of the enclosing statement.
   */
  course: string;
}

/**
 * The item visibility rules of module-visibility.ts (itemLinked, itemVisibleToStudents, withheldItem)
 * as one SQL condition over the item aliased `alias`, so a page of a long module is filtered, counted
 * and cut in the database on the (module, position, id, …) index, which holds every item column the
 * condition reads, so counting and skipping rows walk the index alone: content managers see live items
 * (an item of deleted content is deleted with it); everyone else sees published items whose content
 * exists and is published, minus what Mastery Paths withholds.
 */
export function itemVisibilitySql(a: ItemAudience, alias = 'mi'): SqlPart {
  // Deleting content deletes the items linking it (content-links.ts), so a live item's content is
  // live: a content manager's condition is the item's state alone, read from the index without a test
  // per item (the rows read are still checked against their loaded content, as every listing does).
  if (a.showPublished) return { sql: `${alias}.workflow_state IN ('active', 'unpublished')`, params: [] };
  const params: unknown[] = [];
  const linked: string[] = [];
  const kinds: string[] = [];
  for (const type of ITEM_TYPES) {
    const adapter = contentAdapter(type);
    if (CONTENTLESS.has(type) || !adapter) continue;
    const s = adapter.sql;
    kinds.push(type);
    const conds = [`mc.id = ${alias}.content_id`, s.live(a.course), s.published];
    if (a.withheld.size && s.assignment) {
      const expr = s.assignment(a.course);
      conds.push(`(${expr} IS NULL OR ${expr} NOT IN (${[...a.withheld].map(() => '?').join(', ')}))`);
      params.push(...a.withheld);
    }
    // Item types are our own constants, never input.
    linked.push(`(${alias}.content_type = '${type}' AND EXISTS (SELECT 1 FROM ${s.table} mc WHERE ${conds.join(' AND ')}))`);
  }
  // Kinds that link nothing (or that no area serves) follow their item's state alone.
  const free = kinds.length ? `${alias}.content_type NOT IN (${kinds.map((k) => `'${k}'`).join(', ')})` : '1 = 1';
  return { sql: `${alias}.workflow_state = 'active' AND (${[free, ...linked].join(' OR ')})`, params };
}

/** A case-insensitive "title contains term" (term already trimmed and lower-cased). */
export function titleContains(column: string, term: string): SqlPart {
  const escaped = term.replace(/[!%_]/g, (c) => `!${c}`);
  return { sql: `LOWER(${column}) LIKE ? ESCAPE '!'`, params: [`%${escaped}%`] };
}

/** `?, ?, ?` for a list of parameters. */
export const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
