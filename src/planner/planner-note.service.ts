import { Brackets, In } from 'typeorm';
import { NotFoundError, RequestError, Validator } from '../common/errors';
import { numericId } from '../common/ids';
import { Course } from '../courses/course.entity';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { idArg, ConnectionResult } from '../common/relay';
import { pagePerParent } from '../db/page-per-parent';
import { publishNoteChange } from './planner-events';
import { PlannerNote } from './planner-note.entity';
import { notesWindow, parseContextCodes } from './planner-scope';
import { LINKABLE_TYPES, locatePlannable, plannableUrls } from './plannables';
import { CourseService } from '../courses/course.service';

export interface CreateNoteInput {
  title?: string | null;
  details?: string | null;
  todoDate?: Date | null;
  courseId?: string | null;
  linkedObjectType?: string | null;
  linkedObjectId?: string | null;
}

export interface UpdateNoteInput {
  id: string;
  title?: string | null;
  details?: string | null;
  todoDate?: Date | null;
  courseId?: string | null;
}

export interface NotesListArgs {
  first?: number | null;
  after?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  contextCodes?: string[] | null;
}

const TITLE_MAX = 255;
const DETAILS_MAX_BYTES = 65_535;
const toSecond = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);
/** A note id as a path or GraphQL argument gives it (numeric or global). */
export const noteIdArg = (raw: string | number): number => numericId(idArg(raw, 'PlannerNote'));

/**
 * Planner notes: a user's own reminders. Every lookup is scoped to the caller, so another user's note
 * is indistinguishable from a missing one (404), and writes touch only the caller's rows.
 */
export class PlannerNoteService {
  constructor(private readonly ctx: RequestContext) {}

  /** GET /planner_notes: active notes, optionally within an inclusive date range and some contexts. */
  async list(args: NotesListArgs): Promise<ConnectionResult<PlannerNote>> {
    const viewer = this.ctx.authz.requireViewer();
    const { start, end } = notesWindow(args.startDate, args.endDate);
    const qb = this.ctx.ds
      .getRepository(PlannerNote)
      .createQueryBuilder('n')
      .leftJoin(Course, 'c', 'c.id = n.course_id')
      .where('n.user_id = :uid AND n.workflow_state = :active', { uid: viewer.id, active: 'active' })
      // Notes of deleted courses are left out.
      .andWhere(new Brackets((b) => b.where('n.course_id IS NULL').orWhere('c.workflow_state <> :deleted', { deleted: 'deleted' })));
    if (start) qb.andWhere('n.todo_date >= :start', { start });
    if (end) qb.andWhere('n.todo_date <= :end', { end });
    const codes = parseContextCodes(args.contextCodes);
    if (codes.given) {
      // Only readable courses count; the user's own code adds the notes without a course.
      const readable: number[] = [];
      if (codes.courses.size) {
        const courses = await this.ctx.use(CourseService).loadMany([...codes.courses]);
        for (const c of courses) if (c && (await this.ctx.authz.canCourse(c, 'read'))) readable.push(c.id);
      }
      const own = codes.users.has(viewer.id);
      qb.andWhere(
        new Brackets((b) => {
          b.where('1 = 0');
          if (readable.length) b.orWhere('n.course_id IN (:...cids)', { cids: readable });
          if (own) b.orWhere('n.course_id IS NULL');
        }),
      );
    }
    // A key set page on the notes table itself, from the (user, state, id) index: the course join is
    // a filter per note read, not a DISTINCT over every note of the user, and the total is counted
    // only when asked.
    const pages = await pagePerParent(qb, 'user_id', [['id', 'ASC']], [viewer.id], { first: args.first, after: args.after });
    return pages.get(viewer.id)!;
  }

  /** The caller's live note; anyone else's, or a deleted one, is 404. */
  async own(raw: string | number): Promise<PlannerNote> {
    const viewer = this.ctx.authz.requireViewer();
    const note = await this.ctx.ds.getRepository(PlannerNote).findOneBy({ id: noteIdArg(raw), userId: viewer.id });
    if (!note || note.workflowState === 'deleted') throw new NotFoundError();
    return note;
  }

  private validate(v: Validator, fields: { title?: string | null; details?: string | null; todoDate?: Date | null }, creating: boolean): void {
    if (fields.title !== undefined || creating) {
      const title = fields.title?.trim() ?? '';
      if (!title) v.add('title', 'blank');
      else v.check(title.length <= TITLE_MAX, 'title', 'too_long', `is too long (maximum is ${TITLE_MAX} characters)`);
    }
    if (fields.details != null) v.check(Buffer.byteLength(fields.details, 'utf8') <= DETAILS_MAX_BYTES, 'details', 'too_long', 'is too long');
    if ((fields.todoDate !== undefined || creating) && fields.todoDate == null) v.add('todo_date', 'blank');
  }

  /** A course the caller may read: 404 when missing, 403 otherwise. */
  private course(raw: string): Promise<Course> {
    return this.ctx.use(CourseService).find(idArg(raw, 'Course'), 'read');
  }

  /** POST /planner_notes → 201. */
  async create(input: CreateNoteInput): Promise<{ plannerNote: PlannerNote }> {
    const viewer = this.ctx.authz.requireViewer();
    const courseRaw = input.courseId != null && input.courseId !== '' ? input.courseId : null;
    const linking = input.linkedObjectType != null && input.linkedObjectType !== '' && input.linkedObjectId != null && input.linkedObjectId !== '';
    let course: Course | null = null;
    let linked: { type: string; id: number; title: string } | null = null;
    if (linking) {
      if (!courseRaw) throw new RequestError('must specify course_id');
      if (!(LINKABLE_TYPES as readonly string[]).includes(input.linkedObjectType!)) throw new RequestError('invalid linked_object_type');
    }
    if (courseRaw) course = await this.course(courseRaw);
    if (linking) {
      const ref = await locatePlannable(this.ctx, input.linkedObjectType!, input.linkedObjectId!, course!.id);
      // Announcements are reported (and matched) as discussion topics, as Canvas does.
      linked = { type: ref.type === 'announcement' ? 'discussion_topic' : ref.type, id: ref.id, title: ref.title };
    }
    const title = input.title != null && input.title.trim() !== '' ? input.title : (linked?.title ?? input.title);
    const v = new Validator();
    this.validate(v, { title, details: input.details, todoDate: input.todoDate }, true);
    v.throwIfInvalid();
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(PlannerNote);
      if (linked && (await repo.findOneBy({ userId: viewer.id, linkedObjectType: linked.type, linkedObjectId: linked.id, workflowState: 'active' }))) {
        throw new RequestError('a planner note linked to that object already exists');
      }
      const note = await repo.save(
        repo.create({
          userId: viewer.id,
          courseId: course?.id ?? null,
          title: title!.trim(),
          details: input.details ?? null,
          todoDate: toSecond(input.todoDate!),
          workflowState: 'active',
          linkedObjectType: linked?.type ?? null,
          linkedObjectId: linked?.id ?? null,
        }),
      );
      publishNoteChange(em, this.ctx, note, 'created');
      return { plannerNote: note };
    });
  }

  /** PUT /planner_notes/:id: title, details, todo_date, course_id (null or empty detaches; fixed on linked notes). */
  async update(input: UpdateNoteInput): Promise<{ plannerNote: PlannerNote }> {
    const note = await this.own(input.id);
    let courseId: number | null | undefined;
    if (input.courseId !== undefined) {
      const raw = input.courseId == null || input.courseId === '' ? null : input.courseId;
      if (note.linkedObjectType != null) {
        const same = raw == null ? note.courseId == null : note.courseId != null && idArg(raw, 'Course') === String(note.courseId);
        if (!same) throw new RequestError('course_id cannot be changed for linked planner notes');
      } else courseId = raw == null ? null : (await this.course(raw)).id;
    }
    const v = new Validator();
    this.validate(v, { title: input.title, details: input.details, todoDate: input.todoDate }, false);
    v.throwIfInvalid();
    return transaction(this.ctx.ds, async (em) => {
      if (input.title != null) note.title = input.title.trim();
      if (input.details !== undefined) note.details = input.details;
      if (input.todoDate != null) note.todoDate = toSecond(input.todoDate);
      if (courseId !== undefined) note.courseId = courseId;
      const saved = await em.getRepository(PlannerNote).save(note);
      publishNoteChange(em, this.ctx, saved, 'updated');
      return { plannerNote: saved };
    });
  }

  /** DELETE /planner_notes/:id: soft delete; the note comes back with workflow_state deleted. */
  async delete(raw: string | number): Promise<{ plannerNote: PlannerNote }> {
    const note = await this.own(raw);
    return transaction(this.ctx.ds, async (em) => {
      note.workflowState = 'deleted';
      const saved = await em.getRepository(PlannerNote).save(note);
      publishNoteChange(em, this.ctx, saved, 'deleted');
      return { plannerNote: saved };
    });
  }

  /** The caller's notes by id (any state), for subscriptions and batch presenters. */
  async ownMany(ids: number[]): Promise<PlannerNote[]> {
    const viewer = this.ctx.authz.requireViewer();
    return ids.length ? this.ctx.ds.getRepository(PlannerNote).findBy({ id: In(ids), userId: viewer.id }) : [];
  }

  linkedUrls(note: PlannerNote): { html: string | null; api: string | null } {
    if (note.linkedObjectType == null || note.linkedObjectId == null) return { html: null, api: null };
    return plannableUrls(this.ctx.baseUrl, note.linkedObjectType, note.linkedObjectId, note.courseId);
  }
}
