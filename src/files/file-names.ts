/** File names: what a client sends made safe to show and to use as a file name. */
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** A client-given name as a display name: control characters out, trimmed; '' when nothing is left. */
export function cleanName(raw: string | null | undefined): string {
  return (raw ?? '').replace(CONTROL, '').trim();
}

/** A display name made safe as a file name (the disk path never uses it). */
export function safeFilename(displayName: string): string {
  return displayName.replace(/[/\\]/g, '_').slice(0, 255) || 'file';
}

/** `notes.txt` → `notes-1.txt`, `notes-2.txt` … until a name is free. */
export function renamed(name: string, taken: Set<string>): string {
  const dot = name.lastIndexOf('.');
  const [base, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let i = 1; ; i++) {
    const candidate = `${base}-${i}${ext}`;
    if (!taken.has(candidate)) return candidate;
  }
}
