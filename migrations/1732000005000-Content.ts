import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';
import { bool, datetime, id, index, int, intNull, state, str, strNull, text, timestamps } from './columns';

/** Scores and points: a double on both engines, as src/content/content-columns.ts declares them. */
const double = (name: string): TableColumnOptions => ({ name, type: 'double', isNullable: true });

/** Course content: assignments, submissions, quizzes and quiz submissions, wiki pages, external tools. */
export class Content1732000005000 implements MigrationInterface {
  name = 'Content1732000005000';

  async up(q: QueryRunner): Promise<void> {
    const create = (name: string, columns: TableColumnOptions[], indices: ReturnType<typeof index>[]) =>
      q.createTable(new Table({ name, columns, indices }), true);

    await create(
      'assignments',
      [
        id(),
        ...timestamps(),
        int('course_id'),
        str('name'),
        text('description'),
        double('points_possible'),
        str('grading_type', 32, { default: "'points'" }),
        str('submission_types', 255, { default: "'none'" }),
        datetime('due_at'),
        datetime('unlock_at'),
        datetime('lock_at'),
        int('position', { default: 1 }),
        state('unpublished'),
      ],
      [index(['course_id', 'workflow_state'])],
    );

    await create(
      'submissions',
      [
        id(),
        ...timestamps(),
        int('assignment_id'),
        int('user_id'),
        int('course_id'),
        state('unsubmitted'),
        strNull('submission_type', 32),
        text('body'),
        strNull('url', 2048),
        text('attachment_ids'),
        intNull('attempt'),
        datetime('submitted_at'),
        double('score'),
        strNull('grade'),
        datetime('graded_at'),
        intNull('grader_id'),
        bool('excused', false),
        strNull('late_policy_status', 16),
        bool('grade_matches_current_submission', true),
        intNull('quiz_submission_id'),
      ],
      [index(['assignment_id', 'user_id'], true), index(['user_id', 'workflow_state']), index(['course_id'])],
    );

    await create(
      'quizzes',
      [
        id(),
        ...timestamps(),
        int('course_id'),
        str('title'),
        text('description'),
        str('quiz_type', 32, { default: "'assignment'" }),
        intNull('assignment_id'),
        intNull('time_limit'),
        int('allowed_attempts', { default: 1 }),
        str('scoring_policy', 32, { default: "'keep_highest'" }),
        bool('shuffle_answers', false),
        strNull('access_code'),
        double('points_possible'),
        datetime('due_at'),
        datetime('unlock_at'),
        datetime('lock_at'),
        state('unpublished'),
      ],
      [index(['course_id', 'workflow_state']), index(['assignment_id'])],
    );

    await create(
      'quiz_submissions',
      [
        id(),
        ...timestamps(),
        int('quiz_id'),
        int('user_id'),
        intNull('submission_id'),
        int('attempt', { default: 0 }),
        state('settings_only'),
        double('score'),
        double('kept_score'),
        double('fudge_points'),
        text('question_scores'),
        datetime('started_at'),
        datetime('finished_at'),
        datetime('end_at'),
        intNull('extra_attempts'),
        intNull('extra_time'),
        bool('manually_unlocked', false),
        strNull('validation_token', 64),
        bool('was_preview', false),
      ],
      [index(['quiz_id', 'user_id'], true), index(['user_id'])],
    );

    await create(
      'quiz_submission_attempts',
      [
        id(),
        ...timestamps(),
        int('quiz_submission_id'),
        int('attempt'),
        state('complete'),
        double('score'),
        double('fudge_points'),
        text('question_scores'),
        datetime('started_at'),
        datetime('finished_at'),
        datetime('end_at'),
      ],
      [index(['quiz_submission_id', 'attempt'], true)],
    );

    await create(
      'wiki_pages',
      [
        id(),
        ...timestamps(),
        int('course_id'),
        str('title'),
        str('url'),
        text('body'),
        state('unpublished'),
        str('editing_roles', 255, { default: "'teachers'" }),
        bool('front_page', false),
        datetime('todo_date'),
        intNull('user_id'),
      ],
      [index(['course_id', 'url']), index(['course_id', 'workflow_state'])],
    );

    await create(
      'context_external_tools',
      [
        id(),
        ...timestamps(),
        int('course_id'),
        str('name'),
        text('description'),
        strNull('url', 2048),
        strNull('domain'),
        strNull('consumer_key'),
        strNull('shared_secret'),
        str('privacy_level', 32, { default: "'anonymous'" }),
        text('custom_fields'),
        state('active'),
      ],
      [index(['course_id', 'workflow_state'])],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['context_external_tools', 'wiki_pages', 'quiz_submission_attempts', 'quiz_submissions', 'quizzes', 'submissions', 'assignments']) {
      await q.dropTable(t, true);
    }
  }
}
