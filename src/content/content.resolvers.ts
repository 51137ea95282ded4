import { AssignmentResolver } from './assignments/assignment.resolver';
import { CourseContentResolver } from './course-content.resolver';
import { ExternalToolResolver } from './external-tools/external-tool.resolver';
import { PageResolver } from './pages/page.resolver';
import { QuizSubmissionResolver } from './quizzes/quiz-submission.resolver';
import { QuizResolver } from './quizzes/quiz.resolver';
import { SubmissionResolver } from './submissions/submission.resolver';

/** The content area's resolvers, for src/graphql/schema.ts. */
export const contentResolvers = [
  AssignmentResolver,
  SubmissionResolver,
  QuizResolver,
  QuizSubmissionResolver,
  PageResolver,
  ExternalToolResolver,
  CourseContentResolver,
];
