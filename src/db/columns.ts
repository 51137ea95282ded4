import { BeforeInsert, BeforeUpdate, Column, ColumnOptions, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Column helpers that keep entity types identical on SQLite and MySQL, so the migration set and the
 * entities agree on both engines (a test checks there is no schema drift).
 */
export const DateTimeColumn = (opts: ColumnOptions = {}) => Column({ type: 'datetime', nullable: true, ...opts });
export const StringColumn = (length = 255, opts: ColumnOptions = {}) =>
  Column({ type: 'varchar', length, ...opts });
export const NullableString = (length = 255, opts: ColumnOptions = {}) =>
  Column({ type: 'varchar', length, nullable: true, ...opts });
export const IntColumn = (opts: ColumnOptions = {}) => Column({ type: 'integer', ...opts });
export const NullableInt = (opts: ColumnOptions = {}) => Column({ type: 'integer', nullable: true, ...opts });
export const BoolColumn = (defaultValue: boolean, opts: ColumnOptions = {}) =>
  Column({ type: 'boolean', default: defaultValue, ...opts });
export const TextColumn = (opts: ColumnOptions = {}) => Column({ type: 'text', nullable: true, ...opts });

/** Base for tables with an integer id and Canvas's created_at/updated_at pair. */
export abstract class Timestamped {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @DateTimeColumn({ nullable: false })
  createdAt: Date;

  @DateTimeColumn({ nullable: false })
  updatedAt: Date;

  @BeforeInsert()
  protected stampCreate(): void {
    const now = nowToSecond();
    this.createdAt ??= now;
    this.updatedAt ??= now;
  }

  @BeforeUpdate()
  protected stampUpdate(): void {
    this.updatedAt = nowToSecond();
  }
}

/** Canvas renders times at second precision; storing them that way keeps both engines equal. */
export function nowToSecond(): Date {
  const d = new Date();
  d.setMilliseconds(0);
  return d;
}
