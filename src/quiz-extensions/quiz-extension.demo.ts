import { Not } from 'typeorm';
import type { DemoExtension } from '../courses/demo-world';
import { QuizSubmission } from '../content/quizzes/quiz-submission.entity';
import { Quiz } from '../content/quizzes/quiz.entity';

/** The demo student with an accommodation, and what it gives them. */
export const DEMO_EXTENDED_STUDENT = 'student3';
export const DEMO_EXTENSION = { extraAttempts: 1, extraTime: 15 } as const;

/**
 * The demo's course quiz extension: the third student has one extra attempt and 15 extra minutes on
 * every quiz of the course, as POST /api/v1/courses/:id/quiz_extensions would set them — a
 * settings-only quiz submission per quiz. Runs after the demos that seed quizzes (planner, modules).
 */
export const quizExtensionsDemo: DemoExtension = {
  name: 'quiz extensions',
  async seed(em, world) {
    const student = world.users.get(DEMO_EXTENDED_STUDENT);
    if (!student) return;
    const quizzes = await em.getRepository(Quiz).find({ where: { courseId: world.course.id, workflowState: Not('deleted' as const) }, order: { id: 'ASC' } });
    await em.getRepository(QuizSubmission).save(quizzes.map((quiz) => QuizSubmission.draft({ quizId: quiz.id, userId: student.id, ...DEMO_EXTENSION })));
  },
};
