import { Assignment } from './assignments/assignment.entity';
import { ExternalTool } from './external-tools/external-tool.entity';
import { WikiPage } from './pages/page.entity';
import { QuizSubmission, QuizSubmissionAttempt } from './quizzes/quiz-submission.entity';
import { Quiz } from './quizzes/quiz.entity';
import { Submission } from './submissions/submission.entity';

/** The content area's entities, for src/app/entities.ts. */
export const contentEntities = [Assignment, Submission, Quiz, QuizSubmission, QuizSubmissionAttempt, WikiPage, ExternalTool];
