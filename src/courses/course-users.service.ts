import { Brackets, In } from 'typeorm';
import { ForbiddenError, NotFoundError, RequestError } from '../common/errors';
import { containsPattern } from '../common/like';
import { offsetConnection } from '../common/keyset';
import { ConnectionResult, pageWindow, toConnection } from '../common/relay';
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

  async list(courseRaw: string | number, filter: CourseUsersFilter): Promise<ConnectionResult<User>> {
    const term = filter.searchTerm?.trim();
    if (term != null && term.length > 0 && term.length < 2) {
      throw new RequestError('search_term too short', 400, {
        errors: [{ field: 'search_term', code: 'invalid', message: '2 or more characters is required' }],
      });
    }
    const { states, types } = CourseUsersService.criteria(filter);
    const { course, sections } = await this.rosterCourse(courseRaw);
    const w = pageWindow(filter);
    if (types && !types.length) return toConnection([], 0, w);
    const qb = this.ctx.ds.getRepository(User).createQueryBuilder('u').where('u.workflow_state <> :deleted', { deleted: 'deleted' });
    let enrolled = 'e.user_id = u.id AND e.course_id = :course AND e.workflow_state IN (:...states)';
    if (types) enrolled += ' AND e.type IN (:...types)';
    if (sections) enrolled += ' AND e.course_section_id IN (:...sections)';
    qb.andWhere(`EXISTS (SELECT 1 FROM enrollments e WHERE ${enrolled})`, { course: course.id, states, types, sections });
    if (filter.userIds?.length) {
      const ids = filter.userIds.filter((id) => /^\d{1,15}$/.test(id)).map(Number);
      if (!ids.length) return toConnection([], 0, w);
      qb.andWhere('u.id IN (:...userIds)', { userIds: ids });
    }
    // Logins and SIS ids are shown only to admins of the user (User.loginId, User.sisUserId), so only
    // an admin over the course may search or sort by them: anyone else would learn them letter by letter.
    const staff = (await this.ctx.authz.courseRoles(course)).admin;
    if (term) {
      const like = containsPattern(term);
      const login = (col: string) => `EXISTS (SELECT 1 FROM pseudonyms p WHERE p.user_id = u.id AND p.workflow_state = 'active' AND LOWER(${col}) LIKE :like ESCAPE '!')`;
      qb.andWhere(
        new Brackets((b) => {
          b.where("LOWER(u.name) LIKE :like ESCAPE '!'", { like }).orWhere("LOWER(u.sortable_name) LIKE :like ESCAPE '!'", { like });
          if (/^\d{1,15}$/.test(term)) b.orWhere('u.id = :termId', { termId: Number(term) });
          if (staff) b.orWhere(login('p.unique_id')).orWhere(login('p.sis_user_id'));
        }),
      );
    }
    const dir = (filter.order ?? '').toLowerCase() === 'desc' ? 'DESC' : 'ASC';
    // email and sis_id order by the login's values; without the right to see them, by name (as nothing).
    const loginCol = filter.sort === 'email' ? 'unique_id_normalized' : filter.sort === 'sis_id' && staff ? 'sis_user_id' : null;
    if (loginCol && (filter.sort !== 'email' || staff)) {
      qb.addSelect(`(SELECT MIN(p.${loginCol}) FROM pseudonyms p WHERE p.user_id = u.id AND p.workflow_state = 'active')`, 'sort_key').orderBy('sort_key', dir);
      qb.addOrderBy('u.sortable_name', dir);
    } else {
      // last_login: no login times are kept, so every user ties and the name decides.
      qb.orderBy('u.sortable_name', dir);
    }
    qb.addOrderBy('u.id', dir);
    // Canvas counts no total for this list (no rel="last"): only a GraphQL totalCount asks for one.
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
