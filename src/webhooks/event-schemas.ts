import { z } from 'zod/v4';
import { CALENDAR_CONTEXT_TYPES } from '../calendar-events/calendar-event.entity';
import { FILE_CONTEXT_TYPES } from '../files/file-context';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../lti/capabilities';

/**
 * The live-event format's shapes, declared once. The builders (live-event.format.ts, outbox.ts) are
 * typed by what these infer, so a body that gains, loses or retypes a field does not compile until its
 * schema says so; the event catalog (src/event-catalog/) publishes the same declarations as JSON
 * Schema, and the test suite holds every delivery it receives to them.
 *
 * Ids are strings (Canvas's live events carry ids as strings); times are ISO 8601 in UTC.
 */

/** A Canvas id as live events carry it: decimal digits in a string. */
const idText = () => z.string().regex(/^\d+$/);
const nullableId = () => idText().nullable();
/** Event times keep milliseconds, record times are whole seconds: both are RFC 3339 date-times. */
const dateTime = () => z.iso.datetime({ precision: null, offset: false, local: false });
const nullableDateTime = () => dateTime().nullable();

/** Canvas's enrollment types, and AccountAdmin for an admin acting without one. */
export const CONTEXT_ROLES = ['TeacherEnrollment', 'TaEnrollment', 'DesignerEnrollment', 'StudentEnrollment', 'ObserverEnrollment', 'AccountAdmin'] as const;
export type ContextRole = (typeof CONTEXT_ROLES)[number];

/** The metadata of every live event, as the producer writes it (before the per-message keys). */
export const liveEventMetadata = z
  .object({
    event_name: z.enum(WEBHOOK_EVENT_TYPES),
    event_time: dateTime().describe('When the change happened (with milliseconds).'),
    producer: z.literal('canvas'),
    root_account_id: idText(),
    root_account_uuid: z.string(),
    root_account_lti_guid: z.string().describe('`<root account uuid>.<host>`'),
    user_id: nullableId().describe('Who acted (null for a change made by no user).'),
    user_login: z.string().nullable(),
    user_account_id: nullableId(),
    user_sis_id: z.string().nullable(),
    real_user_id: idText().optional().describe('Present only while an admin acts as user_id (masquerading).'),
    context_type: z.enum(['Course', 'Group', 'User']),
    context_id: idText(),
    context_account_id: nullableId(),
    context_sis_source_id: z.string().nullable(),
    context_role: z.enum(CONTEXT_ROLES).nullable().describe("The acting user's role in the course."),
    hostname: z.string(),
    http_method: z.string().nullable(),
    url: z.url().nullable().describe('The request that caused the change.'),
    referrer: z.string().nullable(),
    user_agent: z.string().nullable(),
    client_ip: z.string().nullable(),
    request_id: z.string().nullable(),
    session_id: z.null(),
    time_zone: z.string().nullable(),
  })
  .describe("Canvas's live-event metadata.");
export type LiveEventMetadata = z.output<typeof liveEventMetadata>;

/** What each delivered message adds to its metadata. */
const perMessage = {
  subscription_id: z.string().describe('The subscription this copy is for (also the X-Subscription-Id header).'),
  message_id: z.uuid().describe('Unique per message, the same on every attempt: deduplicate by it.'),
};

/** submission_created, submission_updated and plagiarism_resubmit. */
export const submissionBody = z.object({
  submission_id: idText(),
  assignment_id: idText(),
  user_id: idText(),
  submitted_at: nullableDateTime(),
  graded_at: nullableDateTime(),
  updated_at: dateTime(),
  posted_at: nullableDateTime(),
  score: z.number().nullable(),
  grade: z.string().nullable(),
  submission_type: z.string().nullable(),
  body: z.string().max(8192).nullable().describe('Cut at 8192 characters.'),
  url: z.string().nullable(),
  attempt: z.int().nullable(),
  late: z.boolean(),
  missing: z.boolean(),
  workflow_state: z.enum(['unsubmitted', 'submitted', 'pending_review', 'graded']),
  lti_user_id: z.string().regex(/^[0-9a-f]{40}$/).nullable(),
  lti_assignment_id: z.uuid().nullable(),
  group_id: z.null(),
});
export type SubmissionBody = z.output<typeof submissionBody>;

export const gradeChangeBody = z.object({
  submission_id: idText(),
  assignment_id: idText(),
  assignment_name: z.string().nullable(),
  grade: z.string().nullable(),
  old_grade: z.string().nullable(),
  score: z.number().nullable(),
  old_score: z.number().nullable(),
  points_possible: z.number().nullable(),
  old_points_possible: z.number().nullable(),
  grader_id: nullableId().describe('Null when graded automatically (a quiz).'),
  student_id: idText(),
  student_sis_id: z.string().nullable(),
  user_id: idText(),
  grading_complete: z.boolean(),
  muted: z.boolean(),
});
export type GradeChangeBody = z.output<typeof gradeChangeBody>;

export const quizSubmittedBody = z.object({
  submission_id: idText().describe('The quiz submission.'),
  quiz_id: idText(),
});
export type QuizSubmittedBody = z.output<typeof quizSubmittedBody>;

export const attachmentCreatedBody = z.object({
  attachment_id: idText(),
  user_id: nullableId(),
  display_name: z.string(),
  filename: z.string(),
  context_type: z.enum(FILE_CONTEXT_TYPES),
  context_id: idText(),
  content_type: z.string().nullable(),
  folder_id: idText(),
  unlock_at: z.null(),
  lock_at: z.null(),
  updated_at: dateTime(),
});
export type AttachmentCreatedBody = z.output<typeof attachmentCreatedBody>;

/** calendar_event_created and calendar_event_updated (a deletion is an update to workflow_state deleted). */
export const calendarEventBody = z.object({
  calendar_event_id: idText(),
  context_id: idText(),
  context_type: z.enum(CALENDAR_CONTEXT_TYPES),
  workflow_state: z.enum(['active', 'deleted']),
  title: z.string(),
  description: z.string().nullable(),
  start_at: nullableDateTime(),
  end_at: nullableDateTime(),
  location_name: z.string().nullable(),
  location_address: z.string().nullable(),
  user_id: nullableId(),
  created_at: dateTime(),
  updated_at: dateTime(),
});
export type CalendarEventBody = z.output<typeof calendarEventBody>;

/** Each event type's body. Typed by the event list, so a new event type needs its body here. */
export const LIVE_EVENT_BODIES = {
  quiz_submitted: quizSubmittedBody,
  grade_change: gradeChangeBody,
  attachment_created: attachmentCreatedBody,
  submission_created: submissionBody,
  submission_updated: submissionBody,
  plagiarism_resubmit: submissionBody,
  calendar_event_created: calendarEventBody,
  calendar_event_updated: calendarEventBody,
} satisfies Record<WebhookEventType, z.ZodObject>;

/** What each event type is, in a sentence (the catalog's summaries). */
export const EVENT_SUMMARIES: Record<WebhookEventType, string> = {
  quiz_submitted: 'A student finished a quiz attempt.',
  grade_change: "A submission's grade or score changed.",
  attachment_created: 'A file was added to a course, group or user (from the upload preflight on).',
  submission_created: 'A student submitted an assignment (each new attempt).',
  submission_updated: 'A submission that is not unsubmitted was saved again (graded, late policy status, ...).',
  plagiarism_resubmit: "A grader asked for a submission to be sent to the plagiarism tool again.",
  calendar_event_created: 'A calendar event was created.',
  calendar_event_updated: 'A calendar event was changed or deleted.',
};

/** The whole live-event document of one event type, as a subscriber receives it. */
export function liveEventDocument(eventName: WebhookEventType) {
  return z
    .object({
      metadata: liveEventMetadata.extend({ event_name: z.literal(eventName), ...perMessage }),
      body: LIVE_EVENT_BODIES[eventName],
    })
    .describe(`${eventName} (live-event format): ${EVENT_SUMMARIES[eventName]}`);
}
