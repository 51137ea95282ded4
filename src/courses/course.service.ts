import { Not } from 'typeorm';
import { ForbiddenError, NotFoundError, Validator } from '../common/errors';
import { parseIdParam } from '../common/ids';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { keysetConnection } from '../common/connection';
import { keyWindow } from '../common/keyset';
import { ConnectionResult } from '../common/relay';
import { accountCoursePage, viewerCoursePage } from './course-pages';
import { Course, CourseState } from './course.entity';
import { Enrollment } from './enrollment.entity';
import { CourseSection } from './section.entity';
import { AccountService } from '../accounts/account.service';

export interface CourseFields {
  name?: string | null;
  courseCode?: string | null;
  startAt?: Date | null;
  endAt?: Date | null;
  sisCourseId?: string | null;
  integrationId?: string | null;
  storageQuotaMb?: number | null;
  timeZone?: string | null;
  license?: string | null;
  isPublic?: boolean | null;
  publicDescription?: string | null;
  defaultView?: string | null;
  restrictEnrollmentsToCourseDates?: boolean | null;
  /** Mastery Paths (Canvas's conditional_release setting). */
  masteryPathsEnabled?: boolean | null;
}

export interface CreateCourseInput extends CourseFields {
  accountId: string;
  offer?: boolean | null;
  enrollMe?: boolean | null;
}

/** Canvas's course events: offer publishes, claim unpublishes, conclude completes, delete removes. */
export const COURSE_EVENTS = ['offer', 'claim', 'conclude', 'delete', 'undelete'] as const;
export type CourseEvent = (typeof COURSE_EVENTS)[number];

export interface UpdateCourseInput extends CourseFields {
  id: string;
  event?: string | null;
}

export const DEFAULT_VIEWS = ['feed', 'wiki', 'modules', 'syllabus', 'assignments'] as const;

export class CourseService {
  constructor(private readonly ctx: RequestContext) {}

  loadMany(ids: number[]): Promise<(Course | null)[]> {
    return this.ctx.loaders
      .byId(Course)
      .loadMany(ids)
      .then((rows) => rows.map((r) => (r instanceof Error ? null : r)));
  }

  /** A course by numeric id or sis_course_id:, without a permission check; deleted courses are absent. */
  async lookup(raw: string | number): Promise<Course> {
    const p = parseIdParam(raw, ['sis_course_id']);
    const course =
      p.kind === 'id'
        ? await this.ctx.loaders.byId(Course).load(p.id)
        : p.kind === 'prefixed'
          ? await this.ctx.ds.getRepository(Course).findOneBy({ sisCourseId: p.value })
          : null;
    if (!course || course.workflowState === 'deleted') throw new NotFoundError();
    return course;
  }

  async find(raw: string | number, permission: Parameters<RequestContext['authz']['canCourse']>[1] = 'read'): Promise<Course> {
    return this.ctx.authz.assertCourse(await this.lookup(raw), permission);
  }

  private async validate(fields: CourseFields, rootAccountId: number, existing?: Course): Promise<void> {
    const v = new Validator();
    if (fields.name !== undefined && fields.name !== null) {
      v.check(fields.name.trim().length > 0, 'name', 'blank', "can't be blank");
      v.check(fields.name.length <= 255, 'name', 'too_long', 'is too long (maximum is 255 characters)');
    }
    if (fields.courseCode != null) v.check(fields.courseCode.length <= 255, 'course_code', 'too_long', 'is too long (maximum is 255 characters)');
    const start = fields.startAt !== undefined ? fields.startAt : existing?.startAt;
    const end = fields.endAt !== undefined ? fields.endAt : existing?.endAt;
    if (start && end && end.getTime() < start.getTime()) v.add('conclude_at', 'invalid', 'End date cannot be before start date');
    if (fields.defaultView != null) v.check((DEFAULT_VIEWS as readonly string[]).includes(fields.defaultView), 'default_view', 'inclusion', 'Invalid default view');
    if (fields.storageQuotaMb != null) v.check(fields.storageQuotaMb >= 0, 'storage_quota_mb', 'invalid', 'must be zero or more');
    if (fields.sisCourseId) {
      const clash = await this.ctx.ds.getRepository(Course).findOneBy({
        rootAccountId,
        sisCourseId: fields.sisCourseId,
        ...(existing ? { id: Not(existing.id) } : {}),
      });
      if (clash) v.add('sis_source_id', 'taken', `SIS ID "${fields.sisCourseId}" is already in use`);
    }
    v.throwIfInvalid();
  }

  /** Fields a caller may set: SIS ids need manage_sis and quotas manage_storage_quotas (else ignored). */
  private permittedFields(fields: CourseFields, course: Course, rights: { sis: boolean; quota: boolean }): Partial<Course> {
    const out: Partial<Course> = {};
    const copy = <K extends keyof CourseFields & keyof Course>(k: K, transform = (x: CourseFields[K]) => x as unknown as Course[K]) => {
      if (fields[k] !== undefined) out[k] = transform(fields[k]);
    };
    copy('name', (x) => (x ?? course.name).trim());
    copy('courseCode', (x) => (x ?? '').trim());
    copy('startAt');
    copy('endAt');
    copy('timeZone');
    copy('license');
    copy('publicDescription');
    copy('isPublic', (x) => Boolean(x));
    copy('defaultView', (x) => x ?? 'modules');
    copy('restrictEnrollmentsToCourseDates', (x) => Boolean(x));
    copy('masteryPathsEnabled', (x) => Boolean(x));
    if (rights.sis) {
      copy('sisCourseId', (x) => x || null);
      copy('integrationId', (x) => x || null);
    }
    if (rights.quota) copy('storageQuotaMb');
    return out;
  }

  async create(input: CreateCourseInput): Promise<{ course: Course }> {
    const account = await this.ctx.use(AccountService).lookup(input.accountId);
    await this.ctx.authz.assertAccountAdmin(account.id);
    const viewer = this.ctx.authz.requireViewer();
    await this.validate(input, account.resolvedRootId);
    const name = input.name?.trim() || 'Unnamed Course';
    const draft = Course.draft({
      accountId: account.id,
      rootAccountId: account.resolvedRootId,
      name,
      courseCode: input.courseCode?.trim() || name,
      workflowState: input.offer ? 'available' : 'unpublished',
    });
    // Only account admins create courses, and they hold manage_sis and manage_storage_quotas.
    Object.assign(draft, this.permittedFields({ ...input, name, courseCode: draft.courseCode }, draft, { sis: true, quota: true }));
    return transaction(this.ctx.ds, async (em) => {
      const course = await em.getRepository(Course).save(draft);
      const section = await em.getRepository(CourseSection).save(CourseSection.draft(course, course.name, true));
      if (input.enrollMe) {
        await em.getRepository(Enrollment).save(
          em.getRepository(Enrollment).create({
            userId: viewer.id,
            sortableName: viewer.sortableName,
            courseId: course.id,
            courseSectionId: section.id,
            rootAccountId: course.rootAccountId,
            type: 'TeacherEnrollment',
            workflowState: 'active',
          }),
        );
      }
      return { course };
    });
  }

  async update(input: UpdateCourseInput): Promise<{ course: Course }> {
    const course = await this.find(input.id, 'read');
    if (!(await this.ctx.authz.canCourse(course, 'manage_course'))) throw new ForbiddenError();
    await this.validate(input, course.rootAccountId, course);
    const changes = this.permittedFields(input, course, {
      sis: await this.ctx.authz.canCourse(course, 'manage_sis'),
      quota: await this.ctx.authz.canCourse(course, 'manage_storage_quotas'),
    });
    if (input.event) changes.workflowState = await this.applyEvent(course, input.event);
    const publishing = changes.workflowState === 'available' && course.workflowState !== 'available';
    return transaction(this.ctx.ds, async (em) => {
      Object.assign(course, changes);
      await em.getRepository(Course).save(course);
      // As Canvas's do_offer: invitations held while the course was unpublished go out now.
      if (publishing) await em.getRepository(Enrollment).update({ courseId: course.id, workflowState: 'creation_pending' }, { workflowState: 'invited' });
      return { course };
    });
  }

  private async applyEvent(course: Course, event: string): Promise<CourseState> {
    switch (event) {
      case 'offer':
        return 'available';
      case 'claim':
        return 'unpublished';
      case 'conclude':
        return 'completed';
      case 'delete':
        // Deleting a course is an account admin's call, as in Canvas's default roles.
        if (!(await this.ctx.authz.isAccountAdmin(course.accountId))) throw new ForbiddenError();
        return 'deleted';
      case 'undelete':
        return course.workflowState === 'deleted' ? 'unpublished' : course.workflowState;
      default: {
        const v = new Validator().add('event', 'inclusion', `event must be one of ${COURSE_EVENTS.join(', ')}`);
        v.throwIfInvalid();
        return course.workflowState;
      }
    }
  }

  /**
   * The viewer's courses: those with an enrollment in the given states (default active and invited),
   * ordered by id, as GET /api/v1/courses lists them. Key set pages (GraphQL cursors); Canvas's
   * numbered REST pages come as old offset cursors and read only their page, and the total (REST's
   * Link rel="last", totalCount) is counted only when asked.
   */
  async listForViewer(args: {
    first?: number | null;
    after?: string | null;
    enrollmentState?: string | null;
    enrollmentType?: string | null;
  }): Promise<ConnectionResult<Course>> {
    const viewer = this.ctx.authz.requireViewer();
    const w = keyWindow(args, 1);
    const states =
      args.enrollmentState === 'active'
        ? ['active']
        : args.enrollmentState === 'invited_or_pending'
          ? ['invited', 'creation_pending']
          : args.enrollmentState === 'completed'
            ? ['completed']
            : ['active', 'invited', 'creation_pending'];
    const type = args.enrollmentType ? `${args.enrollmentType.charAt(0).toUpperCase()}${args.enrollmentType.slice(1)}Enrollment` : null;
    const { ids, total } = await viewerCoursePage(this.ctx.ds, { userId: viewer.id, states, type }, w);
    const rows = (await this.loadMany(ids)).filter((c): c is Course => c != null);
    return keysetConnection(rows, w, (c) => [c.id], total);
  }

  /**
   * Account.coursesConnection: live courses whose account is this one (for a root account, every
   * course under it), by id, in key set pages. Account admins only, as account(id:) itself.
   */
  async listForAccount(accountRaw: string, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<Course>> {
    const account = await this.ctx.use(AccountService).find(accountRaw);
    const w = keyWindow(args, 1);
    const { rows, total } = await accountCoursePage(this.ctx.ds, account, w);
    for (const c of rows) this.ctx.loaders.byId(Course).prime(c.id, c);
    return keysetConnection(rows, w, (c) => [c.id], total);
  }

  /** The viewer's own enrollments in a course, for the `enrollments` key of course JSON. */
  viewerEnrollments(course: Course): Promise<Enrollment[]> {
    return this.ctx.authz.courseRoles(course).then((r) => r.enrollments);
  }
}
