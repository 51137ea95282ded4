import { Brackets, In, WhereExpressionBuilder } from 'typeorm';
import { ForbiddenError, NotFoundError, RequestError } from '../common/errors';
import { containsPattern } from '../common/like';
import { keysetConnection, offsetConnection } from '../common/connection';
import { keyWindow } from '../common/keyset';
import { ConnectionResult, pageWindow } from '../common/relay';
import { OrderColumn, pagePerParent } from '../db/page-per-parent';
import type { RequestContext } from '../request/context';
import { User } from '../users/user.entity';
import type { Course } from './course.entity';
import { Enrollment, EnrollmentType } from './enrollment.entity';
import { CourseService } from './course.service';
import { UserService } from '../users/user.service';

/** Canvas's short enrollment_type[] words; student_view (the test student) has no rows in this model. */
export const COURSE_USER_TYPES: Record<string, EnrollmentType | null> = {
  student: 'StudentEnrollment',
  teacher: 'TeacherEnrollment',
  ta: 'TaEnrollment',
  observer: 'ObserverEnrollment',
  designer: 'DesignerEnrollment',
  student_view: null,
};
export const COURSE_USER_STATES = ['active', 'invited', 'rejected', 'completed', 'inactive'] as const;
export const COURSE_USER_SORTS = ['username', 'last_login', 'email', 'sis_id'] as const;

/**
 * Ids of the built-in course roles, as a fresh Canvas numbers them. Roles are the base types here (no
 * custom roles), so enrollment_role_id names one of these or nothing.
 */
export const BASE_ROLE_IDS: Record<EnrollmentType, number> = {
  StudentEnrollment: 3,
  TeacherEnrollment: 4,
  TaEnrollment: 5,
  DesignerEnrollment: 6,
  ObserverEnrollment: 7,
};

/** Current enrollments, listed when no enrollment_state[] is given (as the enrollments list). */
const DEFAULT_STATES = ['active', 'invited', 'creation_pending'];
/** Who a by-id read finds: anyone enrolled (prior students too) but not rejected or deleted. */
const ANY_LIVE_STATE = ['active', 'invited', 'creation_pending', 'completed', 'inactive'];

/** A course the viewer may read the roster of: its section limits (null: none) and whether the viewer is an admin there. */
interface Reach {
  course: Course;
  sections: number[] | null;
  staff: boolean;
}

/** The filters of one request, checked. */
interface Query {
  states: string[];
  types: EnrollmentType[] | null;
  term: string | null;
  userIds: number[] | null;
  desc: boolean;
}

export interface CourseUsersFilter {
  first?: number | null;
  after?: string | null;
  searchTerm?: string | null;
  enrollmentTypes?: string[] | null;
  enrollmentRoleId?: string | null;
  enrollmentStates?: string[] | null;
  userIds?: string[] | null;
  sort?: string | null;
  order?: string | null;
}

/**
 * The people of a course (Canvas's courses#users and #user): users with an enrollment the viewer may
 * read there. The roster right and section limits are the enrollments list's own (Authz.canCourse
 * read_roster, Authz.rosterSections), so a person appears here exactly when one of their enrollments
 * appears there.
 */
export class CourseUsersService {
  constructor(private readonly ctx: RequestContext) {}

  private async rosterCourse(raw: string | number): Promise<{ course: Course; sections: number[] | null }> {
    const course = await this.ctx.use(CourseService).find(raw, 'read');
    if (!(await this.ctx.authz.canCourse(course, 'read_roster'))) throw new ForbiddenError();
    return { course, sections: await this.ctx.authz.rosterSections(course) };
  }

  /** The states and types a filter stands for; a word outside Canvas's lists is a 400. */
  static criteria(filter: Pick<CourseUsersFilter, 'enrollmentTypes' | 'enrollmentStates' | 'enrollmentRoleId'>): { states: string[]; types: EnrollmentType[] | null } {
    for (const s of filter.enrollmentStates ?? []) {
      if (!(COURSE_USER_STATES as readonly string[]).includes(s)) throw new RequestError(`Invalid enrollment_state ${s}`);
    }
    let types: EnrollmentType[] | null = null;
    if (filter.enrollmentTypes?.length) {
      types = [];
      for (const t of filter.enrollmentTypes) {
        if (!(t in COURSE_USER_TYPES)) throw new RequestError(`Invalid enrollment_type ${t}`);
        const full = COURSE_USER_TYPES[t];
        if (full) types.push(full);
      }
    }
    if (filter.enrollmentRoleId != null && filter.enrollmentRoleId !== '') {
      const role = (Object.keys(BASE_ROLE_IDS) as EnrollmentType[]).find((t) => String(BASE_ROLE_IDS[t]) === String(filter.enrollmentRoleId));
      const byRole = role ? [role] : [];
      types = types == null ? byRole : types.filter((t) => byRole.includes(t));
    }
    return { states: filter.enrollmentStates?.length ? [...filter.enrollmentStates] : DEFAULT_STATES, types };
  }

  /** A course's people the viewer may read (Course.usersConnection). Batched across courses (listForCourses). */
  async list(courseRaw: string | number, filter: CourseUsersFilter): Promise<ConnectionResult<User>> {
    // Bad input is refused before any course is read, as one answer for the whole request.
    CourseUsersService.checkTerm(filter.searchTerm);
    CourseUsersService.criteria(filter);
    const course = await this.ctx.use(CourseService).find(courseRaw, 'read');
    return this.ctx.loaders.perParent('courseUsers', filter, (courses: readonly Course[]) => this.listForCourses(courses, filter)).load(course);
  }

  private static checkTerm(raw: string | null | undefined): string | null {
    const term = raw?.trim();
    if (term != null && term.length > 0 && term.length < 2) {
      throw new RequestError('search_term too short', 400, {
        errors: [{ field: 'search_term', code: 'invalid', message: '2 or more characters is required' }],
      });
    }
    return term || null;
  }

  /**
   * One page of people per course. Each course is checked on its own (the roster right, a
   * section-limited viewer's sections, whether the viewer is an admin there, who alone may search
   * by login or SIS id); a course refused is refused alone. In the default order (sortable name,
   * then id) every course's page comes from one statement pair whatever the number of courses.
   */
  async listForCourses(courses: readonly Course[], filter: CourseUsersFilter): Promise<(ConnectionResult<User> | Error)[]> {
    const term = CourseUsersService.checkTerm(filter.searchTerm);
    const { states, types } = CourseUsersService.criteria(filter);
    const reach = await Promise.all(
      courses.map(async (course): Promise<Reach | Error> => {
        if (!(await this.ctx.authz.canCourse(course, 'read_roster'))) return new ForbiddenError();
        const [sections, roles] = await Promise.all([this.ctx.authz.rosterSections(course), this.ctx.authz.courseRoles(course)]);
        return { course, sections, staff: roles.admin };
      }),
    );
    const userIds = filter.userIds?.length ? filter.userIds.filter((id) => /^\d{1,15}$/.test(id)).map(Number) : null;
    const q: Query = { states, types, term, userIds, desc: (filter.order ?? '').toLowerCase() === 'desc' };
    const readable = reach.filter((r): r is Reach => !(r instanceof Error));
    const byLogin = (r: Reach) => r.staff && (filter.sort === 'email' || filter.sort === 'sis_id');
    const nothing = (types && !types.length) || (userIds && !userIds.length);
    const named = nothing ? new Map<number, ConnectionResult<User>>() : await this.byName(readable.filter((r) => !byLogin(r)), filter, q);
    return Promise.all(
      reach.map(async (r) => {
        if (r instanceof Error) return r;
        if (nothing) return keysetConnection<User>([], keyWindow(filter, 2), () => [], async () => 0);
        return byLogin(r) ? this.byLogin(r, filter, q) : named.get(r.course.id)!;
      }),
    );
  }

  /** Who may appear: an enrollment of the course in the states and types asked, in a section the viewer may read. */
  private enrolled(b: WhereExpressionBuilder, reach: Reach[], q: Query): void {
    b.where('e.workflow_state IN (:...states)', { states: q.states });
    if (q.types) b.andWhere('e.type IN (:...types)', { types: q.types });
    if (q.userIds) b.andWhere('e.user_id IN (:...userIds)', { userIds: q.userIds });
    b.andWhere(
      new Brackets((any) => {
        const plain = reach.filter((r) => !r.sections).map((r) => r.course.id);
        any.where(plain.length ? 'e.course_id IN (:...plainCourses)' : '1 = 0', { plainCourses: plain });
        reach.forEach((r, j) => {
          if (!r.sections?.length) return;
          any.orWhere(`(e.course_id = :limited${j} AND e.course_section_id IN (:...sections${j}))`, { [`limited${j}`]: r.course.id, [`sections${j}`]: r.sections });
        });
      }),
    );
  }

  /**
   * The search: a name or an id; a login or SIS id only in courses where the viewer is an admin (logins and
   * SIS ids are shown only to admins of the user, so anyone else would learn them letter by letter).
   */
  private searched(b: WhereExpressionBuilder, term: string, staff: number[] | 'all'): void {
    const like = containsPattern(term);
    const login = (col: string) => `EXISTS (SELECT 1 FROM pseudonyms p WHERE p.user_id = u.id AND p.workflow_state = 'active' AND LOWER(${col}) LIKE :like ESCAPE '!')`;
    b.where("LOWER(u.name) LIKE :like ESCAPE '!'", { like }).orWhere("LOWER(u.sortable_name) LIKE :like ESCAPE '!'", { like });
    if (/^\d{1,15}$/.test(term)) b.orWhere('u.id = :termId', { termId: Number(term) });
    const logins = `(${login('p.unique_id')} OR ${login('p.sis_user_id')})`;
    if (staff === 'all') b.orWhere(logins);
    else if (staff.length) b.orWhere(`(e.course_id IN (:...staffCourses) AND ${logins})`, { staffCourses: staff });
  }

  /**
   * By sortable name, then id (username, the default, and last_login: no login times are kept, so every
   * user ties and the name decides). Each course's page is read by key from the enrollments index
   * (course, sortable name, user), the enrollments carrying a copy of the name; several enrollments of one
   * person are one row (DISTINCT), and the page's users are then read by id.
   */
  private async byName(reach: Reach[], filter: CourseUsersFilter, q: Query): Promise<Map<number, ConnectionResult<User>>> {
    if (!reach.length) return new Map();
    const qb = this.ctx.ds
      .getRepository(User)
      .createQueryBuilder('u')
      .innerJoin(Enrollment, 'e', 'e.user_id = u.id')
      .where('u.workflow_state <> :deleted', { deleted: 'deleted' })
      .andWhere(new Brackets((b) => this.enrolled(b, reach, q)));
    const staff = reach.filter((r) => r.staff).map((r) => r.course.id);
    if (q.term) qb.andWhere(new Brackets((b) => this.searched(b, q.term!, staff)));
    const e = (c: string) => ({ expression: `${qb.escape('e')}.${qb.escape(c)}` });
    const dir = q.desc ? 'DESC' : 'ASC';
    const order: OrderColumn[] = [[e('sortable_name'), dir], [e('user_id'), dir]];
    return pagePerParent(qb, e('course_id'), order, reach.map((r) => r.course.id), filter, { id: e('user_id'), distinct: true });
  }

  /**
   * By the login's e-mail or SIS id (for admins only; others get the name order). These keys live on
   * pseudonyms, one user may hold several, so no index of enrollments has the order: one course at a
   * time, an offset page over the course's people sorted by the smallest value. Canvas sorts these the
   * same way, and only admins, rarely, ask for them.
   */
  private async byLogin(r: Reach, filter: CourseUsersFilter, q: Query): Promise<ConnectionResult<User>> {
    const w = pageWindow(filter);
    const qb = this.ctx.ds.getRepository(User).createQueryBuilder('u').where('u.workflow_state <> :deleted', { deleted: 'deleted' });
    const inCourse = this.ctx.ds.createQueryBuilder().subQuery().select('e.user_id').from(Enrollment, 'e').where(new Brackets((b) => this.enrolled(b, [r], q)));
    qb.andWhere(`u.id IN ${inCourse.getQuery()}`, inCourse.getParameters());
    // Only admins sort by logins, so the search covers logins too.
    if (q.term) qb.andWhere(new Brackets((b) => this.searched(b, q.term!, 'all')));
    const dir = q.desc ? 'DESC' : 'ASC';
    const loginCol = filter.sort === 'email' ? 'unique_id_normalized' : 'sis_user_id';
    qb.addSelect(`(SELECT MIN(p.${loginCol}) FROM pseudonyms p WHERE p.user_id = u.id AND p.workflow_state = 'active')`, 'sort_key').orderBy('sort_key', dir);
    qb.addOrderBy('u.sortable_name', dir).addOrderBy('u.id', dir);
    const rows = await qb.clone().offset(w.offset).limit(w.limit + 1).getMany();
    return offsetConnection(rows, w, () => qb.orderBy().getCount());
  }

  /** One person of the course: 404 unless they hold an enrollment there the viewer may read. */
  async find(courseRaw: string | number, userRaw: string | number): Promise<User> {
    const { course, sections } = await this.rosterCourse(courseRaw);
    const user = await this.ctx.use(UserService).lookup(userRaw);
    const rows = await this.ctx.loaders.manyBy(Enrollment, 'userId', { workflowState: In(ANY_LIVE_STATE) }).load(user.id);
    if (!rows.some((e) => e.courseId === course.id && (sections == null || sections.includes(e.courseSectionId)))) throw new NotFoundError();
    return user;
  }
}
