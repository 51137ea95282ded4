import DataLoader from 'dataloader';
import { EntityManager, In, IsNull, Not } from 'typeorm';
import { Course } from '../../courses/course.entity';
import { NotFoundError, ValidationError, Validator } from '../../common/errors';
import { sanitizeHtml } from '../../common/sanitize';
import { transaction } from '../../db/transaction';
import type { RequestContext } from '../../request/context';
import { ConnectionResult } from '../../common/relay';
import type { LockView } from '../content-access';
import { fitText } from '../content-columns';
import { Submission } from '../submissions/submission.entity';
import { Assignment, AssignmentState, GRADING_TYPES, GradingType, SUBMISSION_TYPES } from './assignment.entity';
import { ContentAccess } from '../content-access';
import { backingsOf } from './assignment-backers';

export interface AssignmentFields {
  name?: string | null;
  description?: string | null;
  pointsPossible?: number | null;
  gradingType?: string | null;
  submissionTypes?: string[] | null;
  dueAt?: Date | null;
  unlockAt?: Date | null;
  lockAt?: Date | null;
  published?: boolean | null;
  position?: number | null;
}

const MAX_POINTS = 999999999;
export const NAME_MAX = 255;

export class AssignmentService {
  constructor(private readonly ctx: RequestContext) {}

  private get access() {
    return this.ctx.use(ContentAccess);
  }

  /** Unpublished assignments do not exist for callers who may not see unpublished content. */
  async assertVisible(course: Course, a: Assignment): Promise<Assignment> {
    if (!a.published && !(await this.access.seesUnpublished(course))) throw new NotFoundError();
    return a;
  }

  private async locate(courseRaw: string | number | null | undefined, raw: string | number): Promise<{ course: Course; assignment: Assignment }> {
    const { course, object } = await this.access.locate(Assignment, 'Assignment', courseRaw, raw);
    return { course, assignment: object };
  }

  /** An assignment the caller may see. */
  async find(courseRaw: string | number | null | undefined, raw: string | number): Promise<{ course: Course; assignment: Assignment }> {
    const found = await this.locate(courseRaw, raw);
    await this.assertVisible(found.course, found.assignment);
    return found;
  }

  /** An assignment the caller may manage (403 otherwise). */
  private async managed(courseRaw: string | null | undefined, raw: string): Promise<{ course: Course; assignment: Assignment }> {
    const { course, object } = await this.access.managed(Assignment, 'Assignment', courseRaw, raw, 'manage_assignments');
    return { course, assignment: object };
  }

  /** GET of one assignment: a student's read counts as a view. */
  async show(courseRaw: string | number | null | undefined, raw: string | number): Promise<Assignment> {
    const { course, assignment } = await this.find(courseRaw, raw);
    await this.access.recordView(course, 'Assignment', assignment.id);
    return assignment;
  }

  /** Assignments of a course by position, published ones only for those who may not see unpublished content. Batched across courses. */
  listForCourse(course: Course, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<Assignment>> {
    return this.ctx.loaders.perParent('assignments', args, (courses: readonly Course[]) => this.listForCourses(courses, args)).load(course);
  }

  /** One page of assignments per course in one statement pair; a course the viewer may not read is refused alone. */
  async listForCourses(courses: readonly Course[], args: { first?: number | null; after?: string | null }): Promise<(ConnectionResult<Assignment> | Error)[]> {
    return this.access.visibleContentPages(courses, Assignment, { published: 'published', unpublished: 'unpublished' }, [['position', 'ASC'], ['id', 'ASC']], args);
  }

  // ---- writes -----------------------------------------------------------------------------------

  /** Checks the fields a caller sent (the name when sent, or when creating); throws with every problem at once. */
  validateFields(input: AssignmentFields, existing: Assignment | null, creating = existing == null): void {
    const v = new Validator();
    if (input.name !== undefined || creating) {
      const name = input.name?.trim() ?? '';
      v.check(name.length > 0, 'name', 'blank');
      v.check(name.length <= NAME_MAX, 'name', 'too_long', `Name is too long (maximum is ${NAME_MAX} characters)`);
    }
    if (input.pointsPossible != null) {
      v.check(input.pointsPossible >= 0, 'points_possible', 'greater_than_or_equal_to', 'must be greater than or equal to 0');
      v.check(input.pointsPossible <= MAX_POINTS, 'points_possible', 'less_than_or_equal_to', `must be less than or equal to ${MAX_POINTS}`);
    }
    if (input.gradingType != null) v.check((GRADING_TYPES as readonly string[]).includes(input.gradingType), 'grading_type', 'inclusion', 'Invalid grading type');
    if (input.submissionTypes != null) {
      const ok = input.submissionTypes.every((t) => (SUBMISSION_TYPES as readonly string[]).includes(t));
      v.check(ok, 'submission_types', 'invalid', 'Invalid submission types');
    }
    if (input.position != null) v.check(Number.isInteger(input.position) && input.position >= 1, 'position', 'invalid', 'must be a positive integer');
    checkDates(v, input, existing);
    v.throwIfInvalid();
  }

  private apply(a: Assignment, input: AssignmentFields): void {
    if (input.name != null) a.name = input.name.trim();
    if (input.description !== undefined) a.description = input.description == null ? null : fitText(sanitizeHtml(input.description, this.ctx.app.config), 'description', 'Description');
    if (input.pointsPossible !== undefined) a.pointsPossible = input.pointsPossible;
    if (input.gradingType != null) a.gradingType = input.gradingType as GradingType;
    if (input.submissionTypes != null) a.submissionTypes = input.submissionTypes.join(',') || 'none';
    else if (input.gradingType === 'not_graded' && !a.submissionTypes) a.submissionTypes = 'not_graded';
    if (input.dueAt !== undefined) a.dueAt = input.dueAt;
    if (input.unlockAt !== undefined) a.unlockAt = input.unlockAt;
    if (input.lockAt !== undefined) a.lockAt = input.lockAt;
    if (input.published != null) a.workflowState = input.published ? 'published' : 'unpublished';
    if (input.position != null) a.position = input.position;
  }

  async create(courseRaw: string, input: AssignmentFields): Promise<{ assignment: Assignment }> {
    const course = await this.access.readableCourse(courseRaw);
    await this.access.assert(course, 'manage_assignments');
    this.validateFields(input, null);
    return transaction(this.ctx.ds, async (em) => {
      const assignment = await this.insert(em, course, input);
      return { assignment };
    });
  }

  /** Inserts an assignment (also the backing assignment of a graded quiz) and raises content.changed. */
  async insert(em: EntityManager, course: Course, input: AssignmentFields): Promise<Assignment> {
    const a = em.getRepository(Assignment).create({
      courseId: course.id,
      name: '',
      description: null,
      pointsPossible: null,
      gradingType: 'points',
      submissionTypes: input.gradingType === 'not_graded' ? 'not_graded' : 'none',
      dueAt: null,
      unlockAt: null,
      lockAt: null,
      workflowState: 'unpublished',
    });
    this.apply(a, input);
    if (input.position == null) {
      const last = await em.getRepository(Assignment).findOne({ where: { courseId: course.id }, order: { position: 'DESC' } });
      a.position = (last?.position ?? 0) + 1;
    }
    const saved = await em.getRepository(Assignment).save(a);
    await this.access.changed(em, course.id, 'Assignment', saved.id, 'created');
    return saved;
  }

  async update(courseRaw: string | null | undefined, raw: string, input: AssignmentFields): Promise<{ assignment: Assignment }> {
    const { course, assignment: a } = await this.managed(courseRaw, raw);
    this.validateFields(input, a);
    if (input.published === false && a.published && (await this.hasSubmittedLoader().load(a.id))) {
      throw ValidationError.of('published', 'invalid', "Can't unpublish if there are student submissions");
    }
    const backings = await backingsOf(this.ctx, a.id);
    // A graded discussion with posts stays published, as the topic itself does.
    if (input.published === false && a.published) {
      for (const b of backings) {
        const refusal = await b.unpublishRefusal?.();
        if (refusal) throw ValidationError.of('published', 'invalid', refusal);
      }
    }
    // A quiz's assignment always takes quiz submissions; a graded discussion's, discussion posts.
    if (backings.length) input = { ...input, submissionTypes: undefined };
    return transaction(this.ctx.ds, async (em) => {
      await this.saveWith(em, a, input);
      for (const b of backings) await b.followEdit(em, a);
      return { assignment: a };
    });
  }

  /** Applies already validated fields to a live assignment, saves it and raises content.changed. */
  async saveWith(em: EntityManager, a: Assignment, input: AssignmentFields): Promise<Assignment> {
    this.apply(a, input);
    await em.getRepository(Assignment).save(a);
    await this.access.changed(em, a.courseId, 'Assignment', a.id, 'updated');
    return a;
  }

  async delete(courseRaw: string | null | undefined, raw: string): Promise<{ assignment: Assignment }> {
    const { assignment: a } = await this.managed(courseRaw, raw);
    const backings = await backingsOf(this.ctx, a.id);
    return transaction(this.ctx.ds, async (em) => {
      await this.softDelete(em, a);
      // Deleting a quiz's (or a graded discussion's) assignment deletes the quiz (or topic), as in Canvas.
      for (const b of backings) await b.followDelete(em);
      return { assignment: a };
    });
  }

  async softDelete(em: EntityManager, a: Assignment): Promise<void> {
    a.workflowState = 'deleted';
    await em.getRepository(Assignment).save(a);
    await this.access.changed(em, a.courseId, 'Assignment', a.id, 'deleted');
  }

  // ---- per-object facts, batched --------------------------------------------------------------

  /** Whether students have turned anything in (blocks unpublishing). */
  hasSubmittedLoader(): DataLoader<number, boolean> {
    return this.ctx.loaders.get('assignments:hasSubmitted', () =>
      new DataLoader<number, boolean>(async (ids) => {
        const set = await submittedTo(this.ctx.ds.manager, [...ids]);
        return ids.map((id) => set.has(id));
      }),
    );
  }

  lockFor(a: Assignment): Promise<LockView> {
    return this.access.lockView(a, `assignment_${a.id}`);
  }
}

/** due_at must fall inside unlock_at..lock_at, and unlock_at must come before lock_at (given values over stored ones). */
export function checkDates(v: Validator, input: DateFields, existing: DateFields | null): void {
  const get = (k: keyof DateFields) => (input[k] !== undefined ? input[k] : existing?.[k] ?? null);
  const [dueAt, unlockAt, lockAt] = [get('dueAt'), get('unlockAt'), get('lockAt')];
  if (unlockAt && lockAt && lockAt < unlockAt) v.add('lock_at', 'invalid', 'Lock date cannot be before unlock date');
  if (dueAt && unlockAt && dueAt < unlockAt) v.add('due_at', 'invalid', 'Due date cannot be before unlock date');
  if (dueAt && lockAt && dueAt > lockAt) v.add('due_at', 'invalid', 'Due date cannot be after lock date');
}

type DateFields = { dueAt?: Date | null; unlockAt?: Date | null; lockAt?: Date | null };

/** Which of the assignments students have submitted to (an attempt turned in, not just a grade). */
export async function submittedTo(em: EntityManager, assignmentIds: number[]): Promise<Set<number>> {
  if (!assignmentIds.length) return new Set();
  const rows = await em.getRepository(Submission).find({ select: { assignmentId: true }, where: { assignmentId: In(assignmentIds), submittedAt: Not(IsNull()) } });
  return new Set(rows.map((r) => r.assignmentId));
}
