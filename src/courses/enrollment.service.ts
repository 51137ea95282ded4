import { Brackets, In, IsNull } from 'typeorm';
import { ForbiddenError, NotFoundError, RequestError, Validator } from '../common/errors';
import { pagePerParent } from '../db/page-per-parent';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { ConnectionResult } from '../common/relay';
import type { Permission } from '../auth/permissions';
import { Course } from './course.entity';
import { CourseSection } from './section.entity';
import { Enrollment, ENROLLMENT_STATES, ENROLLMENT_TYPES, EnrollmentState, EnrollmentType } from './enrollment.entity';
import { CourseService } from './course.service';
import { UserService } from '../users/user.service';
import { SectionService } from './section.service';

export interface CreateEnrollmentInput {
  courseId: string;
  userId?: string | null;
  type?: string | null;
  enrollmentState?: string | null;
  courseSectionId?: string | null;
  associatedUserId?: string | null;
  limitPrivilegesToCourseSection?: boolean | null;
  startAt?: Date | null;
  endAt?: Date | null;
}

export interface EnrollmentFilter {
  types?: string[] | null;
  states?: string[] | null;
  userId?: string | null;
  sectionId?: string | null;
}

/** Canvas's permission for adding each enrollment type. */
const ADD_PERMISSION: Record<EnrollmentType, Permission> = {
  StudentEnrollment: 'manage_students',
  TeacherEnrollment: 'manage_admin_users',
  TaEnrollment: 'manage_admin_users',
  DesignerEnrollment: 'manage_admin_users',
  ObserverEnrollment: 'manage_admin_users',
};

/** States listed when no state[] filter is given: the current ones, as in Canvas. */
const DEFAULT_LIST_STATES: EnrollmentState[] = ['active', 'invited', 'creation_pending'];

/** Canvas's compound state filters. */
const STATE_ALIASES: Record<string, EnrollmentState[]> = {
  current_and_invited: ['active', 'invited', 'creation_pending'],
  current_and_future: ['active', 'invited', 'creation_pending'],
  current_and_concluded: ['active', 'completed'],
};

export class EnrollmentService {
  constructor(private readonly ctx: RequestContext) {}

  async find(id: number): Promise<Enrollment> {
    const e = await this.ctx.loaders.byId(Enrollment).load(id);
    if (!e || e.workflowState === 'deleted') throw new NotFoundError();
    const course = await this.ctx.use(CourseService).find(e.courseId, 'read');
    if (e.userId === this.ctx.viewer?.id) return e;
    if (!(await this.ctx.authz.canCourse(course, 'read_roster'))) throw new ForbiddenError();
    // Another section's enrollment is, to a section-limited viewer, as absent as in their lists.
    if (!(await this.ctx.authz.canReadRosterEntry(course, e.courseSectionId))) throw new NotFoundError();
    return e;
  }

  /**
   * Canvas's checks, in its order: the request's own problems (all reported together, joined in one
   * message over REST), then the caller's right to add this type, then the people involved.
   */
  async create(input: CreateEnrollmentInput): Promise<{ enrollment: Enrollment }> {
    const course = await this.ctx.use(CourseService).find(input.courseId, 'read');
    const v = new Validator();
    if (input.userId == null && input.type == null && input.enrollmentState == null) {
      v.add('enrollment', 'blank', 'No parameters given');
    } else {
      if (input.type && !(ENROLLMENT_TYPES as readonly string[]).includes(input.type)) v.add('type', 'inclusion', 'Invalid type');
      if (!input.userId) {
        v.add('user_id', 'blank', "Can't create an enrollment without a user. Include enrollment[user_id] to create an enrollment");
      }
    }
    if (course.workflowState === 'completed') v.add('base', 'invalid', "Can't add an enrollment to a concluded course.");
    v.throwIfInvalid();
    const type = (input.type || 'StudentEnrollment') as EnrollmentType;
    if (!(await this.ctx.authz.canCourse(course, ADD_PERMISSION[type]))) throw new ForbiddenError();
    const requested = input.enrollmentState ?? 'invited';
    v.check(['active', 'invited', 'inactive'].includes(requested), 'enrollment_state', 'inclusion', 'Invalid enrollment_state');
    if (input.startAt && input.endAt && input.endAt < input.startAt) v.add('end_at', 'invalid', 'end_at cannot be before start_at');
    v.throwIfInvalid();

    // The caller may add people of the account, so a SIS id may name anyone (the check above came first).
    const user = await this.ctx.use(UserService).lookupAny(input.userId!);
    const section = input.courseSectionId
      ? await this.ctx.use(SectionService).lookupInCourse(course, input.courseSectionId)
      : await this.defaultSection(course);

    let associatedUserId: number | null = null;
    if (type === 'ObserverEnrollment' && input.associatedUserId) {
      // An observer link opens the student's work and planner to its holder, so only an account admin
      // may give one to themself; a teacher (who may add observers for others) may not.
      if (user.id === this.ctx.viewer?.id && !(await this.ctx.authz.courseRoles(course)).admin) throw new ForbiddenError();
      const student = await this.ctx.use(UserService).lookupAny(input.associatedUserId);
      const isStudent = await this.ctx.ds.getRepository(Enrollment).findOneBy({
        courseId: course.id,
        userId: student.id,
        type: 'StudentEnrollment',
        workflowState: In(['active', 'invited', 'creation_pending']),
      });
      if (!isStudent) v.add('associated_user_id', 'invalid', 'associated_user_id must be a student enrolled in the course');
      else if (student.id === user.id) v.add('associated_user_id', 'invalid', 'An observer cannot observe themself');
      v.throwIfInvalid();
      associatedUserId = student.id;
    }
    // An invitation to an unpublished course waits until the course is published.
    const state: EnrollmentState = requested === 'invited' && course.workflowState === 'unpublished' ? 'creation_pending' : (requested as EnrollmentState);

    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(Enrollment);
      // Enrolling the same user again with the same type, section and observee updates that enrollment.
      const existing = await repo.findOneBy({
        courseId: course.id,
        userId: user.id,
        type,
        courseSectionId: section.id,
        associatedUserId: associatedUserId ?? IsNull(),
      });
      const enrollment = existing ?? repo.create({ courseId: course.id, userId: user.id, type, courseSectionId: section.id, rootAccountId: course.rootAccountId, associatedUserId });
      Object.assign(enrollment, {
        sortableName: user.sortableName,
        workflowState: state,
        limitPrivilegesToCourseSection: Boolean(input.limitPrivilegesToCourseSection),
        startAt: input.startAt ?? null,
        endAt: input.endAt ?? null,
      });
      return { enrollment: await repo.save(enrollment) };
    });
  }

  /** Whether the user is an active student of the course. */
  async isActiveStudent(course: Course, userId: number): Promise<boolean> {
    if (userId === this.ctx.authz.viewer?.id) {
      // The viewer's own enrollments in the course are read for its permission check already: asking
      // about the viewer costs no statement, where the course's whole student roster would be read.
      const { enrollments } = await this.ctx.authz.courseRoles(course);
      return enrollments.some((e) => e.type === 'StudentEnrollment' && e.workflowState === 'active');
    }
    return (await this.activeStudentRows(course)).some((e) => e.userId === userId);
  }

  /** Active students of the course. */
  async activeStudentIds(course: Course): Promise<number[]> {
    return [...new Set((await this.activeStudentRows(course)).map((r) => r.userId))];
  }

  // One loader for the roster: every module, topic and course of a request shares one statement.
  private activeStudentRows(course: Course): Promise<Enrollment[]> {
    return this.ctx.loaders.manyBy(Enrollment, 'courseId', { type: 'StudentEnrollment', workflowState: In(['active']) }).load(course.id);
  }

  private async defaultSection(course: Course) {
    const sections = await this.ctx.ds.getRepository(CourseSection).find({
      where: { courseId: course.id, workflowState: 'active' },
      order: { defaultSection: 'DESC', id: 'ASC' },
      take: 1,
    });
    if (!sections[0]) throw new NotFoundError();
    return sections[0];
  }

  /** A course's enrollments the viewer may read, by id (section-limited viewers: their sections'). Batched across courses (listForCourses). */
  listForCourse(course: Course, filter: EnrollmentFilter & { first?: number | null; after?: string | null }): Promise<ConnectionResult<Enrollment>> {
    return this.ctx.loaders.perParent('enrollments', filter, (courses: readonly Course[]) => this.listForCourses(courses, filter)).load(course);
  }

  /**
   * One page of enrollments per course in one statement pair: the filters are checked once, the
   * roster right, a section filter and a section-limited viewer's sections per course (a course the
   * viewer may not read, or without the section asked for, is refused alone).
   */
  async listForCourses(courses: readonly Course[], filter: EnrollmentFilter & { first?: number | null; after?: string | null }): Promise<(ConnectionResult<Enrollment> | Error)[]> {
    const states = new Set<string>();
    for (const s of filter.states ?? []) {
      if (STATE_ALIASES[s]) STATE_ALIASES[s].forEach((x) => states.add(x));
      else if ((ENROLLMENT_STATES as readonly string[]).includes(s)) states.add(s);
      else throw new RequestError(`Invalid state ${s}`);
    }
    const types = (filter.types ?? []).map((t) => t);
    for (const t of types) if (!(ENROLLMENT_TYPES as readonly string[]).includes(t)) throw new RequestError(`Invalid type ${t}`);
    const qb = this.ctx.ds
      .getRepository(Enrollment)
      .createQueryBuilder('e')
      .where('e.workflow_state IN (:...states)', { states: states.size ? [...states] : DEFAULT_LIST_STATES });
    if (types.length) qb.andWhere('e.type IN (:...types)', { types });
    if (filter.userId) qb.andWhere('e.user_id = :uid', { uid: (await this.ctx.use(UserService).lookup(filter.userId)).id });
    // Per course: refused, or the section conditions that apply to it (none for most).
    const perCourse = await Promise.all(
      courses.map(async (course): Promise<Error | number[][]> => {
        if (!(await this.ctx.authz.canCourse(course, 'read_roster'))) return new ForbiddenError();
        const sections: number[][] = [];
        if (filter.sectionId) {
          const found = await this.ctx.use(SectionService).lookupInCourse(course, filter.sectionId).catch((e: Error) => e);
          if (found instanceof Error) return found;
          sections.push([found.id]);
        }
        const limited = await this.ctx.authz.rosterSections(course);
        if (limited) sections.push(limited);
        return sections;
      }),
    );
    const readable = courses.filter((_, i) => !(perCourse[i] instanceof Error));
    qb.andWhere(
      new Brackets((any) => {
        const plain = readable.filter((c) => (perCourse[courses.indexOf(c)] as number[][]).length === 0).map((c) => c.id);
        any.where(plain.length ? 'e.course_id IN (:...plainCourses)' : '1 = 0', { plainCourses: plain });
        for (const c of readable) {
          const sections = perCourse[courses.indexOf(c)] as number[][];
          if (!sections.length) continue;
          const conds = sections.map((_, j) => `e.course_section_id IN (:...s${c.id}_${j})`).join(' AND ');
          any.orWhere(`(e.course_id = :c${c.id} AND ${conds})`, Object.fromEntries([[`c${c.id}`, c.id], ...sections.map((ids, j) => [`s${c.id}_${j}`, ids])]));
        }
      }),
    );
    const pages = await pagePerParent(qb, 'course_id', [['id', 'ASC']], readable.map((c) => c.id), filter);
    return courses.map((c, i) => (perCourse[i] instanceof Error ? (perCourse[i] as Error) : pages.get(c.id)!));
  }
}
