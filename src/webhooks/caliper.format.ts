import type { Json, LiveEvent } from './live-event.format';

/**
 * Caliper 1.1 form of a live event (reference §4.6): an envelope with one event, mapped from the
 * live event's metadata and body. The envelope's sendTime is set when the message is sent.
 */
const CONTEXT = 'http://purl.imsglobal.org/ctx/caliper/v1p1';
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

const canvasExt = (o: Json) => ({ 'com.instructure.canvas': o });
const dropNulls = (o: Json): Json => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

function person(id: unknown, ext: Json = {}): Json {
  return { id: urn('user', id), type: 'Person', extensions: canvasExt(dropNulls({ ...ext, entity_id: String(id) })) };
}

function attempt(b: Json, m: Json): Json {
  return {
    id: urn('submission', b.submission_id),
    type: 'Attempt',
    assignee: { id: urn('user', b.user_id), type: 'Person' },
    assignable: { id: urn('assignment', b.assignment_id), type: 'AssignableDigitalResource' },
    count: b.attempt ?? null,
    extensions: canvasExt({ entity_id: b.submission_id, submission_type: b.submission_type ?? null, url: b.url ?? null, event_name: m.event_name }),
  };
}

/** type, action, object (and generated) of each event we deliver. */
function mapping(ev: LiveEvent): { type: string; action: string; object: Json; generated?: Json; actorOverride?: Json | 'application' } {
  const b = ev.body;
  const m = ev.metadata;
  switch (ev.eventName) {
    case 'submission_created':
      return {
        type: 'AssignableEvent',
        action: 'Submitted',
        object: { ...attempt(b, m), dateCreated: b.submitted_at ?? null, body: b.body ?? null },
      };
    case 'submission_updated':
    case 'plagiarism_resubmit':
      // Caliper has no plagiarism_resubmit mapping: it is sent as submission_updated is, and the
      // Canvas extension names the live event.
      return { type: 'Event', action: 'Modified', object: { ...attempt(b, m), dateModified: b.updated_at ?? null } };
    case 'grade_change': {
      const object = {
        ...attempt(b, m),
        count: null,
        assignee: { id: urn('user', b.user_id), type: 'Person', extensions: canvasExt(dropNulls({ sis_id: b.student_sis_id })) },
        extensions: canvasExt({ entity_id: b.submission_id, grade: b.grade, event_name: m.event_name }),
      };
      return {
        type: 'GradeEvent',
        action: 'Graded',
        object,
        generated: {
          id: urn('submission', b.submission_id),
          type: 'Score',
          attempt: object,
          maxScore: b.points_possible ?? null,
          scoreGiven: b.score ?? null,
          scoredBy: b.grader_id ? urn('user', b.grader_id) : null,
          extensions: canvasExt({ grade: b.grade, old_grade: b.old_grade, old_score: b.old_score, grading_complete: b.grading_complete }),
        },
        // The grader acts (auto-grading, e.g. a quiz: the application).
        actorOverride: b.grader_id ? person(b.grader_id) : 'application',
      };
    }
    case 'attachment_created':
      return {
        type: 'Event',
        action: 'Created',
        object: {
          id: urn('attachment', b.attachment_id),
          type: 'Document',
          name: b.display_name ?? null,
          dateCreated: b.created_at ?? b.updated_at ?? null,
          mediaType: b.content_type ?? null,
          extensions: canvasExt({
            entity_id: b.attachment_id,
            context_id: b.context_id,
            context_type: b.context_type,
            filename: b.filename,
            folder_id: b.folder_id,
            event_name: m.event_name,
          }),
        },
      };
    case 'calendar_event_created':
    case 'calendar_event_updated':
      // Canvas has no Caliper form of these live events: sent as a created or modified entity, the
      // Canvas extension naming the live event (as plagiarism_resubmit is).
      return {
        type: 'Event',
        action: ev.eventName === 'calendar_event_created' ? 'Created' : 'Modified',
        object: {
          id: urn('calendar_event', b.calendar_event_id),
          type: 'Entity',
          name: b.title ?? null,
          dateCreated: b.created_at ?? null,
          dateModified: b.updated_at ?? null,
          extensions: canvasExt({
            entity_id: b.calendar_event_id,
            context_id: b.context_id,
            context_type: b.context_type,
            start_at: b.start_at,
            end_at: b.end_at,
            workflow_state: b.workflow_state,
            event_name: m.event_name,
          }),
        },
      };
    case 'quiz_submitted':
      return {
        type: 'AssessmentEvent',
        action: 'Submitted',
        object: {
          id: urn('submission', b.submission_id),
          type: 'Attempt',
          assignee: { id: urn('user', m.user_id), type: 'Person' },
          assignable: { id: urn('quiz', b.quiz_id), type: 'Assessment' },
          extensions: canvasExt({ entity_id: b.submission_id, quiz_id: b.quiz_id, event_name: m.event_name }),
        },
      };
    default:
      return { type: 'Event', action: 'Modified', object: { id: urn('event', ev.eventName), type: 'Entity', extensions: canvasExt({ event_name: m.event_name }) } };
  }
}

/** The Caliper envelope of one event for one subscription (`sendTime` is filled in at send). */
export function caliperDocument(ev: LiveEvent, subscriptionId: string, messageId: string): Json {
  const m = ev.metadata;
  const base = ev.baseUrl.replace(/\/+$/, '');
  const edApp = { id: `${base}/`, type: 'SoftwareApplication' };
  const { type, action, object, generated, actorOverride } = mapping(ev);
  const requester =
    ev.actor.userId != null
      ? person(ev.actor.userId, {
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
