/**
 * Substring search with LIKE on both engines. An explicit escape character is needed: SQLite has no
 * default one and MySQL's backslash would need doubling in the SQL literal, so `!` is used on both.
 * Use as `col LIKE :like ESCAPE '!'` with `{ like: containsPattern(term) }`.
 */
export function containsPattern(term: string): string {
  return `%${term.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}
