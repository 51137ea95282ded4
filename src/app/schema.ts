import type { GraphQLSchema } from 'graphql';
import type { NonEmptyArray } from 'type-graphql';
import { buildGraphQLSchema } from '../graphql/schema';
import { AccountResolver } from '../accounts/account.resolver';
import { AccessTokenResolver } from '../auth/access-token.resolver';
import { CourseResolver } from '../courses/course.resolver';
import { EnrollmentResolver } from '../courses/enrollment.resolver';
import { SectionResolver } from '../courses/section.resolver';
import { UserResolver } from '../users/user.resolver';
import { GroupCategoryResolver } from '../groups/group-category.resolver';
import { GroupMembershipResolver } from '../groups/group-membership.resolver';
import { GroupResolver } from '../groups/group.resolver';
import { FileResolver } from '../files/file.resolver';
import { GroupFilesResolver } from '../groups/group-files.resolver';
import { BlackoutDateResolver, CoursePacingResolver } from '../blackout-dates/blackout-date.resolver';
import { ErrorReportResolver } from '../error-reports/error-report.resolver';
import { QuizExtensionResolver, QuizExtensionsFieldResolver } from '../quiz-extensions/quiz-extension.resolver';
import { ModuleItemResolver } from '../modules/module-item.resolver';
import { ModuleProgressionResolver, ModuleResolver } from '../modules/module.resolver';
import { MasteryPathRuleResolver, ModuleOverrideResolver, SequenceResolver } from '../modules/module-extras.resolver';
import { discussionResolvers } from '../discussions/discussion.resolver';
import { contentResolvers } from '../content/content.resolvers';
import { ToolProxyResolver } from '../lti/tool-proxy.resolver';
import { WebhookSubscriptionResolver } from '../webhooks/subscriptions.resolver';
import { ToolProxyWebhooksResolver } from '../webhooks/tool-proxy-webhooks.resolver';
import { WebhookDeliveryResolver } from '../webhooks/webhook-delivery.resolver';
import { plannerResolvers } from '../planner/planner.resolver';
import { todoResolvers } from '../todo/todo.resolver';
import { NodeResolverRoot } from '../graphql/node.resolver';
import { moduleGraphResolvers } from '../modules/module-graph.resolver';
import { groupGraphResolvers } from '../groups/group-graph.resolver';
import { courseGraphResolvers } from '../courses/course-graph.resolver';
import { courseUsersResolvers } from '../courses/course-users.resolver';
import { blackoutDateGraphResolvers } from '../blackout-dates/blackout-date-graph.resolver';
import { CourseQuizExtensionsResolver } from '../quiz-extensions/quiz-extension-graph.resolver';
import { UserPlannerResolver } from '../planner/planner-graph.resolver';
import { calendarEventResolvers } from '../calendar-events/calendar-event.resolver';

/** Every resolver of the schema, listed by name: a new area adds its resolvers here. */
export const resolvers: NonEmptyArray<Function> = [
  NodeResolverRoot,
  AccountResolver,
  UserResolver,
  AccessTokenResolver,
  CourseResolver,
  SectionResolver,
  EnrollmentResolver,
  GroupCategoryResolver,
  GroupResolver,
  GroupMembershipResolver,
  ...discussionResolvers,
  ...contentResolvers,
  FileResolver,
  GroupFilesResolver,
  BlackoutDateResolver,
  CoursePacingResolver,
  ErrorReportResolver,
  QuizExtensionResolver,
  QuizExtensionsFieldResolver,
  ModuleResolver,
  ModuleProgressionResolver,
  ModuleItemResolver,
  SequenceResolver,
  MasteryPathRuleResolver,
  ModuleOverrideResolver,
  ...plannerResolvers,
  ...todoResolvers,
  ...calendarEventResolvers,
  WebhookDeliveryResolver,
  ToolProxyResolver,
  WebhookSubscriptionResolver,
  ToolProxyWebhooksResolver,
  // The navigable graph: nested lists of each object, through the same checked service calls.
  ...moduleGraphResolvers,
  ...groupGraphResolvers,
  ...courseGraphResolvers,
  ...courseUsersResolvers,
  ...blackoutDateGraphResolvers,
  CourseQuizExtensionsResolver,
  UserPlannerResolver,
];

let cached: GraphQLSchema | undefined;

/** The service's schema, built once per process (type-graphql's metadata is global). */
export function buildAppSchema(): GraphQLSchema {
  return (cached ??= buildGraphQLSchema(resolvers));
}
