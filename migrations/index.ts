import { Foundation1732000000000 } from './1732000000000-Foundation';
import { Groups1732000001000 } from './1732000001000-Groups';
import { Discussions1732000003000 } from './1732000003000-Discussions';
import { Files1732000002000 } from './1732000002000-Files';
import { Modules1732000006000 } from './1732000006000-Modules';
import { LtiSubscriptions1732000007000 } from './1732000007000-LtiSubscriptions';
import { LtiNonces1732000007500 } from './1732000007500-LtiNonces';
import { Outbox1732000008000 } from './1732000008000-Outbox';
import { Planner1732000009000 } from './1732000009000-Planner';
import { Content1732000005000 } from './1732000005000-Content';
import { BlackoutDatesAndErrorReports1732000004000 } from './1732000004000-BlackoutDatesAndErrorReports';
import { SubscriptionMatchIndex1732000008500 } from './1732000008500-SubscriptionMatchIndex';
import { WebhookAttemptsAndSecrets1732000010000 } from './1732000010000-WebhookAttemptsAndSecrets';
import { PendingUploadIndex1732000011400 } from './1732000011400-PendingUploadIndex';
import { CalendarEvents1732000012000 } from './1732000012000-CalendarEvents';
import { OutboxTraceparent1732000013000 } from './1732000013000-OutboxTraceparent';
import { ListOrderIndexes1732000013500 } from './1732000013500-ListOrderIndexes';
import { CourseUsersOrder1732000014500 } from './1732000014500-CourseUsersOrder';
import { ModuleListIndexes1732000015000 } from './1732000015000-ModuleListIndexes';
import { CalendarListIndexes1732000016000 } from './1732000016000-CalendarListIndexes';
import { AdminListIndexes1732000016100 } from './1732000016100-AdminListIndexes';
import { CourseDiscussionListIndexes1732000016200 } from './1732000016200-CourseDiscussionListIndexes';
import { StudentListIndexes1732000016300 } from './1732000016300-StudentListIndexes';
import { RosterCoveringIndexes1732000016400 } from './1732000016400-RosterCoveringIndexes';
import { GroupListCoveringIndexes1732000016500 } from './1732000016500-GroupListCoveringIndexes';
import { ItemsOfDeletedContent1732000016600 } from './1732000016600-ItemsOfDeletedContent';

/** The migration set, in order. Listed explicitly so compiled and ts-jest runs load the same classes. */
export const migrations = [Foundation1732000000000, Groups1732000001000, Files1732000002000, Discussions1732000003000, BlackoutDatesAndErrorReports1732000004000, Content1732000005000, Modules1732000006000, LtiSubscriptions1732000007000, LtiNonces1732000007500, Outbox1732000008000, SubscriptionMatchIndex1732000008500, Planner1732000009000, WebhookAttemptsAndSecrets1732000010000, PendingUploadIndex1732000011400, CalendarEvents1732000012000, OutboxTraceparent1732000013000, ListOrderIndexes1732000013500, CourseUsersOrder1732000014500, ModuleListIndexes1732000015000, CalendarListIndexes1732000016000, AdminListIndexes1732000016100, CourseDiscussionListIndexes1732000016200, StudentListIndexes1732000016300, RosterCoveringIndexes1732000016400, GroupListCoveringIndexes1732000016500, ItemsOfDeletedContent1732000016600];
