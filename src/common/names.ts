/** Canvas's derived names: short name is the full name; sortable is "Last, First Middle". */
export function sortableName(name: string): string {
  const parts = name.trim().split(/\s+/);
  if (parts.length < 2) return name.trim();
  const last = parts.pop()!;
  return `${last}, ${parts.join(' ')}`;
}
