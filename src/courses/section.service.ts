import { ForbiddenError, NotFoundError, Validator } from '../common/errors';
import { parseIdParam } from '../common/ids';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { pagePerParent } from '../db/page-per-parent';
import { ConnectionResult } from '../common/relay';
import { Course } from './course.entity';
import { CourseSection } from './section.entity';
import { CourseService } from './course.service';

export interface CreateSectionInput {
  courseId: string;
  name?: string | null;
  sisSectionId?: string | null;
  integrationId?: string | null;
  startAt?: Date | null;
  endAt?: Date | null;
  restrictEnrollmentsToSectionDates?: boolean | null;
}

export class SectionService {
  constructor(private readonly ctx: RequestContext) {}

  /** A live section of the course by id or sis_section_id:; sections of other courses are not found. */
  async lookupInCourse(course: Course, raw: string | number): Promise<CourseSection> {
    const p = parseIdParam(raw, ['sis_section_id']);
    const section =
      p.kind === 'id'
        ? await this.ctx.loaders.byId(CourseSection).load(p.id)
        : await this.ctx.ds.getRepository(CourseSection).findOneBy({ courseId: course.id, sisSectionId: p.kind === 'prefixed' ? p.value : '' });
    if (!section || section.courseId !== course.id || section.workflowState === 'deleted') throw new NotFoundError();
    return section;
  }

  async find(id: number): Promise<CourseSection> {
    const section = await this.ctx.loaders.byId(CourseSection).load(id);
    if (!section || section.workflowState === 'deleted') throw new NotFoundError();
    await this.ctx.use(CourseService).find(section.courseId, 'read');
    return section;
  }

  async create(input: CreateSectionInput): Promise<{ section: CourseSection }> {
    const course = await this.ctx.use(CourseService).find(input.courseId, 'read');
    if (!(await this.ctx.authz.canCourse(course, 'manage_sections'))) throw new ForbiddenError();
    const name = (input.name ?? '').trim();
    const v = new Validator()
      .check(name.length > 0, 'name', 'blank', "can't be blank")
      .check(name.length <= 255, 'name', 'too_long', 'is too long (maximum is 255 characters)');
    if (input.startAt && input.endAt && input.endAt < input.startAt) v.add('end_at', 'invalid', "End date can't be before start date");
    const canSis = await this.ctx.authz.canCourse(course, 'manage_sis');
    if (canSis && input.sisSectionId) {
      const clash = await this.ctx.ds.getRepository(CourseSection).findOneBy({ rootAccountId: course.rootAccountId, sisSectionId: input.sisSectionId });
      if (clash) v.add('sis_source_id', 'taken', `SIS ID "${input.sisSectionId}" is already in use`);
    }
    v.throwIfInvalid();
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(CourseSection);
      const section = await repo.save(
        Object.assign(CourseSection.draft(course, name), {
          sisSectionId: canSis ? input.sisSectionId || null : null,
          integrationId: canSis ? input.integrationId || null : null,
          startAt: input.startAt ?? null,
          endAt: input.endAt ?? null,
          restrictEnrollmentsToSectionDates: Boolean(input.restrictEnrollmentsToSectionDates),
        }),
      );
      return { section };
    });
  }

  /** Sections of a course, by id; visible to anyone who may read its roster. Batched across courses (listForCourses). */
  listForCourse(course: Course, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<CourseSection>> {
    return this.ctx.loaders.perParent('sections', args, (courses: readonly Course[]) => this.listForCourses(courses, args)).load(course);
  }

  /** One page of sections per course, in one statement pair; a course whose roster the viewer may not read is refused alone. */
  async listForCourses(courses: readonly Course[], args: { first?: number | null; after?: string | null }): Promise<(ConnectionResult<CourseSection> | Error)[]> {
    const allowed = await Promise.all(courses.map((c) => this.ctx.authz.canCourse(c, 'read_roster')));
    const qb = this.ctx.ds.getRepository(CourseSection).createQueryBuilder('s').where('s.workflow_state = :active', { active: 'active' });
    const pages = await pagePerParent(qb, 'course_id', [['id', 'ASC']], courses.filter((_, i) => allowed[i]).map((c) => c.id), args);
    return courses.map((c, i) => (allowed[i] ? pages.get(c.id)! : new ForbiddenError()));
  }
}
