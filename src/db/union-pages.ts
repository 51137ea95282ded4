import type { DataSource } from 'typeorm';

/** One parent's read: a SELECT (for a page: ending in ORDER BY … LIMIT) with its positional `?` parameters. */
export interface PartRead {
  sql: string;
  params: unknown[];
}

/**
 * Several parents' reads as one statement: a list of assignments (or modules) each asking for its
 * own page costs one statement, whatever the number of parents. Each read keeps its own ORDER BY and
 * LIMIT inside a derived table (both engines need that inside a union), so each is served by its
 * parent's index and stops after its page; the union's rows are put back in order by `order` (the
 * reads' selected column names), at most parents × (first + 1) of them. One read runs as it is.
 */
export async function readParts<R extends Record<string, unknown>>(ds: DataSource, reads: PartRead[], order = ''): Promise<R[][]> {
  if (!reads.length) return [];
  if (reads.length === 1) return [await ds.query(reads[0].sql, reads[0].params)];
  const sql = reads.map((r, i) => `SELECT up${i}.*, ${i} AS up_ord FROM (${r.sql}) up${i}`).join(' UNION ALL ');
  const rows: (R & { up_ord: unknown })[] = await ds.query(`${sql} ORDER BY up_ord${order ? `, ${order}` : ''}`, reads.flatMap((r) => r.params));
  const out = reads.map(() => [] as R[]);
  for (const r of rows) out[Number(r.up_ord)]?.push(r);
  return out;
}

/** `?, ?, …` for n parameters. */
export const qmarks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** A key read from a cursor as an id: a whole number, or null (then the page is the first). */
export const idKey = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
