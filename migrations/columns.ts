import { TableColumnOptions, TableIndexOptions } from 'typeorm';

/**
 * Column builders for migrations. They mirror src/db/columns.ts so the tables a migration creates are
 * exactly what the entities expect on SQLite and MySQL alike.
 */
type Extra = Partial<TableColumnOptions>;

export const id = (): TableColumnOptions => ({
  name: 'id',
  type: 'integer',
  isPrimary: true,
  isGenerated: true,
  generationStrategy: 'increment',
});
export const int = (name: string, extra: Extra = {}): TableColumnOptions => ({ name, type: 'integer', ...extra });
export const intNull = (name: string, extra: Extra = {}) => int(name, { isNullable: true, ...extra });
export const str = (name: string, length = 255, extra: Extra = {}): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  ...extra,
});
export const strNull = (name: string, length = 255, extra: Extra = {}) => str(name, length, { isNullable: true, ...extra });
export const text = (name: string, extra: Extra = {}): TableColumnOptions => ({ name, type: 'text', isNullable: true, ...extra });
// Defaults as 0/1: that is how both engines report a boolean default back to the schema builder.
export const bool = (name: string, dflt: boolean): TableColumnOptions => ({ name, type: 'boolean', default: dflt ? 1 : 0 });
export const datetime = (name: string, extra: Extra = {}): TableColumnOptions => ({
  name,
  type: 'datetime',
  isNullable: true,
  ...extra,
});
export const timestamps = (): TableColumnOptions[] => [
  datetime('created_at', { isNullable: false }),
  datetime('updated_at', { isNullable: false }),
];
export const state = (dflt: string, length = 32) => str('workflow_state', length, { default: `'${dflt}'` });

/** Index names follow TypeORM's default naming so the schema builder sees no drift. */
export const index = (columnNames: string[], unique = false): TableIndexOptions => ({ columnNames, isUnique: unique });
