import DataLoader from 'dataloader';
import { Brackets, EntityManager, EntityTarget, In, ObjectLiteral } from 'typeorm';
import type { Permission } from '../auth/permissions';
import { ForbiddenError, NotFoundError } from '../common/errors';
import { Course } from '../courses/course.entity';
import { Enrollment } from '../courses/enrollment.entity';
import { pagePerParent, settleEach } from '../db/page-per-parent';
import { transaction } from '../db/transaction';
import { ContentKind, raise } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import { ConnectionResult, idArg, parseAnyId } from '../common/relay';
import { CourseService } from '../courses/course.service';

/** A path id that may also be a global id of the given type (GraphQL callers send either). */
export const anyId = idArg;

/** The numeric id of a content object, or 404 for anything that is not one. */
export function contentId(raw: string | number | null | undefined, type: string): number {
  if (raw == null) throw new NotFoundError();
  const id = parseAnyId(raw, type);
  if (id == null) throw new NotFoundError();
  return id;
}

/** What a lock means for the viewer: Canvas's locked_for_user, lock_info and lock_explanation. */
export interface LockView {
  locked: boolean;
  assetString: string;
  unlockAt?: Date;
  lockAt?: Date;
}

/** Students whose work is listed and graded now (Canvas's current student enrollments). */
const CURRENT_STUDENT_STATES = ['active', 'invited'];

/** Whether `now` falls outside an object's unlock_at..lock_at window. */
export function lockState(obj: { unlockAt: Date | null; lockAt: Date | null }, now = Date.now()): { locked: boolean; unlockAt?: Date; lockAt?: Date } {
  if (obj.unlockAt && obj.unlockAt.getTime() > now) return { locked: true, unlockAt: obj.unlockAt };
  if (obj.lockAt && obj.lockAt.getTime() <= now) return { locked: true, lockAt: obj.lockAt };
  return { locked: false };
}

/**
 * Course-level rules every kind of course content shares: who may read the course, who manages its
 * content, who sees unpublished objects (students never do: for them an unpublished object does not
 * exist), who counts as a student, and the content events.
 */
export class ContentAccess {
  constructor(private readonly ctx: RequestContext) {}

  /** The course of a content path, readable by the caller (404 missing, 401 anonymous, 403 otherwise). */
  readableCourse(raw: string | number): Promise<Course> {
    return this.ctx.use(CourseService).find(anyId(raw, 'Course'), 'read');
  }

  /** The course (by id) of an object already loaded; 404 when the course is gone. */
  async courseOf(courseId: number): Promise<Course> {
    return this.ctx.use(CourseService).find(courseId, 'read');
  }

  /**
   * A live content object by id (numeric or global) with its course, which the caller must be able to
   * read; `courseRaw`, when given (REST paths), must be that course. No visibility rules yet.
   */
  async locate<T extends { id: number; courseId: number; workflowState: string }>(
    entity: EntityTarget<T> & { name: string },
    type: string,
    courseRaw: string | number | null | undefined,
    raw: string | number,
  ): Promise<{ course: Course; object: T }> {
    const object = await this.ctx.loaders.byId<T>(entity).load(contentId(raw, type));
    if (!object || object.workflowState === 'deleted') throw new NotFoundError();
    const course = courseRaw == null ? await this.courseOf(object.courseId) : await this.readableCourse(courseRaw);
    if (object.courseId !== course.id) throw new NotFoundError();
    return { course, object };
  }

  /** A live content object the caller holds `permission` on in its course (403 otherwise). */
  async managed<T extends { id: number; courseId: number; workflowState: string }>(
    entity: EntityTarget<T> & { name: string },
    type: string,
    courseRaw: string | number | null | undefined,
    raw: string | number,
    permission: Permission,
  ): Promise<{ course: Course; object: T }> {
    const found = await this.locate(entity, type, courseRaw, raw);
    await this.assert(found.course, permission);
    return found;
  }

  /**
   * Lists hung off a course object (course { assignmentsConnection … }) re-check that the caller may
   * read the course, rather than trusting however the course object was reached.
   */
  async assertReadable(course: Course): Promise<void> {
    this.ctx.authz.requireViewer();
    if (!(await this.can(course, 'read'))) throw new ForbiddenError();
  }

  can(course: Course, permission: Permission): Promise<boolean> {
    return this.ctx.authz.canCourse(course, permission);
  }

  async assert(course: Course, permission: Permission): Promise<void> {
    if (!(await this.can(course, permission))) throw new ForbiddenError();
  }

  /** Staff who author or review content see unpublished objects. */
  async seesUnpublished(course: Course): Promise<boolean> {
    return (await this.can(course, 'view_unpublished_items')) || (await this.can(course, 'manage_assignments')) || this.can(course, 'manage_content');
  }

  /**
   * One page per course of a content list (assignments, quizzes) whose rows are `published` for
   * everyone who may read the course and also `unpublished` for those who see unpublished content:
   * the per-course rule for many courses in one windowed statement pair. A course the viewer may not
   * read is refused alone.
   */
  async visibleContentPages<T extends ObjectLiteral & { id: number }>(
    courses: readonly Course[],
    target: EntityTarget<T>,
    states: { published: string; unpublished: string },
    order: [string, 'ASC' | 'DESC'][],
    args: { first?: number | null; after?: string | null },
  ): Promise<(ConnectionResult<T> | Error)[]> {
    const sees = await settleEach(courses, async (c) => {
      await this.assertReadable(c);
      return this.seesUnpublished(c);
    });
    const staff = courses.filter((_, i) => sees[i] === true).map((c) => c.id);
    const qb = this.ctx.ds
      .getRepository(target)
      .createQueryBuilder('x')
      .where(
        new Brackets((b) => {
          b.where('x.workflow_state = :published', { published: states.published });
          if (staff.length) b.orWhere('(x.workflow_state = :unpublished AND x.course_id IN (:...staff))', { unpublished: states.unpublished, staff });
        }),
      );
    const readable = courses.filter((_, i) => !(sees[i] instanceof Error)).map((c) => c.id);
    const pages = await pagePerParent(qb, 'course_id', order, readable, args);
    return courses.map((c, i) => (sees[i] instanceof Error ? (sees[i] as Error) : pages.get(c.id)!));
  }

  /** Those who grade or review grades see every student's work. */
  async isGrader(course: Course): Promise<boolean> {
    return (await this.can(course, 'manage_grades')) || this.can(course, 'view_all_grades');
  }

  /** Whose work the viewer may read in a course: everyone's (graders) or their own and their observees'. */
  async workScope(course: Course): Promise<{ all: boolean; userIds: Set<number> }> {
    if (await this.isGrader(course)) return { all: true, userIds: new Set() };
    const ids = new Set<number>();
    if (this.ctx.viewer) ids.add(this.ctx.viewer.id);
    const roles = await this.ctx.authz.courseRoles(course);
    for (const e of roles.enrollments) if (e.type === 'ObserverEnrollment' && e.workflowState === 'active' && e.associatedUserId) ids.add(e.associatedUserId);
    return { all: false, userIds: ids };
  }

  /** Current students of each course, batched. */
  currentStudents(): DataLoader<number, Set<number>> {
    return this.ctx.loaders.get('content:currentStudents', () =>
      new DataLoader<number, Set<number>>(async (courseIds) => {
        const rows = await this.ctx.ds.getRepository(Enrollment).find({
          select: { courseId: true, userId: true },
          where: { courseId: In([...courseIds]), type: 'StudentEnrollment', workflowState: In(CURRENT_STUDENT_STATES) },
        });
        return courseIds.map((id) => new Set(rows.filter((r) => r.courseId === id).map((r) => r.userId)));
      }),
    );
  }

  /** Lock state for the viewer: those who author or grade are never locked out; others outside the dates are (unless exempted). */
  async lockView(obj: { courseId: number; unlockAt: Date | null; lockAt: Date | null }, assetString: string, exempt = false): Promise<LockView> {
    const course = await this.ctx.loaders.byId(Course).load(obj.courseId);
    if (exempt || !course || (await this.can(course, 'manage_assignments')) || (await this.can(course, 'manage_grades'))) return { locked: false, assetString };
    return { ...lockState(obj), assetString };
  }

  /** An active student of the course (the caller's views and submissions count for progress). */
  async isStudent(course: Course): Promise<boolean> {
    if (!this.ctx.viewer || !(await this.can(course, 'participate_as_student'))) return false;
    return (await this.ctx.authz.courseRoles(course)).types.has('StudentEnrollment');
  }

  /** Records a student's view of a content object, in a small transaction of its own; staff views raise nothing. */
  async recordView(course: Course, contentType: ContentKind, contentId: number): Promise<void> {
    if (!(await this.isStudent(course))) return;
    const userId = this.ctx.viewer!.id;
    await transaction(this.ctx.ds, (em) => raise(em, this.ctx, { type: 'content.viewed', courseId: course.id, userId, contentType, contentId }));
  }

  changed(em: EntityManager, courseId: number, contentType: ContentKind, contentId: number, change: 'created' | 'updated' | 'deleted'): Promise<void> {
    return raise(em, this.ctx, { type: 'content.changed', courseId, contentType, contentId, change });
  }
}
