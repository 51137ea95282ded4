/**
 * Page slugs as Canvas derives them from titles (stringex's to_url, roughly): lower case, accents
 * dropped, "&" and "@" spelled out, apostrophes removed, every other run of non-alphanumerics a dash.
 */
export function slugify(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/@/g, ' at ')
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** `base` or, when taken, `base-2`, `base-3`… (Canvas starts the suffixes at 2). */
export function unique(base: string, taken: Set<string>, max = 255): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = base.slice(0, max - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
