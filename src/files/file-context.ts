import { ForbiddenError, NotFoundError } from '../common/errors';
import { Course } from '../courses/course.entity';
import type { RequestContext } from '../request/context';
import { User } from '../users/user.entity';
import { CourseService } from '../courses/course.service';
import { UserService } from '../users/user.service';

export const FILE_CONTEXT_TYPES = ['Course', 'Group', 'User'] as const;
export type FileContextType = (typeof FILE_CONTEXT_TYPES)[number];

/** Canvas's default quotas where the context row sets none (groups carry their own default). */
export const DEFAULT_COURSE_QUOTA_MB = 500;
export const DEFAULT_USER_QUOTA_MB = 50;

const ROOT_FOLDER_NAMES: Record<FileContextType, string> = { Course: 'course files', Group: 'files', User: 'my files' };

/** A course, group or user that owns files: what the files area needs to know of it. */
export interface FileContext {
  type: FileContextType;
  id: number;
  rootAccountId: number | null;
  quotaBytes: number;
  rootFolderName: string;
  /** The row that owns the files, handed back to its provider for permission checks. */
  owner: unknown;
  /** Set for a course: its students' views of files count for module progress. */
  course?: Course;
}

/**
 * How the files area reaches one kind of context. Courses and users sit below files, so their
 * providers live here; an area at files' own layer (groups) provides its own, and the composition
 * root registers all of them (src/app/plugins.ts), so files never imports the areas above it.
 */
export interface FileContextProvider<Owner = any> {
  contextType: FileContextType;
  /** The owner a path id names (`self`, sis ids …), without permission checks; 404 when absent. */
  lookup(ctx: RequestContext, raw: string): Promise<Owner>;
  /** The live owner of an existing file row; null once it was deleted. */
  load(ctx: RequestContext, id: number): Promise<Owner | null>;
  describe(owner: Owner): FileContext;
  /** Both are asked only with a signed-in viewer. */
  canRead(ctx: RequestContext, owner: Owner): Promise<boolean>;
  canManage(ctx: RequestContext, owner: Owner): Promise<boolean>;
}

const providers = new Map<string, FileContextProvider>();

export function registerFileContextProvider(provider: FileContextProvider): void {
  providers.set(provider.contextType, provider);
}

function providerFor(type: FileContextType): FileContextProvider {
  const provider = providers.get(type);
  // Rows only ever carry the three types: a missing provider is a wiring fault, not a client's 404.
  if (!provider) throw new Error(`no file context provider registered for ${type}`);
  return provider;
}

const mb = (n: number) => n * 1024 * 1024;

/** The FileContext of an owner row, with the quota in MB; for providers. */
export function fileContextOf(type: FileContextType, owner: unknown, row: { id: number; rootAccountId: number | null; quotaMb: number }, course?: Course): FileContext {
  return { type, id: row.id, rootAccountId: row.rootAccountId, quotaBytes: mb(row.quotaMb), rootFolderName: ROOT_FOLDER_NAMES[type], owner, ...(course ? { course } : {}) };
}

export function courseFileContext(course: Course): FileContext {
  return fileContextOf('Course', course, { id: course.id, rootAccountId: course.rootAccountId, quotaMb: course.storageQuotaMb ?? DEFAULT_COURSE_QUOTA_MB }, course);
}

export function userFileContext(user: User): FileContext {
  return fileContextOf('User', user, { id: user.id, rootAccountId: null, quotaMb: DEFAULT_USER_QUOTA_MB });
}

/** Files of a course: its teachers, TAs, designers and admins manage them; its readers see them. */
export const courseFiles: FileContextProvider<Course> = {
  contextType: 'Course',
  lookup: (ctx, raw) => ctx.use(CourseService).lookup(raw),
  async load(ctx, id) {
    const c = await ctx.loaders.byId(Course).load(id);
    return c && c.workflowState !== 'deleted' ? c : null;
  },
  describe: courseFileContext,
  canRead: async (ctx, course) => ctx.authz.canCourse(course, 'read'),
  canManage: async (ctx, course) => ctx.authz.canCourse(course, 'manage_files'),
};

/** A user's own files: theirs alone, and a site admin's. */
export const userFiles: FileContextProvider<User> = {
  contextType: 'User',
  lookup: (ctx, raw) => ctx.use(UserService).lookup(raw),
  async load(ctx, id) {
    const u = await ctx.loaders.byId(User).load(id);
    return u && u.workflowState !== 'deleted' ? u : null;
  },
  describe: userFileContext,
  canRead: async (ctx, user) => ctx.viewer!.id === user.id || ctx.authz.isSiteAdmin(),
  canManage: async (ctx, user) => ctx.viewer!.id === user.id || ctx.authz.isSiteAdmin(),
};

export function isFileContextType(v: string): v is FileContextType {
  return (FILE_CONTEXT_TYPES as readonly string[]).includes(v);
}

/** The context named by a path id (`self`, sis ids …), without permission checks; 404 when absent. */
export async function lookupFileContext(ctx: RequestContext, type: string, raw: string): Promise<FileContext> {
  if (!isFileContextType(type)) throw new NotFoundError();
  const provider = providerFor(type);
  return provider.describe(await provider.lookup(ctx, raw));
}

/** The context of a row the caller holds (e.g. a group being shown), without a lookup. */
export function describeFileContext(type: FileContextType, owner: unknown): FileContext {
  return providerFor(type).describe(owner);
}

/** The live context of an existing file row; null when it was deleted. */
export async function loadFileContext(ctx: RequestContext, type: FileContextType, id: number): Promise<FileContext | null> {
  const provider = providerFor(type);
  const owner = await provider.load(ctx, id);
  return owner == null ? null : provider.describe(owner);
}

/**
 * Manage Files: a group's members and the admins over it; a course's teachers, TAs, designers and
 * admins; a user themself or a site admin.
 */
export async function canManageFiles(ctx: RequestContext, fc: FileContext): Promise<boolean> {
  if (!ctx.viewer) return false;
  return providerFor(fc.type).canManage(ctx, fc.owner);
}

/** Who may see the context's files: group readers, course readers, the user themself (or a site admin). */
export async function canReadFiles(ctx: RequestContext, fc: FileContext): Promise<boolean> {
  if (!ctx.viewer) return false;
  return providerFor(fc.type).canRead(ctx, fc.owner);
}

export async function assertManageFiles(ctx: RequestContext, fc: FileContext): Promise<void> {
  ctx.authz.requireViewer();
  if (!(await canManageFiles(ctx, fc))) throw new ForbiddenError();
}
