import { accountRoutes } from '../accounts/account.routes';
import { accessTokenRoutes } from '../auth/access-token.routes';
import { courseRoutes } from '../courses/course.routes';
import { courseUserRoutes } from '../courses/course-users.routes';
import { userRoutes } from '../users/user.routes';
import { groupRoutes } from '../groups/group.routes';
import { discussionRoutes } from '../discussions/discussion.routes';
import { fileRoutes } from '../files/file.routes';
import { blackoutDateRoutes } from '../blackout-dates/blackout-date.routes';
import { errorReportRoutes } from '../error-reports/error-report.routes';
import { quizExtensionRoutes } from '../quiz-extensions/quiz-extension.routes';
import { moduleRoutes } from '../modules/module.routes';
import { moduleExtraRoutes } from '../modules/module-extras.routes';
import { contentRoutes } from '../content/content.routes';
import { ltiRoutes } from '../lti/tool-proxy.routes';
import { subscriptionRoutes } from '../webhooks/subscriptions.routes';
import { webhookRoutes } from '../webhooks/webhook.routes';
import { plannerRoutes } from '../planner/planner.routes';
import { todoRoutes } from '../todo/todo.routes';
import { calendarEventRoutes } from '../calendar-events/calendar-event.routes';
import type { RestRoute } from '../api/rest/route';

/** The whole compatibility table; feature areas add their rows here. */
export const restRoutes: RestRoute[] = [...accountRoutes, ...userRoutes, ...accessTokenRoutes, ...courseRoutes, ...courseUserRoutes, ...groupRoutes, ...discussionRoutes, ...fileRoutes, ...blackoutDateRoutes, ...errorReportRoutes, ...quizExtensionRoutes, ...contentRoutes, ...moduleRoutes, ...moduleExtraRoutes, ...ltiRoutes, ...subscriptionRoutes, ...webhookRoutes, ...plannerRoutes, ...calendarEventRoutes, ...todoRoutes];
