import { ForbiddenError, NotFoundError } from '../common/errors';
import { Course } from '../courses/course.entity';
import type { RequestContext } from '../request/context';
import { Group } from '../groups/group.entity';
import { User } from '../users/user.entity';
import { CourseService } from '../courses/course.service';
import { GroupService } from '../groups/group.service';
import { UserService } from '../users/user.service';
import { GroupPolicy } from '../groups/group-policy';

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
  course?: Course;
  group?: Group;
  user?: User;
}

const mb = (n: number) => n * 1024 * 1024;

export function courseFileContext(course: Course): FileContext {
  return { type: 'Course', id: course.id, rootAccountId: course.rootAccountId, quotaBytes: mb(course.storageQuotaMb ?? DEFAULT_COURSE_QUOTA_MB), rootFolderName: ROOT_FOLDER_NAMES.Course, course };
}

export function groupFileContext(group: Group): FileContext {
  return { type: 'Group', id: group.id, rootAccountId: group.rootAccountId, quotaBytes: mb(group.quotaMb), rootFolderName: ROOT_FOLDER_NAMES.Group, group };
}

export function userFileContext(user: User): FileContext {
  return { type: 'User', id: user.id, rootAccountId: null, quotaBytes: mb(DEFAULT_USER_QUOTA_MB), rootFolderName: ROOT_FOLDER_NAMES.User, user };
}

export function isFileContextType(v: string): v is FileContextType {
  return (FILE_CONTEXT_TYPES as readonly string[]).includes(v);
}

/** The context named by a path id (`self`, sis ids …), without permission checks; 404 when absent. */
export async function lookupFileContext(ctx: RequestContext, type: string, raw: string): Promise<FileContext> {
  switch (type) {
    case 'Course':
      return courseFileContext(await ctx.use(CourseService).lookup(raw));
    case 'Group':
      return groupFileContext(await ctx.use(GroupService).lookup(raw));
    case 'User':
      return userFileContext(await ctx.use(UserService).lookup(raw));
    default:
      throw new NotFoundError();
  }
}

/** The live context of an existing file row; null when it was deleted. */
export async function loadFileContext(ctx: RequestContext, type: FileContextType, id: number): Promise<FileContext | null> {
  if (type === 'Course') {
    const c = await ctx.loaders.byId(Course).load(id);
    return c && c.workflowState !== 'deleted' ? courseFileContext(c) : null;
  }
  if (type === 'Group') {
    const g = await ctx.loaders.byId(Group).load(id);
    return g && g.workflowState !== 'deleted' ? groupFileContext(g) : null;
  }
  const u = await ctx.loaders.byId(User).load(id);
  return u && u.workflowState !== 'deleted' ? userFileContext(u) : null;
}

/**
 * Manage Files: a group's members and the admins over it; a course's teachers, TAs, designers and
 * admins; a user themself or a site admin.
 */
export async function canManageFiles(ctx: RequestContext, fc: FileContext): Promise<boolean> {
  const viewer = ctx.viewer;
  if (!viewer) return false;
  if (fc.group) return (await ctx.use(GroupPolicy).rights(fc.group)).manageFiles;
  if (fc.course) return ctx.authz.canCourse(fc.course, 'manage_files');
  return viewer.id === fc.id || ctx.authz.isSiteAdmin();
}

/** Who may see the context's files: group readers, course readers, the user themself (or a site admin). */
export async function canReadFiles(ctx: RequestContext, fc: FileContext): Promise<boolean> {
  const viewer = ctx.viewer;
  if (!viewer) return false;
  if (fc.group) return (await ctx.use(GroupPolicy).rights(fc.group)).read;
  if (fc.course) return ctx.authz.canCourse(fc.course, 'read');
  return viewer.id === fc.id || ctx.authz.isSiteAdmin();
}

export async function assertManageFiles(ctx: RequestContext, fc: FileContext): Promise<void> {
  ctx.authz.requireViewer();
  if (!(await canManageFiles(ctx, fc))) throw new ForbiddenError();
}
