import type { EntityManager } from 'typeorm';
import { NotFoundError } from '../common/errors';
import { nowToSecond } from '../db/columns';
import type { FileContext } from './file-context';
import { Folder, FOLDER_FULL_NAME_MAX } from './folder.entity';

/**
 * Minimal folders: a root folder per context and subfolders created on demand from a path. Creation
 * is idempotent (a unique full name per context) so concurrent uploads into a new path agree.
 */
const isMysql = (em: EntityManager) => em.connection.options.type !== 'better-sqlite3';

/** `a/b/c` → segments; empty for the root; null when a segment is `.`/`..` or holds control characters. */
export function parseFolderPath(raw: string): string[] | null {
  const segments = raw
    .split('/')
    .map((s) => s.trim())
    .filter(Boolean);
  if (segments.some((s) => s === '.' || s === '..' || /[\u0000-\u001f\u007f]/.test(s) || s.length > 255)) return null;
  return segments;
}

export function fullNameFor(fc: FileContext, segments: string[]): string {
  return [fc.rootFolderName, ...segments].join('/');
}

export function fullNameFits(fc: FileContext, segments: string[]): boolean {
  return fullNameFor(fc, segments).length <= FOLDER_FULL_NAME_MAX;
}

async function findByFullName(em: EntityManager, fc: FileContext, fullName: string, lock: boolean): Promise<Folder | null> {
  return em.getRepository(Folder).findOne({
    where: { contextType: fc.type, contextId: fc.id, fullName },
    // A locking read sees a row another transaction just committed (a plain read keeps its snapshot).
    ...(lock && isMysql(em) ? { lock: { mode: 'pessimistic_read' as const } } : {}),
  });
}

async function ensureFolder(em: EntityManager, fc: FileContext, parent: Folder | null, name: string, fullName: string): Promise<Folder> {
  const found = await findByFullName(em, fc, fullName, false);
  if (found) return found;
  const now = nowToSecond();
  await em
    .createQueryBuilder()
    .insert()
    .into(Folder)
    .values({ contextType: fc.type, contextId: fc.id, parentFolderId: parent?.id ?? null, name, fullName, workflowState: 'visible', createdAt: now, updatedAt: now })
    .orIgnore()
    .execute();
  return (await findByFullName(em, fc, fullName, true))!;
}

export function rootFolder(em: EntityManager, fc: FileContext): Promise<Folder> {
  return ensureFolder(em, fc, null, fc.rootFolderName, fc.rootFolderName);
}

/** The folder at `segments` below the root, created as needed. */
export async function folderAtPath(em: EntityManager, fc: FileContext, segments: string[]): Promise<Folder> {
  let folder = await rootFolder(em, fc);
  for (let i = 0; i < segments.length; i++) {
    folder = await ensureFolder(em, fc, folder, segments[i], fullNameFor(fc, segments.slice(0, i + 1)));
  }
  return folder;
}

/** A visible folder of the context by id; 404 when it belongs elsewhere. */
export async function folderOfContext(em: EntityManager, fc: FileContext, id: number): Promise<Folder> {
  const folder = await em.getRepository(Folder).findOneBy({ id, contextType: fc.type, contextId: fc.id, workflowState: 'visible' });
  if (!folder) throw new NotFoundError();
  return folder;
}

/** Serialises quota checks of one context: the root folder row is locked for the transaction (MySQL). */
export async function lockContextFolders(em: EntityManager, fc: FileContext): Promise<void> {
  const root = await rootFolder(em, fc);
  if (isMysql(em)) await em.getRepository(Folder).findOne({ where: { id: root.id }, lock: { mode: 'pessimistic_write' } });
}
