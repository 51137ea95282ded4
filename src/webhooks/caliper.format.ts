import type { z } from 'zod/v4';
import type { LiveEvent, Json } from './live-event.format';
import type { AttachmentCreatedBody, CalendarEventBody, GradeChangeBody, LiveEventMetadata, QuizSubmittedBody, SubmissionBody } from './event-schemas';
import {
  CALIPER_CONTEXT,
  CALIPER_KINDS,
  caliperCalendarEntity,
  caliperDocumentObject,
  caliperPerson,
  caliperScore,
  gradedAttempt,
  modifiedAttempt,
  quizAttempt,
  submittedAttempt,
} from './caliper-schemas';

/**
 * Caliper 1.1 form of a live event (reference §4.6): an envelope with one event, mapped from the
 * live event's metadata and body. The envelope's sendTime is set when the message is sent. Types,
 * actions and object shapes are declared in caliper-schemas.ts (what the event catalog publishes).
 */
const CONTEXT = CALIPER_CONTEXT;
const urn = (kind: string, id: unknown) => `urn:instructure:canvas:${kind}:${id}`;

/** Caliper roles of Canvas's enrollment types (Teacher and Student as Canvas maps them). */
const CALIPER_ROLES: Record<string, string> = {
  TeacherEnrollment: 'Instructor',
  TaEnrollment: 'Instructor#TeachingAssistant',
  DesignerEnrollment: 'ContentDeveloper',
  StudentEnrollment: 'Learner',
  ObserverEnrollment: 'Mentor',
  AccountAdmin: 'Administrator',
};

const canvasExt = <T extends Json>(o: T) => ({ 'com.instructure.canvas': o });
/** Leaves out the keys whose value is null (they are optional in the schemas). */
const dropNulls = <T extends Json>(o: T): { [K in keyof T]?: Exclude<T[K], null | undefined> } =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as { [K in keyof T]?: Exclude<T[K], null | undefined> };

type Out<S extends z.ZodType> = z.output<S>;
type Person = Out<typeof caliperPerson>;

type PersonExt = Omit<Person['extensions']['com.instructure.canvas'], 'entity_id'>;

function person(id: string, ext: { [K in keyof PersonExt]: PersonExt[K] | null } = {}): Person {
  return { id: urn('user', id), type: 'Person', extensions: canvasExt({ ...dropNulls(ext), entity_id: id }) };
}

function attempt(b: SubmissionBody | GradeChangeBody, m: LiveEventMetadata) {
  return {
    id: urn('submission', b.submission_id),
    type: 'Attempt' as const,
    assignee: { id: urn('user', b.user_id), type: 'Person' as const },
    assignable: { id: urn('assignment', b.assignment_id), type: 'AssignableDigitalResource' as const },
    count: 'attempt' in b ? b.attempt : null,
    extensions: canvasExt({ entity_id: b.submission_id, submission_type: 'submission_type' in b ? b.submission_type : null, url: 'url' in b ? b.url : null, event_name: m.event_name }),
  };
}

/** The object (and generated) of each event we deliver; type and action come from CALIPER_KINDS. */
function mapping(ev: LiveEvent): { object: Json; generated?: Json; actorOverride?: Json | 'application' } {
  const m = ev.metadata;
  switch (m.event_name) {
    case 'submission_created': {
      const b = ev.body as SubmissionBody;
      return { object: { ...attempt(b, m), dateCreated: b.submitted_at, body: b.body } satisfies Out<typeof submittedAttempt> };
    }
    case 'submission_updated':
    case 'plagiarism_resubmit': {
      // The Canvas extension names the live event (plagiarism_resubmit has no Caliper mapping of its own).
      const b = ev.body as SubmissionBody;
      return { object: { ...attempt(b, m), dateModified: b.updated_at } satisfies Out<typeof modifiedAttempt> };
    }
    case 'grade_change': {
      const b = ev.body as GradeChangeBody;
      const object = {
        ...attempt(b, m),
        count: null,
        assignee: { id: urn('user', b.user_id), type: 'Person' as const, extensions: canvasExt(dropNulls({ sis_id: b.student_sis_id })) },
        extensions: canvasExt({ entity_id: b.submission_id, grade: b.grade, event_name: m.event_name }),
      } satisfies Out<typeof gradedAttempt>;
      return {
        object,
        generated: {
          id: urn('submission', b.submission_id),
          type: 'Score',
          attempt: object,
          maxScore: b.points_possible,
          scoreGiven: b.score,
          scoredBy: b.grader_id ? urn('user', b.grader_id) : null,
          extensions: canvasExt({ grade: b.grade, old_grade: b.old_grade, old_score: b.old_score, grading_complete: b.grading_complete }),
        } satisfies Out<typeof caliperScore>,
        // The grader acts (auto-grading, e.g. a quiz: the application).
        actorOverride: b.grader_id ? person(b.grader_id) : 'application',
      };
    }
    case 'attachment_created': {
      const b = ev.body as AttachmentCreatedBody;
      return {
        object: {
          id: urn('attachment', b.attachment_id),
          type: 'Document',
          name: b.display_name,
          dateCreated: b.updated_at,
          mediaType: b.content_type,
          extensions: canvasExt({
            entity_id: b.attachment_id,
            context_id: b.context_id,
            context_type: b.context_type,
            filename: b.filename,
            folder_id: b.folder_id,
            event_name: m.event_name,
          }),
        } satisfies Out<typeof caliperDocumentObject>,
      };
    }
    case 'calendar_event_created':
    case 'calendar_event_updated': {
      // Canvas has no Caliper form of these live events: sent as a created or modified entity, the
      // Canvas extension naming the live event (as plagiarism_resubmit is).
      const b = ev.body as CalendarEventBody;
      return {
        object: {
          id: urn('calendar_event', b.calendar_event_id),
          type: 'Entity',
          name: b.title,
          dateCreated: b.created_at,
          dateModified: b.updated_at,
          extensions: canvasExt({
            entity_id: b.calendar_event_id,
            context_id: b.context_id,
            context_type: b.context_type,
            start_at: b.start_at,
            end_at: b.end_at,
            workflow_state: b.workflow_state,
            event_name: m.event_name,
          }),
        } satisfies Out<typeof caliperCalendarEntity>,
      };
    }
    case 'quiz_submitted': {
      const b = ev.body as QuizSubmittedBody;
      return {
        object: {
          id: urn('submission', b.submission_id),
          type: 'Attempt',
          assignee: { id: urn('user', m.user_id), type: 'Person' },
          assignable: { id: urn('quiz', b.quiz_id), type: 'Assessment' },
          extensions: canvasExt({ entity_id: b.submission_id, quiz_id: b.quiz_id, event_name: m.event_name }),
        } satisfies Out<typeof quizAttempt>,
      };
    }
  }
}

/** The Caliper envelope of one event for one subscription (`sendTime` is filled in at send). */
export function caliperDocument(ev: LiveEvent, subscriptionId: string, messageId: string): Json {
  const m = ev.metadata;
  const base = ev.baseUrl.replace(/\/+$/, '');
  const edApp = { id: `${base}/`, type: 'SoftwareApplication' };
  const { type, action } = CALIPER_KINDS[m.event_name];
  const { object, generated, actorOverride } = mapping(ev);
  const requester =
    ev.actor.userId != null
      ? person(String(ev.actor.userId), {
          user_login: ev.actor.login,
          user_sis_id: ev.actor.sisId,
          root_account_id: m.root_account_id,
          root_account_lti_guid: m.root_account_lti_guid,
          root_account_uuid: m.root_account_uuid,
          real_user_id: m.real_user_id ?? null,
        })
      : edApp;
  const actor = actorOverride === 'application' ? edApp : (actorOverride ?? requester);
  const course = m.context_type === 'Course' ? String(m.context_id) : null;
  const courseRef = course
    ? { id: urn('course', course), type: 'CourseOffering', extensions: canvasExt({ context_type: 'Course', entity_id: course }) }
    : null;
  const role = ev.actor.role ? CALIPER_ROLES[ev.actor.role] : undefined;
  const membership =
    course && ev.actor.userId != null
      ? dropNulls({
          id: role ? urn('course', `${course}:${role}:${ev.actor.userId}`) : urn('course', `${course}:user:${ev.actor.userId}`),
          type: 'Membership',
          member: { id: urn('user', ev.actor.userId), type: 'Person' },
          organization: { id: urn('course', course), type: 'CourseOffering' },
          roles: role ? [role] : null,
        })
      : null;
  const event = dropNulls({
    '@context': CONTEXT,
    id: `urn:uuid:${messageId}`,
    type,
    actor,
    action,
    object,
    eventTime: m.event_time,
    edApp,
    group: courseRef,
    membership,
    generated: generated ?? null,
    extensions: canvasExt(
      dropNulls({
        hostname: m.hostname,
        request_id: m.request_id,
        user_agent: m.user_agent,
        client_ip: m.client_ip,
        request_url: m.url,
        version: '1.0.0',
        event_name: m.event_name,
        subscription_id: subscriptionId,
      }),
    ),
  });
  return { sensor: `${base}/`, sendTime: null, dataVersion: CONTEXT, data: [event] };
}

/** The envelope with its send time: `.000Z` millisecond format. */
export function withSendTime(doc: Json, at = new Date()): Json {
  return { ...doc, sendTime: at.toISOString() };
}
