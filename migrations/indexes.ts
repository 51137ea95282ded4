import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

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

/**
 * A migration that widens indexes: creates `indexes`, then drops the `replaced` ones (each a prefix of
 * its replacement, which serves every read the old one did); down() puts the old ones back first.
 */
export abstract class IndexReplacement implements MigrationInterface {
  abstract name: string;

  constructor(
    private readonly indexes: readonly IndexSpec[],
    private readonly replaced: readonly IndexSpec[],
  ) {}

  async up(q: QueryRunner): Promise<void> {
    await createIndexes(q, this.indexes);
    await dropIndexes(q, this.replaced);
  }

  async down(q: QueryRunner): Promise<void> {
    await createIndexes(q, this.replaced);
    await dropIndexes(q, this.indexes);
  }
}
