import { Brackets, In, Not } from 'typeorm';
import { NotFoundError, RequestError, ValidationError, Validator } from '../../common/errors';
import { decodePathValue } from '../../common/ids';
import { sanitizeHtml } from '../../common/sanitize';
import type { Course } from '../../courses/course.entity';
import { pagePerParent, settleEach } from '../../db/page-per-parent';
import { transaction } from '../../db/transaction';
import type { RequestContext } from '../../request/context';
import { ConnectionResult } from '../../common/relay';
import { anyId } from '../content-access';
import { fitText } from '../content-columns';
import { PageState, WikiPage } from './page.entity';
import { slugify, unique } from './slug';
import { containsPattern } from '../../common/like';
import { ContentAccess } from '../content-access';

export interface PageFields {
  title?: string | null;
  body?: string | null;
  published?: boolean | null;
  frontPage?: boolean | null;
  editingRoles?: string | null;
  /** Canvas's write name for the to-do date (read back as todo_date). */
  studentTodoAt?: Date | null;
  /** Explicitly false clears the to-do date. */
  studentPlannerCheckbox?: boolean | null;
}

export interface PageListArgs {
  first?: number | null;
  after?: string | null;
  searchTerm?: string | null;
  sort?: string | null;
  order?: string | null;
  published?: boolean | null;
}

const TITLE_MAX = 255;
/** MySQL's TEXT holds 65,535 bytes. */
const BODY_MAX_BYTES = 65535;
const EDITING_ROLES = ['teachers', 'students', 'members', 'public'];
const SORTS: Record<string, 'title' | 'createdAt' | 'updatedAt'> = { title: 'title', created_at: 'createdAt', updated_at: 'updatedAt' };

export class PageService {
  constructor(private readonly ctx: RequestContext) {}

  private get access() {
    return this.ctx.use(ContentAccess);
  }

  /** Canvas's page lookup: `page_id:<id>`, then the slug, then a bare numeric id. Live pages only. */
  private async lookup(course: Course | null, raw: string): Promise<WikiPage | null> {
    const repo = this.ctx.ds.getRepository(WikiPage);
    const decoded = decodePathValue(raw);
    if (decoded == null) return null;
    const s = decoded.trim();
    const byId = /^page_id:(\d{1,15})$/.exec(s);
    let page: WikiPage | null = null;
    if (byId) page = await this.ctx.loaders.byId(WikiPage).load(Number(byId[1]));
    else if (course) {
      page = await repo.findOneBy({ courseId: course.id, url: s, workflowState: Not('deleted') as never });
      if (!page && /^\d{1,15}$/.test(s)) page = await this.ctx.loaders.byId(WikiPage).load(Number(s));
    }
    if (!page || page.workflowState === 'deleted' || (course && page.courseId !== course.id)) return null;
    return page;
  }

  /** A live page with its course (readable by the caller), without visibility rules. */
  private async locate(courseRaw: string | number | null | undefined, urlOrId: string): Promise<{ course: Course; page: WikiPage }> {
    const course = courseRaw == null ? null : await this.access.readableCourse(courseRaw);
    const page = await this.lookup(course, course ? urlOrId : urlOrId.startsWith('page_id:') ? urlOrId : `page_id:${anyId(urlOrId, 'Page')}`);
    if (!page) throw new NotFoundError();
    return { course: course ?? (await this.access.courseOf(page.courseId)), page };
  }

  /** A page the caller may see: unpublished pages do not exist for students. */
  async find(courseRaw: string | number | null | undefined, urlOrId: string): Promise<{ course: Course; page: WikiPage }> {
    const found = await this.locate(courseRaw, urlOrId);
    if (!found.page.published && !(await this.access.seesUnpublished(found.course))) throw new NotFoundError();
    return found;
  }

  /** GET of one page: a student's read counts as a view. */
  async show(courseRaw: string | number | null | undefined, urlOrId: string): Promise<WikiPage> {
    const { course, page } = await this.find(courseRaw, urlOrId);
    await this.access.recordView(course, 'Page', page.id);
    return page;
  }

  private async managed(courseRaw: string | null | undefined, urlOrId: string): Promise<{ course: Course; page: WikiPage }> {
    const found = await this.locate(courseRaw, urlOrId);
    await this.access.assert(found.course, 'manage_content');
    return found;
  }

  /** Pages of a course, by title unless sorted otherwise; published ones only for those who may not see unpublished content. Batched across courses. */
  listForCourse(course: Course, args: PageListArgs): Promise<ConnectionResult<WikiPage>> {
    return this.ctx.loaders.perParent('pages', args, (courses: readonly Course[]) => this.listForCourses(courses, args)).load(course);
  }

  /** One page of pages per course in one statement pair; a course the viewer may not read is refused alone. */
  async listForCourses(courses: readonly Course[], args: PageListArgs): Promise<(ConnectionResult<WikiPage> | Error)[]> {
    const term = args.searchTerm?.trim();
    // The permission first, as for one course: a refused caller learns nothing, not even about its search term.
    const sees = await settleEach(courses, async (c) => {
      await this.access.assertReadable(c);
      if (term && term.length < 2) throw new RequestError('search_term too short', 400, { errors: [{ field: 'search_term', code: 'invalid', message: '2 or more characters is required' }] });
      return this.access.seesUnpublished(c);
    });
    // The states each course's viewer gets: published only, or what `published` asks for, or both.
    const statesOf = (seesAll: boolean): PageState[] => (!seesAll ? ['active'] : args.published != null ? [args.published ? 'active' : 'unpublished'] : ['active', 'unpublished']);
    const groups = new Map<string, number[]>();
    courses.forEach((c, i) => {
      if (sees[i] instanceof Error) return;
      const key = statesOf(sees[i] as boolean).join(',');
      groups.set(key, [...(groups.get(key) ?? []), c.id]);
    });
    const qb = this.ctx.ds
      .getRepository(WikiPage)
      .createQueryBuilder('p')
      .where(
        new Brackets((b) => {
          b.where('1 = 0');
          [...groups].forEach(([states, ids], j) => b.orWhere(`(p.workflow_state IN (:...st${j}) AND p.course_id IN (:...ids${j}))`, { [`st${j}`]: states.split(','), [`ids${j}`]: ids }));
        }),
      );
    if (term) qb.andWhere("LOWER(p.title) LIKE :like ESCAPE '!'", { like: containsPattern(term) });
    const sort = SORTS[args.sort ?? 'title'] ?? 'title';
    const dir = (args.order ?? (sort === 'title' ? 'asc' : 'desc')).toLowerCase() === 'desc' ? 'DESC' : 'ASC';
    // Titles sort without regard to case on both engines (Canvas sorts by a collation key).
    const by = sort === 'title' ? { expression: `LOWER(${qb.escape('p')}.${qb.escape('title')})` } : sort === 'createdAt' ? 'created_at' : 'updated_at';
    const pages = await pagePerParent(qb, 'course_id', [[by, dir], ['id', 'ASC']], [...groups.values()].flat(), args);
    return courses.map((c, i) => (sees[i] instanceof Error ? (sees[i] as Error) : pages.get(c.id)!));
  }

  // ---- writes -----------------------------------------------------------------------------------

  private validate(input: PageFields, existing: WikiPage | null): void {
    const v = new Validator();
    if (input.title !== undefined || !existing) {
      const title = input.title?.trim() ?? '';
      if (!title) v.add('title', 'blank', "Title can't be blank");
      else if (title.length > TITLE_MAX) v.add('title', 'too_long', `Title can't exceed ${TITLE_MAX} characters`);
      else if (!slugify(title)) v.add('title', 'invalid', 'Title must contain at least one letter or number');
    }
    if (input.body != null) v.check(Buffer.byteLength(input.body) <= BODY_MAX_BYTES, 'body', 'too_long', 'Body is too long');
    if (input.editingRoles != null) {
      const roles = input.editingRoles.split(',').map((r) => r.trim()).filter(Boolean);
      v.check(roles.every((r) => EDITING_ROLES.includes(r)), 'editing_roles', 'invalid', `editing_roles must be a comma list of ${EDITING_ROLES.join(', ')}`);
    }
    const published = input.published ?? existing?.published ?? false;
    const front = input.frontPage ?? existing?.frontPage ?? false;
    if (front && !published) {
      if (existing?.frontPage && input.published === false) v.add('published', 'invalid', 'cannot unpublish front page');
      else v.add('front_page', 'invalid', 'could not set as front page because it is unpublished');
    }
    v.throwIfInvalid();
  }

  /** Title and slug unique among the course's live pages: "Intro" again becomes "Intro-2" at intro-2. */
  private async naming(course: Course, title: string, self: WikiPage | null): Promise<{ title: string; url: string }> {
    const others = await this.ctx.ds.getRepository(WikiPage).find({
      select: { id: true, title: true, url: true },
      where: { courseId: course.id, workflowState: In(['active', 'unpublished']) },
    });
    const live = others.filter((p) => p.id !== self?.id);
    const titles = new Set(live.map((p) => p.title));
    if (titles.has(title) && /-\d+$/.test(title)) throw ValidationError.of('title', 'taken', 'A page with this title already exists. Please choose a different title.');
    const finalTitle = unique(title, titles, TITLE_MAX);
    return { title: finalTitle, url: unique(slugify(finalTitle), new Set(live.map((p) => p.url)), 255) };
  }

  private apply(p: WikiPage, input: PageFields): void {
    if (input.body !== undefined) p.body = input.body == null ? null : fitText(sanitizeHtml(input.body, this.ctx.app.config), 'body', 'Body');
    if (input.published != null) p.workflowState = input.published ? 'active' : 'unpublished';
    if (input.frontPage != null) p.frontPage = input.frontPage;
    if (input.editingRoles != null) p.editingRoles = input.editingRoles.split(',').map((r) => r.trim()).filter(Boolean).join(',') || 'teachers';
    // Only content managers write pages here, so the to-do date (a manager's field in Canvas) always applies.
    if (input.studentTodoAt !== undefined) p.todoDate = input.studentTodoAt;
    if (input.studentPlannerCheckbox === false) p.todoDate = null;
    p.userId = this.ctx.viewer?.id ?? p.userId;
  }

  async create(courseRaw: string, input: PageFields): Promise<{ page: WikiPage }> {
    const course = await this.access.readableCourse(courseRaw);
    await this.access.assert(course, 'manage_content');
    this.validate(input, null);
    const naming = await this.naming(course, input.title!.trim(), null);
    return transaction(this.ctx.ds, async (em) => {
      const p = em.getRepository(WikiPage).create({ courseId: course.id, ...naming, body: null, workflowState: 'unpublished', editingRoles: 'teachers', frontPage: false, todoDate: null, userId: null });
      this.apply(p, input);
      if (p.frontPage) await em.getRepository(WikiPage).update({ courseId: course.id, frontPage: true }, { frontPage: false });
      const page = await em.getRepository(WikiPage).save(p);
      await this.access.changed(em, course.id, 'Page', page.id, 'created');
      return { page };
    });
  }

  async update(courseRaw: string | null | undefined, urlOrId: string, input: PageFields): Promise<{ page: WikiPage }> {
    const { course, page: p } = await this.managed(courseRaw, urlOrId);
    this.validate(input, p);
    const title = input.title?.trim();
    const naming = title != null && title !== p.title ? await this.naming(course, title, p) : null;
    return transaction(this.ctx.ds, async (em) => {
      if (naming) Object.assign(p, naming);
      const wasFront = p.frontPage;
      this.apply(p, input);
      if (p.frontPage && !wasFront) await em.getRepository(WikiPage).update({ courseId: course.id, frontPage: true }, { frontPage: false });
      await em.getRepository(WikiPage).save(p);
      await this.access.changed(em, course.id, 'Page', p.id, 'updated');
      return { page: p };
    });
  }

  async delete(courseRaw: string | null | undefined, urlOrId: string): Promise<{ page: WikiPage }> {
    const { course, page: p } = await this.managed(courseRaw, urlOrId);
    if (p.frontPage) throw new RequestError('cannot delete front page');
    return transaction(this.ctx.ds, async (em) => {
      p.workflowState = 'deleted';
      await em.getRepository(WikiPage).save(p);
      await this.access.changed(em, course.id, 'Page', p.id, 'deleted');
      return { page: p };
    });
  }
}
