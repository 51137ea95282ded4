import { QueryRunner, TableIndex } from 'typeorm';

/** An index by its table and columns (names are generated, so a migration finds an index by its columns). */
export type IndexSpec = [table: string, columns: string[]];

export async function createIndexes(q: QueryRunner, specs: readonly IndexSpec[]): Promise<void> {
  for (const [table, columnNames] of specs) await q.createIndex(table, new TableIndex({ columnNames }));
}

/** Drops the index on exactly these columns, if the table has one. */
export async function dropByColumns(q: QueryRunner, table: string, columnNames: string[]): Promise<void> {
  const index = (await q.getTable(table))?.indices.find((i) => i.columnNames.join(',') === columnNames.join(','));
  if (index) await q.dropIndex(table, index);
}

/** Drops the indexes in reverse order of `specs` (a down() undoing createIndexes). */
export async function dropIndexes(q: QueryRunner, specs: readonly IndexSpec[]): Promise<void> {
  for (const [table, columnNames] of [...specs].reverse()) await dropByColumns(q, table, columnNames);
}
