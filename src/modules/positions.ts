/**
 * 1-based list positions: insert or move an element and renumber the siblings 1..n, so positions
 * stay dense whatever was created, moved or deleted before.
 */
export function placeAt<T extends { id: number; position: number }>(siblings: T[], moving: T, position: number | null | undefined): T[] {
  const others = siblings.filter((s) => s.id !== moving.id).sort((a, b) => a.position - b.position || a.id - b.id);
  const index = position == null ? others.length : Math.min(Math.max(position, 1), others.length + 1) - 1;
  others.splice(index, 0, moving);
  return renumber(others);
}

/** Renumbers in current order; returns the elements whose position changed. */
export function renumber<T extends { position: number }>(ordered: T[]): T[] {
  const changed: T[] = [];
  ordered.forEach((el, i) => {
    if (el.position !== i + 1) {
      el.position = i + 1;
      changed.push(el);
    }
  });
  return changed;
}
