import { nullableText, text } from '../api/rest/input';

/**
 * Declared-param shapes the content routes share (assignments, pages, quizzes, submissions, external
 * tools). Values whose rules live in a service (names, dates, grading types, positions …) are declared
 * as `checked()` scalars, so the service still answers with Canvas's own message and attribute; the
 * schema's job there is the shape (one scalar, not a hash or a list) and a bound on size.
 */

export { courseId } from '../courses/course.params';

/** A service-checked value, or null / '' to clear it. */
export const checked = () => nullableText({ max: 4096 });

/** A service-checked value that cannot be cleared (ids and words). */
export const word = () => text({ max: 4096 });

/** HTML kept in a TEXT column, which holds 65,535 bytes on MySQL; sanitised by the service. */
export const html = () => nullableText({ max: 65_535 });

/**
 * A service-checked number: '' or null clear it, digits are a number, and a word is passed on (trimmed)
 * so GraphQL's coercion answers 400 naming the field.
 */
export const checkedNumber = () =>
  checked().transform((v): number | string | null => {
    if (v === null || v === '') return null;
    const s = v.trim();
    return s !== '' && Number.isFinite(Number(s)) ? Number(s) : s;
  });

/** A service-checked date: '' or null clear it (Canvas), other strings go to the DateTime scalar. */
export const checkedDate = () => checked().transform((v) => (v === '' ? null : v));
