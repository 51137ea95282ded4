import type { DataSource } from 'typeorm';

/** A piece of SQL (a condition, or a whole SELECT) with its positional `?` parameters, in order. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/**
 * Reads (each a SELECT, for a page ending in ORDER BY … LIMIT) as one UNION ALL, each in a derived
 * table and numbered by an `up_ord` column. Neither engine takes ORDER BY and LIMIT in a bare union
 * member (SQLite not at all, MariaDB only in parentheses); a derived table keeps each read's own
 * order and LIMIT on both, so one text serves both engines and each read is still served by its own
 * index range and stops after its rows. The union's rows come in no promised order: the caller adds
 * the ORDER BY it needs (readParts: back per read; keysetPage: merged into one page).
 */
export function unionOfReads(reads: readonly SqlPart[]): SqlPart {
  return { sql: reads.map((r, i) => `SELECT up${i}.*, ${i} AS up_ord FROM (${r.sql}) up${i}`).join(' UNION ALL '), params: reads.flatMap((r) => r.params) };
}

/**
 * Several parents' reads as one statement: a list of assignments (or modules, courses, groups) each
 * asking for its own page costs one statement, whatever the number of parents (pagePerParent reads
 * its pages here too). The union's rows are put back per read, in order by `order` (ORDER BY text on
 * the reads' selected column names), at most parents × (first + 1) of them. One read runs as it is.
 */
export async function readParts<R extends Record<string, unknown>>(ds: DataSource, reads: SqlPart[], order = ''): Promise<R[][]> {
  if (!reads.length) return [];
  if (reads.length === 1) return [await ds.query(reads[0].sql, reads[0].params)];
  const union = unionOfReads(reads);
  const rows: (R & { up_ord: unknown })[] = await ds.query(`${union.sql} ORDER BY up_ord${order ? `, ${order}` : ''}`, union.params);
  const out = reads.map(() => [] as R[]);
  for (const r of rows) out[Number(r.up_ord)]?.push(r);
  return out;
}

/** `?, ?, …` for n parameters. */
export const qmarks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** A key read from a cursor as an id: a whole number, or null (then the page is the first). */
export const idKey = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
