import { calendarUpcomingEvents } from '../calendar-events/calendar-upcoming';
import { registerUpcomingEventSource } from '../todo/upcoming.service';
import { registerAssignmentBacker } from '../content/assignments/assignment-backers';
import { quizAssignmentBacker } from '../content/quizzes/quiz.service';
import { gradedDiscussionBacker } from '../discussions/graded-discussion.service';
import { onDomainEvent } from '../events/domain-events';
import { groupInvitationClaimHandler } from '../groups/group-invitation-claims';
import { registerContentAdapter, registerFactsProvider } from '../modules/content-registry';
import { assignmentContent, courseWorkFacts, externalToolContent, pageContent, quizContent } from '../modules/course-content';
import { discussionContent } from '../modules/discussion-content';
import { courseFiles, registerFileContextProvider, userFiles } from '../files/file-context';
import { groupFiles } from '../groups/group-files';
import { fileContent } from '../modules/file-content';
import { moduleContentLinksHandler } from '../modules/content-links';
import { moduleProgressHandler } from '../modules/progress-events';
import { plannerCalendarHandler, plannerContentHandler } from '../planner/planner-events';
import { plannerModuleDoneHandler } from '../planner/planner-override.service';
import { webhookOutboxHandler } from '../webhooks/outbox';
import { subscriptionEntitlementHandler } from '../webhooks/subscription-entitlement';

/**
 * What areas derive from each other's changes, listed by name: nothing is switched on by importing
 * a file. Handlers run in this order inside the transaction of the change that raised the event.
 */
export const DOMAIN_EVENT_HANDLERS = [
  moduleContentLinksHandler, // items follow replaced content and go with deleted content first, so progress re-evaluates without them
  moduleProgressHandler, // module progress first: its own events follow the change that caused them
  webhookOutboxHandler,
  plannerContentHandler,
  plannerCalendarHandler,
  plannerModuleDoneHandler,
  subscriptionEntitlementHandler,
  groupInvitationClaimHandler,
];

/** How modules reach each kind of course content (the port is src/modules/content-registry.ts). */
export const CONTENT_ADAPTERS = [discussionContent, fileContent, assignmentContent, quizContent, pageContent, externalToolContent];

/** The contexts that own files (the port is src/files/file-context.ts). */
export const FILE_CONTEXT_PROVIDERS = [courseFiles, groupFiles, userFiles];

/** What follows an assignment when it is edited or deleted (the port is src/content/assignments/assignment-backers.ts), in this order. */
export const ASSIGNMENT_BACKERS = [quizAssignmentBacker, gradedDiscussionBacker];

/** Kinds of entry besides assignments in a user's upcoming events (the port is src/todo/upcoming.service.ts). */
export const UPCOMING_EVENT_SOURCES = [calendarUpcomingEvents];

let installed = false;

/** Plugs every area into the registries lower areas own; called once per process by bootstrap. */
export function installPlugins(): void {
  if (installed) return;
  installed = true;
  for (const handler of DOMAIN_EVENT_HANDLERS) onDomainEvent(handler);
  for (const adapter of CONTENT_ADAPTERS) registerContentAdapter(adapter);
  registerFactsProvider(courseWorkFacts);
  for (const provider of FILE_CONTEXT_PROVIDERS) registerFileContextProvider(provider);
  for (const backer of ASSIGNMENT_BACKERS) registerAssignmentBacker(backer);
  for (const source of UPCOMING_EVENT_SOURCES) registerUpcomingEventSource(source);
}
