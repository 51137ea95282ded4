/** The one function used of mime-types, which ships no types of its own (and @types/mime-types is not installed). */
declare module 'mime-types' {
  /** The content type of a path or bare extension, or false when the table has none. */
  export function lookup(pathOrExtension: string): string | false;
}
