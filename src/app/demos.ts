import { blackoutDatesDemo } from '../blackout-dates/blackout-date.demo';
import { calendarEventsDemo } from '../calendar-events/calendar-event.demo';
import type { DemoExtension } from '../courses/demo-world';
import { errorReportsDemo } from '../error-reports/error-report.demo';
import { groupsDemo } from '../groups/group.demo';
import { modulesDemo } from '../modules/module.demo';
import { plannerDemo } from '../planner/planner.demo';
import { quizExtensionsDemo } from '../quiz-extensions/quiz-extension.demo';
import { webhooksDemo } from '../webhooks/webhook.demo';

// Quiz extensions come after the demos that seed quizzes; webhooks last, so seeding raises no deliveries.
export const DEMO_EXTENSIONS: DemoExtension[] = [blackoutDatesDemo, errorReportsDemo, groupsDemo, plannerDemo, calendarEventsDemo, modulesDemo, quizExtensionsDemo, webhooksDemo];

