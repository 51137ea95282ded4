import { Account } from '../accounts/account.entity';
import { AccountUser } from '../accounts/account-user.entity';
import { AccessToken } from '../auth/access-token.entity';
import { Course } from '../courses/course.entity';
import { CourseSection } from '../courses/section.entity';
import { Enrollment } from '../courses/enrollment.entity';
import { Pseudonym } from '../users/pseudonym.entity';
import { User } from '../users/user.entity';
import { Setting } from '../db/setting.entity';
import { ToolProxy } from '../lti/tool-proxy.entity';
import { LtiNonce } from '../lti/lti-nonce.entity';
import { WebhookSubscription } from '../webhooks/webhook-subscription.entity';
import { WebhookAttempt } from '../webhooks/webhook-attempt.entity';
import { OutboxMessage } from '../webhooks/outbox.entity';
import { DiscussionEntry } from '../discussions/discussion-entry.entity';
import { DiscussionParticipant } from '../discussions/discussion-participant.entity';
import { DiscussionTopic } from '../discussions/discussion-topic.entity';
import { ContextModule } from '../modules/module.entity';
import { ModuleItem } from '../modules/module-item.entity';
import { ModuleProgression } from '../modules/progression.entity';
import { ModuleOverride } from '../modules/module-override.entity';
import { MasteryPathRule, MasteryPathSelection } from '../modules/mastery-path.entity';
import { GroupCategory } from '../groups/group-category.entity';
import { Group } from '../groups/group.entity';
import { GroupMembership } from '../groups/group-membership.entity';
import { GroupInvitation } from '../groups/group-invitation.entity';
import { Folder } from '../files/folder.entity';
import { Attachment } from '../files/attachment.entity';
import { BlackoutDate } from '../blackout-dates/blackout-date.entity';
import { ErrorReport } from '../error-reports/error-report.entity';
import { contentEntities } from '../content/content.entities';
import { PlannerNote } from '../planner/planner-note.entity';
import { PlannerOverride } from '../planner/planner-override.entity';
import { CalendarEvent } from '../calendar-events/calendar-event.entity';

/** Every entity of the domain; feature areas add theirs here. */
export const entities = [
  Setting,
  Account,
  AccountUser,
  User,
  Pseudonym,
  AccessToken,
  Course,
  CourseSection,
  Enrollment,
  GroupCategory,
  Group,
  GroupMembership,
  GroupInvitation,
  DiscussionTopic,
  DiscussionEntry,
  DiscussionParticipant,
  Folder,
  Attachment,
  ContextModule,
  ModuleItem,
  ModuleProgression,
  ModuleOverride,
  MasteryPathRule,
  MasteryPathSelection,
  BlackoutDate,
  ErrorReport,
  ...contentEntities,
  PlannerNote,
  PlannerOverride,
  CalendarEvent,
  ToolProxy,
  LtiNonce,
  WebhookSubscription,
  OutboxMessage,
  WebhookAttempt,
];
