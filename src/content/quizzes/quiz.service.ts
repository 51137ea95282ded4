import DataLoader from 'dataloader';
import { EntityManager, In, Not } from 'typeorm';
import { NotFoundError, ValidationError, Validator } from '../../common/errors';
import { sanitizeHtml } from '../../common/sanitize';
import { Course } from '../../courses/course.entity';
import { transaction } from '../../db/transaction';
import type { RequestContext } from '../../request/context';
import { ConnectionResult } from '../../common/relay';
import type { LockView } from '../content-access';
import { fitText } from '../content-columns';
import { Assignment } from '../assignments/assignment.entity';
import { AssignmentFields, checkDates, NAME_MAX } from '../assignments/assignment.service';
import { QuizSubmission } from './quiz-submission.entity';
import { Quiz, QUIZ_TYPES, QuizState, QuizType, SCORING_POLICIES } from './quiz.entity';
import { ContentAccess } from '../content-access';
import { AssignmentService } from '../assignments/assignment.service';
import type { AssignmentBacker } from '../assignments/assignment-backers';
import { ownQuizSubmissions } from './quiz-submission.reads';

export interface QuizFields {
  title?: string | null;
  description?: string | null;
  quizType?: string | null;
  timeLimit?: number | null;
  allowedAttempts?: number | null;
  scoringPolicy?: string | null;
  shuffleAnswers?: boolean | null;
  accessCode?: string | null;
  pointsPossible?: number | null;
  dueAt?: Date | null;
  unlockAt?: Date | null;
  lockAt?: Date | null;
  published?: boolean | null;
}

export class QuizService {
  constructor(private readonly ctx: RequestContext) {}

  private get access() {
    return this.ctx.use(ContentAccess);
  }

  loadMany(ids: number[]): Promise<(Quiz | null)[]> {
    return this.ctx.loaders
      .byId(Quiz)
      .loadMany(ids)
      .then((rows) => rows.map((r) => (r instanceof Error ? null : r)));
  }

  /** A quiz the caller may see: unpublished quizzes do not exist for students. */
  async find(courseRaw: string | number | null | undefined, raw: string | number): Promise<{ course: Course; quiz: Quiz }> {
    const { course, object: quiz } = await this.access.locate(Quiz, 'Quiz', courseRaw, raw);
    if (!quiz.published && !(await this.access.seesUnpublished(course))) throw new NotFoundError();
    return { course, quiz };
  }

  /** GET of one quiz: a student's read counts as a view. */
  async show(courseRaw: string | number | null | undefined, raw: string | number): Promise<Quiz> {
    const { course, quiz } = await this.find(courseRaw, raw);
    await this.access.recordView(course, 'Quiz', quiz.id);
    return quiz;
  }

  private async managed(courseRaw: string | null | undefined, raw: string): Promise<{ course: Course; quiz: Quiz }> {
    const { course, object } = await this.access.managed(Quiz, 'Quiz', courseRaw, raw, 'manage_assignments');
    return { course, quiz: object };
  }

  /** Quizzes of a course by id, available ones only for those who may not see unpublished content. Batched across courses. */
  listForCourse(course: Course, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<Quiz>> {
    return this.ctx.loaders.perParent('quizzes', args, (courses: readonly Course[]) => this.listForCourses(courses, args)).load(course);
  }

  /** One page of quizzes per course in one statement pair; a course the viewer may not read is refused alone. */
  async listForCourses(courses: readonly Course[], args: { first?: number | null; after?: string | null }): Promise<(ConnectionResult<Quiz> | Error)[]> {
    return this.access.visibleContentPages(courses, Quiz, { published: 'available', unpublished: 'unpublished' }, [['id', 'ASC']], args);
  }

  // ---- writes -----------------------------------------------------------------------------------

  private validate(input: QuizFields, existing: Quiz | null): void {
    const v = new Validator();
    if (input.title !== undefined || !existing) {
      const title = input.title?.trim() ?? '';
      v.check(title.length > 0, 'title', 'blank');
      v.check(title.length <= NAME_MAX, 'title', 'too_long', `Title is too long (maximum is ${NAME_MAX} characters)`);
    }
    if (input.quizType != null) v.check((QUIZ_TYPES as readonly string[]).includes(input.quizType), 'invalid_quiz_type', 'invalid', 'Quiz type is not valid');
    if (input.timeLimit != null) v.check(input.timeLimit > 0, 'time_limit', 'invalid', 'Time Limit is not valid');
    if (input.allowedAttempts != null) {
      v.check(Number.isInteger(input.allowedAttempts) && (input.allowedAttempts === -1 || input.allowedAttempts >= 1), 'allowed_attempts', 'invalid', 'must be -1 (unlimited) or a positive number');
    }
    if (input.scoringPolicy != null) v.check((SCORING_POLICIES as readonly string[]).includes(input.scoringPolicy), 'scoring_policy', 'inclusion', 'Scoring policy is not valid');
    if (input.pointsPossible != null) v.check(input.pointsPossible >= 0, 'points_possible', 'greater_than_or_equal_to', 'must be greater than or equal to 0');
    checkDates(v, input, existing);
    v.throwIfInvalid();
  }

  private apply(q: Quiz, input: QuizFields): void {
    if (input.title != null) q.title = input.title.trim();
    if (input.description !== undefined) q.description = input.description == null ? null : fitText(sanitizeHtml(input.description, this.ctx.app.config), 'description', 'Description');
    if (input.quizType != null) q.quizType = input.quizType as QuizType;
    if (input.timeLimit !== undefined) q.timeLimit = input.timeLimit;
    if (input.allowedAttempts != null) q.allowedAttempts = input.allowedAttempts;
    if (input.scoringPolicy != null) q.scoringPolicy = input.scoringPolicy;
    if (input.shuffleAnswers != null) q.shuffleAnswers = input.shuffleAnswers;
    if (input.accessCode !== undefined) q.accessCode = input.accessCode || null;
    if (input.pointsPossible !== undefined) q.pointsPossible = input.pointsPossible;
    if (input.dueAt !== undefined) q.dueAt = input.dueAt;
    if (input.unlockAt !== undefined) q.unlockAt = input.unlockAt;
    if (input.lockAt !== undefined) q.lockAt = input.lockAt;
    if (input.published != null) q.workflowState = input.published ? 'available' : 'unpublished';
  }

  /** The backing assignment's fields, from the quiz. */
  private assignmentFields(q: Quiz): AssignmentFields {
    return {
      name: q.title,
      pointsPossible: q.pointsPossible,
      dueAt: q.dueAt,
      unlockAt: q.unlockAt,
      lockAt: q.lockAt,
      published: q.published,
      submissionTypes: ['online_quiz'],
    };
  }

  async create(courseRaw: string, input: QuizFields): Promise<{ quiz: Quiz }> {
    const course = await this.access.readableCourse(courseRaw);
    await this.access.assert(course, 'manage_assignments');
    this.validate(input, null);
    return transaction(this.ctx.ds, async (em) => {
      const q = em.getRepository(Quiz).create({
        courseId: course.id,
        title: '',
        description: null,
        quizType: 'assignment',
        assignmentId: null,
        timeLimit: null,
        allowedAttempts: 1,
        scoringPolicy: 'keep_highest',
        shuffleAnswers: false,
        accessCode: null,
        pointsPossible: null,
        dueAt: null,
        unlockAt: null,
        lockAt: null,
        workflowState: 'unpublished',
      });
      this.apply(q, input);
      if (q.graded) q.assignmentId = (await this.ctx.use(AssignmentService).insert(em, course, this.assignmentFields(q))).id;
      const quiz = await em.getRepository(Quiz).save(q);
      await this.access.changed(em, course.id, 'Quiz', quiz.id, 'created');
      return { quiz };
    });
  }

  async update(courseRaw: string | null | undefined, raw: string, input: QuizFields): Promise<{ quiz: Quiz }> {
    const { course, quiz: q } = await this.managed(courseRaw, raw);
    this.validate(input, q);
    if (input.published === false && q.published && (await this.hasStudentSubmissions(q))) {
      throw ValidationError.of('published', 'invalid', "Can't unpublish if there are student submissions");
    }
    return transaction(this.ctx.ds, async (em) => {
      this.apply(q, input);
      const assignment = q.assignmentId ? await em.getRepository(Assignment).findOneBy({ id: q.assignmentId }) : null;
      if (q.graded && (!assignment || assignment.workflowState === 'deleted')) {
        q.assignmentId = (await this.ctx.use(AssignmentService).insert(em, course, this.assignmentFields(q))).id;
      } else if (!q.graded && assignment) {
        // A quiz that is no longer graded loses its assignment, as in Canvas.
        if (assignment.workflowState !== 'deleted') await this.ctx.use(AssignmentService).softDelete(em, assignment);
        q.assignmentId = null;
      } else if (assignment) {
        Object.assign(assignment, { name: q.title, pointsPossible: q.pointsPossible, dueAt: q.dueAt, unlockAt: q.unlockAt, lockAt: q.lockAt, workflowState: q.published ? 'published' : 'unpublished' });
        await em.getRepository(Assignment).save(assignment);
        await this.access.changed(em, course.id, 'Assignment', assignment.id, 'updated');
      }
      await em.getRepository(Quiz).save(q);
      await this.access.changed(em, course.id, 'Quiz', q.id, 'updated');
      return { quiz: q };
    });
  }

  async delete(courseRaw: string | null | undefined, raw: string): Promise<{ quiz: Quiz }> {
    const { quiz } = await this.managed(courseRaw, raw);
    return transaction(this.ctx.ds, async (em) => {
      await this.softDelete(em, quiz, true);
      return { quiz };
    });
  }

  /** Deletes the quiz (and, when asked, its assignment). */
  async softDelete(em: EntityManager, quiz: Quiz, withAssignment: boolean): Promise<void> {
    quiz.workflowState = 'deleted';
    await em.getRepository(Quiz).save(quiz);
    await this.access.changed(em, quiz.courseId, 'Quiz', quiz.id, 'deleted');
    if (withAssignment && quiz.assignmentId) {
      const a = await em.getRepository(Assignment).findOneBy({ id: quiz.assignmentId });
      if (a && a.workflowState !== 'deleted') await this.ctx.use(AssignmentService).softDelete(em, a);
    }
  }

  /** An edit of a quiz's assignment through the assignments API carries over to the quiz. */
  async syncFromAssignment(em: EntityManager, quiz: Quiz, a: Assignment): Promise<void> {
    Object.assign(quiz, { title: a.name, pointsPossible: a.pointsPossible, dueAt: a.dueAt, unlockAt: a.unlockAt, lockAt: a.lockAt, workflowState: a.published ? 'available' : 'unpublished' });
    await em.getRepository(Quiz).save(quiz);
    await this.access.changed(em, quiz.courseId, 'Quiz', quiz.id, 'updated');
  }

  // ---- facts ------------------------------------------------------------------------------------

  /** The live quiz an assignment grades, batched. */
  backedByLoader(): DataLoader<number, Quiz | null> {
    return this.ctx.loaders.get('quizzes:byAssignment', () =>
      new DataLoader<number, Quiz | null>(async (ids) => {
        const rows = await this.ctx.ds.getRepository(Quiz).findBy({ assignmentId: In([...ids]), workflowState: Not('deleted') });
        return ids.map((id) => rows.find((q) => q.assignmentId === id) ?? null);
      }),
    );
  }

  backedBy(assignmentId: number): Promise<Quiz | null> {
    return this.backedByLoader().load(assignmentId);
  }

  /** Students have taken it (settings-only rows and previews do not count). */
  hasStudentSubmissionsLoader(): DataLoader<number, boolean> {
    return this.ctx.loaders.get('quizzes:hasSubmissions', () =>
      new DataLoader<number, boolean>(async (ids) => {
        const set = await takenQuizzes(this.ctx.ds.manager, [...ids]);
        return ids.map((id) => set.has(id));
      }),
    );
  }

  hasStudentSubmissions(q: Quiz): Promise<boolean> {
    return this.hasStudentSubmissionsLoader().load(q.id);
  }

  /** Lock state for the viewer: staff never; students outside the dates unless manually unlocked. */
  async lockFor(q: Quiz): Promise<LockView> {
    const own = this.ctx.viewer ? await ownQuizSubmissions(this.ctx).load(q.id) : null;
    return this.access.lockView(q, `quizzes:quiz_${q.id}`, Boolean(own?.manuallyUnlocked));
  }
}

/** A graded quiz follows its assignment: edits carry over to the quiz, and deleting the assignment deletes the quiz. */
export const quizAssignmentBacker: AssignmentBacker = {
  name: 'quiz',
  async backing(ctx, assignmentId) {
    const quiz = await ctx.use(QuizService).backedBy(assignmentId);
    if (!quiz) return null;
    return {
      followEdit: (em, a) => ctx.use(QuizService).syncFromAssignment(em, quiz, a),
      // The assignment is being deleted already.
      followDelete: (em) => ctx.use(QuizService).softDelete(em, quiz, false),
    };
  },
};

/** Which of the quizzes students have taken (settings-only rows and previews do not count). */
export async function takenQuizzes(em: EntityManager, quizIds: number[]): Promise<Set<number>> {
  if (!quizIds.length) return new Set();
  const rows = await em.getRepository(QuizSubmission).find({
    select: { quizId: true },
    where: { quizId: In(quizIds), workflowState: Not(In(['settings_only', 'preview'])), wasPreview: false },
  });
  return new Set(rows.map((r) => r.quizId));
}
