import { Column, ColumnOptions } from 'typeorm';
import { ValidationError } from '../common/errors';

/**
 * Scores and points are fractional (13.5, 8.25): stored as a double on both engines so a value
 * written is the value read back (migrations/1732000005000-Content.ts uses the same type).
 */
export const NullableDouble = (opts: ColumnOptions = {}) => Column({ type: 'double', nullable: true, ...opts });

/** MySQL's TEXT holds 65,535 bytes (SQLite has no limit; the rule is the same on both engines). */
export const TEXT_MAX_BYTES = 65_535;

/**
 * A value for a TEXT column as it will be stored, or a 400 (too_long, naming the field) when it would
 * not fit. Checked on the stored form, not the request's: sanitising lengthens HTML (`<` becomes
 * `&lt;`), a character may take four bytes, and MySQL refuses (a 500) what does not fit.
 */
export function fitText<T extends string | null>(value: T, attribute: string, label: string): T {
  if (value != null && Buffer.byteLength(value, 'utf8') > TEXT_MAX_BYTES) {
    throw ValidationError.of(attribute, 'too_long', `${label} is too long (maximum is ${TEXT_MAX_BYTES} bytes)`);
  }
  return value;
}
