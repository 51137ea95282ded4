import type { RestRoute } from '../api/rest/route';
import { assignmentRoutes } from './assignments/assignment.routes';
import { externalToolRoutes } from './external-tools/external-tool.routes';
import { pageRoutes } from './pages/page.routes';
import { quizRoutes } from './quizzes/quiz.routes';
import { submissionRoutes } from './submissions/submission.routes';

/** The content area's rows of the REST table, for src/app/routes.ts. */
export const contentRoutes: RestRoute[] = [...assignmentRoutes, ...submissionRoutes, ...quizRoutes, ...pageRoutes, ...externalToolRoutes];
