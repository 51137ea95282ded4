import { Account } from '../accounts/account.entity';
import { NotFoundError } from '../common/errors';
import { Course } from '../courses/course.entity';
import type { RequestContext } from '../request/context';
import type { ContextType } from './group-category.entity';
import { CourseService } from '../courses/course.service';
import { AccountService } from '../accounts/account.service';

/** A course or account that owns groups and categories. */
export interface GroupContext {
  type: ContextType;
  id: number;
  rootAccountId: number;
  name: string;
  course?: Course;
  account?: Account;
}

export function courseContext(course: Course): GroupContext {
  return { type: 'Course', id: course.id, rootAccountId: course.rootAccountId, name: course.name, course };
}

export function accountContext(account: Account): GroupContext {
  return { type: 'Account', id: account.id, rootAccountId: account.resolvedRootId, name: account.name, account };
}

/** Looks up the context of a path (`/courses/:id/…` or `/accounts/:id/…`) without permission checks. */
export async function lookupContext(ctx: RequestContext, type: string, raw: string): Promise<GroupContext> {
  if (type === 'Course') return courseContext(await ctx.use(CourseService).lookup(raw));
  if (type === 'Account') return accountContext(await ctx.use(AccountService).lookup(raw));
  throw new NotFoundError();
}

/** The context of an existing group or category row. */
export async function loadContext(ctx: RequestContext, type: ContextType, id: number): Promise<GroupContext | null> {
  if (type === 'Course') {
    const c = await ctx.loaders.byId(Course).load(id);
    return c ? courseContext(c) : null;
  }
  const a = await ctx.loaders.byId(Account).load(id);
  return a ? accountContext(a) : null;
}
