import { Column, ColumnOptions } from 'typeorm';

/**
 * Scores and points are fractional (13.5, 8.25): stored as a double on both engines so a value
 * written is the value read back (migrations/1732000005000-Content.ts uses the same type).
 */
export const NullableDouble = (opts: ColumnOptions = {}) => Column({ type: 'double', nullable: true, ...opts });
