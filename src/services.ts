import { AccountService } from './accounts/account.service';
import { AccessTokenService } from './auth/access-token.service';
import { CourseService } from './courses/course.service';
import { EnrollmentService } from './courses/enrollment.service';
import { SectionService } from './courses/section.service';
import type { RequestContext } from './request/context';
import { UserService } from './users/user.service';
import { GroupAvatarService } from './groups/group-avatar.service';
import { FileService } from './files/file.service';
import { GroupCategoryService } from './groups/group-category.service';
import { GroupMembershipService } from './groups/group-membership.service';
import { GroupPolicy } from './groups/group-policy';
import { GroupService } from './groups/group.service';
import { ActivityStreamService } from './discussions/activity-stream.service';
import { DiscussionEntryService } from './discussions/discussion-entry.service';
import { DiscussionService } from './discussions/discussion.service';
import { GradedDiscussionService } from './discussions/graded-discussion.service';
import { BlackoutDateService } from './blackout-dates/blackout-date.service';
import { ErrorReportService } from './error-reports/error-report.service';
import { QuizExtensionService } from './quiz-extensions/quiz-extension.service';
import { AssignmentService } from './content/assignments/assignment.service';
import { ContentAccess } from './content/content-access';
import { ExternalToolService } from './content/external-tools/external-tool.service';
import { PageService } from './content/pages/page.service';
import { QuizSubmissionService } from './content/quizzes/quiz-submission.service';
import { QuizService } from './content/quizzes/quiz.service';
import { SubmissionService } from './content/submissions/submission.service';
import { ModuleItemService } from './modules/module-item.service';
import { WebhookDeliveryService } from './webhooks/webhook-delivery.service';
import { PlagiarismResubmitService } from './webhooks/plagiarism-resubmit.service';
import { ModuleService } from './modules/module.service';
import { ModuleVisibility } from './modules/module-visibility';
import { ProgressService } from './modules/progress.service';
import { SequenceService } from './modules/sequence.service';
import { ModuleOverrideService } from './modules/module-override.service';
import { MasteryPathService } from './modules/mastery-path.service';
import { ToolProxyService } from './lti/tool-proxy.service';
import { LtiAuthorizeService } from './lti/lti-authorize.service';
import { WebhookSubscriptionService } from './webhooks/subscriptions.service';

import { PlannerItemsService } from './planner/planner-items.service';
import { PlannerNoteService } from './planner/planner-note.service';
import { PlannerOverrideService } from './planner/planner-override.service';

/** Per-request service registry; each service is created on first use with the request's context. */
export class Services {
  private readonly made = new Map<string, unknown>();
  constructor(private readonly ctx: RequestContext) {}

  private lazy<T>(key: string, make: (ctx: RequestContext) => T): T {
    if (!this.made.has(key)) this.made.set(key, make(this.ctx));
    return this.made.get(key) as T;
  }

  get accounts() {
    return this.lazy('accounts', (c) => new AccountService(c));
  }
  get users() {
    return this.lazy('users', (c) => new UserService(c));
  }
  get tokens() {
    return this.lazy('tokens', (c) => new AccessTokenService(c));
  }
  get courses() {
    return this.lazy('courses', (c) => new CourseService(c));
  }
  get sections() {
    return this.lazy('sections', (c) => new SectionService(c));
  }
  get enrollments() {
    return this.lazy('enrollments', (c) => new EnrollmentService(c));
  }
  get groupPolicy() {
    return this.lazy('groupPolicy', (c) => new GroupPolicy(c));
  }
  get groupCategories() {
    return this.lazy('groupCategories', (c) => new GroupCategoryService(c));
  }
  get groups() {
    return this.lazy('groups', (c) => new GroupService(c));
  }
  get groupMemberships() {
    return this.lazy('groupMemberships', (c) => new GroupMembershipService(c));
  }
  get blackoutDates() {
    return this.lazy('blackoutDates', (c) => new BlackoutDateService(c));
  }
  get errorReports() {
    return this.lazy('errorReports', (c) => new ErrorReportService(c));
  }
  get quizExtensions() {
    return this.lazy('quizExtensions', (c) => new QuizExtensionService(c));
  }
  get modules() {
    return this.lazy('modules', (c) => new ModuleService(c));
  }
  get moduleItems() {
    return this.lazy('moduleItems', (c) => new ModuleItemService(c));
  }
  get moduleVisibility() {
    return this.lazy('moduleVisibility', (c) => new ModuleVisibility(c));
  }
  get sequences() {
    return this.lazy('sequences', (c) => new SequenceService(c));
  }
  get moduleOverrides() {
    return this.lazy('moduleOverrides', (c) => new ModuleOverrideService(c));
  }
  get masteryPaths() {
    return this.lazy('masteryPaths', (c) => new MasteryPathService(c));
  }
  get progress() {
    return this.lazy('progress', (c) => new ProgressService(c));
  }
  get discussions() {
    return this.lazy('discussions', (c) => new DiscussionService(c));
  }
  get gradedDiscussions() {
    return this.lazy('gradedDiscussions', (c) => new GradedDiscussionService(c));
  }
  get discussionEntries() {
    return this.lazy('discussionEntries', (c) => new DiscussionEntryService(c));
  }
  get activityStream() {
    return this.lazy('activityStream', (c) => new ActivityStreamService(c));
  }
  get groupAvatars() {
    return this.lazy('groupAvatars', (c) => new GroupAvatarService(c));
  }
  get files() {
    return this.lazy('files', (c) => new FileService(c));
  }
  get contentAccess() {
    return this.lazy('contentAccess', (c) => new ContentAccess(c));
  }
  get assignments() {
    return this.lazy('assignments', (c) => new AssignmentService(c));
  }
  get submissions() {
    return this.lazy('submissions', (c) => new SubmissionService(c));
  }
  get quizzes() {
    return this.lazy('quizzes', (c) => new QuizService(c));
  }
  get quizSubmissions() {
    return this.lazy('quizSubmissions', (c) => new QuizSubmissionService(c));
  }
  get pages() {
    return this.lazy('pages', (c) => new PageService(c));
  }
  get externalTools() {
    return this.lazy('externalTools', (c) => new ExternalToolService(c));
  }
  get toolProxies() {
    return this.lazy('toolProxies', (c) => new ToolProxyService(c));
  }
  get ltiAuthorize() {
    return this.lazy('ltiAuthorize', (c) => new LtiAuthorizeService(c));
  }
  get webhookSubscriptions() {
    return this.lazy('webhookSubscriptions', (c) => new WebhookSubscriptionService(c));
  }
  get webhookDeliveries() {
    return this.lazy('webhookDeliveries', (c) => new WebhookDeliveryService(c));
  }
  get plagiarismResubmit() {
    return this.lazy('plagiarismResubmit', (c) => new PlagiarismResubmitService(c));
  }
  get plannerItems() {
    return this.lazy('plannerItems', (c) => new PlannerItemsService(c));
  }
  get plannerNotes() {
    return this.lazy('plannerNotes', (c) => new PlannerNoteService(c));
  }
  get plannerOverrides() {
    return this.lazy('plannerOverrides', (c) => new PlannerOverrideService(c));
  }
}
