import { In } from 'typeorm';
import { keysetConnection } from '../../common/connection';
import { KeyWindow, keyWindow, pageLimitSql } from '../../common/keyset';
import type { ConnectionResult } from '../../common/relay';
import { CourseService } from '../../courses/course.service';
import { idKey, SqlPart, readParts } from '../../db/union-pages';
import type { RequestContext } from '../../request/context';
import { ContentAccess } from '../content-access';
import { ownQuizSubmissions } from './quiz-submission.reads';
import { QuizSubmission, QuizSubmissionAttempt } from './quiz-submission.entity';
import type { Quiz } from './quiz.entity';

/** A quiz's list for one viewer: null when they may not list it. */
type Listing = ConnectionResult<QuizSubmission> | null;

/**
 * GET …/quizzes/:id/submissions paged in SQL. Graders: every current student's submission by
 * student id, read on the (quiz, user) index with the current-student rule as an EXISTS, so the LIMIT
 * applies after it. A student: their attempt in progress, or else the attempts they turned in, by
 * attempt number on the (submission, attempt) index. Key set cursors carry the student id or the
 * attempt; a list of quizzes costs one statement for all (a union) plus one for the rows, and
 * totals are counted only when selected.
 */
export class QuizSubmissionPages {
  constructor(private readonly ctx: RequestContext) {}

  page(quiz: Quiz, grader: boolean, args: { first?: number | null; after?: string | null }): Promise<Listing> {
    const w = keyWindow(args, 1);
    return this.ctx.loaders.perParent<Quiz, Listing>(`quizSubmissions:page:${grader}`, w, (qs) => (grader ? this.graded(qs, w) : this.own(qs, w))).load(quiz);
  }

  private async graded(quizzes: readonly Quiz[], w: KeyWindow): Promise<Listing[]> {
    const conds: SqlPart[] = quizzes.map((q) => ({
      // Current students, as ContentAccess.currentStudents.
      sql:
        'qs.quiz_id = ? AND qs.was_preview = ? AND EXISTS (SELECT 1 FROM enrollments e WHERE e.user_id = qs.user_id AND e.course_id = ?' +
        " AND e.type = 'StudentEnrollment' AND e.workflow_state IN ('active', 'invited'))",
      params: [q.id, false, q.courseId],
    }));
    const ids = await this.pageIds(conds, w, 'quiz_submissions qs', 'qs.user_id');
    const all = ids.flat();
    const rows = all.length ? await this.ctx.ds.getRepository(QuizSubmission).findBy({ id: In(all) }) : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const totals = this.totals(conds, 'quiz_submissions qs');
    return quizzes.map((_, i) => {
      const page = ids[i].map((id) => byId.get(id)).filter((r): r is QuizSubmission => r != null);
      return keysetConnection(page, w, (r) => [r.userId], async () => (await totals())[i]);
    });
  }

  private async own(quizzes: readonly Quiz[], w: KeyWindow): Promise<Listing[]> {
    const access = this.ctx.use(ContentAccess);
    const courses = await this.ctx.use(CourseService).loadMany([...new Set(quizzes.map((q) => q.courseId))]);
    const student = new Map<number, boolean>();
    for (const c of courses) if (c) student.set(c.id, await access.isStudent(c));
    const own = await ownQuizSubmissions(this.ctx).loadMany(quizzes.map((q) => q.id));
    const row = (i: number) => (own[i] instanceof Error ? null : (own[i] as QuizSubmission | null));
    // Attempts turned in, of the quizzes whose submission is taken; a student has at most one submission per quiz.
    const taken = quizzes.map((q, i) => (student.get(q.courseId) && row(i) && !row(i)!.wasPreview && row(i)!.workflowState !== 'untaken' ? row(i) : null));
    const conds = taken.filter((r): r is QuizSubmission => r != null).map((r) => ({ sql: 'qa.quiz_submission_id = ?', params: [r.id] as unknown[] }));
    const ids = await this.pageIds(conds, w, 'quiz_submission_attempts qa', 'qa.attempt');
    const all = ids.flat();
    const attempts = all.length ? await this.ctx.ds.getRepository(QuizSubmissionAttempt).findBy({ id: In(all) }) : [];
    const byId = new Map(attempts.map((a) => [a.id, a]));
    const totals = this.totals(conds, 'quiz_submission_attempts qa');
    let t = 0;
    return quizzes.map((q, i) => {
      if (!student.get(q.courseId)) return null;
      const r = row(i);
      const none = async () => 0;
      if (!r || r.wasPreview) return keysetConnection<QuizSubmission>([], w, () => [], none);
      // The attempt in progress alone: a list of one, its key the attempt number.
      if (r.workflowState === 'untaken') return keysetConnection(w.after || w.offset || !w.limit ? [] : [r], w, (x) => [x.attempt], async () => 1);
      const k = t++;
      const page = ids[k].map((id) => byId.get(id)).filter((a): a is QuizSubmissionAttempt => a != null).map((a) => asAttempt(r, a));
      return keysetConnection(page, w, (x) => [x.attempt], async () => (await totals())[k]);
    });
  }

  /** Each condition's page of ids after the window's key on `key` (an indexed column after the parent's). */
  private async pageIds(conds: SqlPart[], w: KeyWindow, from: string, key: string): Promise<number[][]> {
    if (!w.limit) return conds.map(() => []);
    const after = w.after ? idKey(w.after[0]) : null;
    const alias = from.split(' ')[1];
    const reads = conds.map((c) => ({
      sql: `SELECT ${alias}.id AS id, ${key} AS k FROM ${from} WHERE ${c.sql}${after != null ? ` AND ${key} > ?` : ''} ORDER BY ${key}${pageLimitSql(w)}`,
      params: after != null ? [...c.params, after] : c.params,
    }));
    return (await readParts<{ id: unknown }>(this.ctx.ds, reads, 'k')).map((rows) => rows.map((r) => Number(r.id)));
  }

  /** Each condition's total, counted once for all and only when asked. */
  private totals(conds: SqlPart[], from: string): () => Promise<number[]> {
    let counted: Promise<number[]> | undefined;
    return () =>
      (counted ??= readParts<{ n: unknown }>(this.ctx.ds, conds.map((c) => ({ sql: `SELECT COUNT(*) AS n FROM ${from} WHERE ${c.sql}`, params: c.params }))).then((r) => r.map((x) => Number(x[0]?.n ?? 0))));
  }
}

/** A turned-in attempt shown as the quiz submission it was then (same id, that attempt's state). */
export function asAttempt(row: QuizSubmission, a: QuizSubmissionAttempt): QuizSubmission {
  return Object.assign(new QuizSubmission(), row, {
    attempt: a.attempt,
    workflowState: a.workflowState,
    score: a.score,
    fudgePoints: a.fudgePoints,
    questionScores: a.questionScores,
    startedAt: a.startedAt,
    finishedAt: a.finishedAt,
    endAt: a.endAt,
  });
}
