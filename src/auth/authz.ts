import DataLoader from 'dataloader';
import { DataSource, In } from 'typeorm';
import { Account } from '../accounts/account.entity';
import { AccountUser } from '../accounts/account-user.entity';
import { ForbiddenError, NotFoundError, UnauthenticatedError } from '../common/errors';
import { Course } from '../courses/course.entity';
import { Enrollment, EnrollmentType } from '../courses/enrollment.entity';
import { findRows } from '../db/lean-read';
import type { Loaders } from '../db/loaders';
import type { User } from '../users/user.entity';
import { Permission, ROLE_PERMISSIONS, STAFF_TYPES } from './permissions';

export interface CourseRoles {
  admin: boolean;
  /** Types of the viewer's active enrollments in the course. */
  types: Set<EnrollmentType>;
  /** The viewer's live enrollments (active or invited) in the course. */
  enrollments: Enrollment[];
}

/**
 * The caller's rights for one request. Every lookup is cached and batched, so checking a permission
 * on each element of a list costs a fixed number of statements.
 */
export class Authz {
  private adminIds?: Promise<Set<number>>;
  private readonly enrollmentLoader: DataLoader<number, Enrollment[]>;

  constructor(
    private readonly ds: DataSource,
    readonly viewer: User | null,
    private readonly loaders: Loaders,
  ) {
    this.enrollmentLoader = new DataLoader(async (courseIds) => {
      if (!viewer) return courseIds.map(() => []);
      const where = { userId: viewer.id, courseId: In([...courseIds]), workflowState: In(['active', 'invited', 'creation_pending']) };
      // Every request that names a course asks this: a lean read (src/db/lean-read.ts), not the query builder.
      const rows = await findRows(ds, Enrollment, where);
      return courseIds.map((id) => rows.filter((r) => r.courseId === id));
    });
  }

  requireViewer(): User {
    if (!this.viewer) throw new UnauthenticatedError();
    return this.viewer;
  }

  /** Accounts where the viewer holds an active admin role. */
  adminAccountIds(): Promise<Set<number>> {
    if (!this.viewer) return Promise.resolve(new Set());
    if (!this.adminIds) {
      // Read once per request; every course check after the first reuses the promise.
      const where = { userId: this.viewer.id, workflowState: 'active' };
      this.adminIds = findRows(this.ds, AccountUser, where).then((rows) => new Set(rows.map((r) => r.accountId)));
    }
    return this.adminIds;
  }

  /** The account and its ancestors, nearest first. */
  async accountChain(accountId: number): Promise<Account[]> {
    const chain: Account[] = [];
    let next: number | null = accountId;
    const seen = new Set<number>();
    while (next != null && !seen.has(next)) {
      seen.add(next);
      const acct: Account | null = await this.loaders.byId(Account).load(next);
      if (!acct) break;
      chain.push(acct);
      next = acct.parentAccountId;
    }
    return chain;
  }

  async isAccountAdmin(accountId: number): Promise<boolean> {
    const ids = await this.adminAccountIds();
    if (ids.size === 0) return false;
    const chain = await this.accountChain(accountId);
    return chain.some((a) => ids.has(a.id));
  }

  /** Root account admins are site admins: they may act anywhere and masquerade. */
  async isSiteAdmin(): Promise<boolean> {
    const ids = await this.adminAccountIds();
    if (ids.size === 0) return false;
    const accounts = await this.loaders.byId(Account).loadMany([...ids]);
    return accounts.some((a) => a && !(a instanceof Error) && a.parentAccountId == null);
  }

  async courseRoles(course: Course): Promise<CourseRoles> {
    const [admin, enrollments] = await Promise.all([this.isAccountAdmin(course.accountId), this.enrollmentLoader.load(course.id)]);
    const now = Date.now();
    const types = new Set<EnrollmentType>(
      enrollments
        .filter((e) => e.workflowState === 'active' && (e.endAt == null || e.endAt.getTime() > now))
        .map((e) => e.type),
    );
    return { admin, types, enrollments };
  }

  async canCourse(course: Course, permission: Permission): Promise<boolean> {
    if (!this.viewer || course.workflowState === 'deleted') return false;
    const roles = await this.courseRoles(course);
    if (roles.admin) return true;
    for (const t of roles.types) {
      if (!ROLE_PERMISSIONS[t].has(permission)) continue;
      // Students and observers see nothing of a course until it is published.
      if (!STAFF_TYPES.has(t) && course.workflowState === 'unpublished') continue;
      return true;
    }
    // An invitation lets the invitee see the published course it invites them to.
    if (permission === 'read' && course.isAvailable) return roles.enrollments.some((e) => e.workflowState === 'invited');
    return false;
  }

  /**
   * The sections of the course whose people and enrollments the viewer may see, or null for the whole
   * roster: a viewer all of whose active enrollments there limit privileges to their section (Canvas's
   * limit_privileges_to_course_section) sees only those sections. Admins are never limited.
   */
  async rosterSections(course: Course): Promise<number[] | null> {
    const roles = await this.courseRoles(course);
    if (roles.admin) return null;
    const active = roles.enrollments.filter((e) => e.workflowState === 'active');
    if (!active.length || !active.every((e) => e.limitPrivilegesToCourseSection)) return null;
    return [...new Set(active.map((e) => e.courseSectionId))];
  }

  /**
   * Whether the viewer may see one roster entry (an enrollment, or a person through it) of the course's
   * section: the roster right plus the section limit. Every by-id read of a person or enrollment checks
   * this, so a section-limited viewer learns no more by id than its lists show.
   */
  async canReadRosterEntry(course: Course, sectionId: number): Promise<boolean> {
    if (!(await this.canCourse(course, 'read_roster'))) return false;
    const sections = await this.rosterSections(course);
    return sections == null || sections.includes(sectionId);
  }

  /**
   * Throws unless the viewer holds `permission` on the course: 404 when it does not exist, otherwise
   * Canvas's 403, whose body says nothing about the course.
   */
  async assertCourse(course: Course | null, permission: Permission): Promise<Course> {
    if (!course || course.workflowState === 'deleted') throw new NotFoundError();
    this.requireViewer();
    if (await this.canCourse(course, permission)) return course;
    throw new ForbiddenError();
  }

  async assertAccountAdmin(accountId: number): Promise<void> {
    this.requireViewer();
    if (!(await this.isAccountAdmin(accountId))) throw new ForbiddenError();
  }
}
