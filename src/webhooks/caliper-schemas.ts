import { z } from 'zod/v4';
import type { WebhookEventType } from '../lti/capabilities';
import { EVENT_SUMMARIES } from './event-schemas';

/**
 * The Caliper 1.1 form's shapes, declared once: caliper.format.ts builds each event from the type,
 * action and object kind named here (CALIPER_KINDS) and is typed by what these schemas infer; the
 * event catalog publishes them, and the test suite holds every Caliper delivery it receives to them.
 */

export const CALIPER_CONTEXT = 'http://purl.imsglobal.org/ctx/caliper/v1p1';

/** Caliper ids: `urn:instructure:canvas:<kind>:<id>`, `urn:uuid:<message id>`, or the service's URL. */
const iri = () => z.url();
const dateTime = () => z.iso.datetime({ precision: null, offset: false, local: false });
const canvas = <S extends z.ZodRawShape>(shape: S) => z.object({ 'com.instructure.canvas': z.object(shape) });

/** The Caliper type, action and object type of each live event. */
export const CALIPER_KINDS = {
  submission_created: { type: 'AssignableEvent', action: 'Submitted', object: 'Attempt' },
  submission_updated: { type: 'Event', action: 'Modified', object: 'Attempt' },
  // Caliper has no plagiarism_resubmit mapping: it is sent as submission_updated is.
  plagiarism_resubmit: { type: 'Event', action: 'Modified', object: 'Attempt' },
  grade_change: { type: 'GradeEvent', action: 'Graded', object: 'Attempt' },
  attachment_created: { type: 'Event', action: 'Created', object: 'Document' },
  // Canvas has no Caliper form of these: sent as a created or modified entity.
  calendar_event_created: { type: 'Event', action: 'Created', object: 'Entity' },
  calendar_event_updated: { type: 'Event', action: 'Modified', object: 'Entity' },
  quiz_submitted: { type: 'AssessmentEvent', action: 'Submitted', object: 'Attempt' },
} as const satisfies Record<WebhookEventType, { type: string; action: string; object: string }>;

const ref = (type: string) => z.object({ id: iri(), type: z.literal(type) });

export const caliperPerson = z.object({
  id: iri(),
  type: z.literal('Person'),
  extensions: canvas({
    entity_id: z.string(),
    user_login: z.string().optional(),
    user_sis_id: z.string().optional(),
    root_account_id: z.string().optional(),
    root_account_lti_guid: z.string().optional(),
    root_account_uuid: z.string().optional(),
    real_user_id: z.string().optional(),
  }),
});
export const caliperApp = ref('SoftwareApplication');

/** A submission attempt: submission events and grade_change. */
const attemptBase = {
  id: iri(),
  type: z.literal('Attempt'),
  assignee: ref('Person'),
  assignable: ref('AssignableDigitalResource'),
  count: z.int().nullable(),
  extensions: canvas({ entity_id: z.string(), submission_type: z.string().nullable(), url: z.string().nullable(), event_name: z.string() }),
};
export const submittedAttempt = z.object({ ...attemptBase, dateCreated: dateTime().nullable(), body: z.string().nullable() });
export const modifiedAttempt = z.object({ ...attemptBase, dateModified: dateTime().nullable() });
export const gradedAttempt = z.object({
  ...attemptBase,
  count: z.null(),
  assignee: z.object({ id: iri(), type: z.literal('Person'), extensions: canvas({ sis_id: z.string().optional() }) }),
  extensions: canvas({ entity_id: z.string(), grade: z.string().nullable(), event_name: z.string() }),
});
export const caliperScore = z.object({
  id: iri(),
  type: z.literal('Score'),
  attempt: gradedAttempt,
  maxScore: z.number().nullable(),
  scoreGiven: z.number().nullable(),
  scoredBy: iri().nullable(),
  extensions: canvas({ grade: z.string().nullable(), old_grade: z.string().nullable(), old_score: z.number().nullable(), grading_complete: z.boolean() }),
});
export const caliperDocumentObject = z.object({
  id: iri(),
  type: z.literal('Document'),
  name: z.string().nullable(),
  dateCreated: dateTime().nullable(),
  mediaType: z.string().nullable(),
  extensions: canvas({ entity_id: z.string(), context_id: z.string(), context_type: z.string(), filename: z.string(), folder_id: z.string(), event_name: z.string() }),
});
export const caliperCalendarEntity = z.object({
  id: iri(),
  type: z.literal('Entity'),
  name: z.string().nullable(),
  dateCreated: dateTime().nullable(),
  dateModified: dateTime().nullable(),
  extensions: canvas({
    entity_id: z.string(),
    context_id: z.string(),
    context_type: z.string(),
    start_at: dateTime().nullable(),
    end_at: dateTime().nullable(),
    workflow_state: z.string(),
    event_name: z.string(),
  }),
});
export const quizAttempt = z.object({
  id: iri(),
  type: z.literal('Attempt'),
  assignee: ref('Person'),
  assignable: ref('Assessment'),
  extensions: canvas({ entity_id: z.string(), quiz_id: z.string(), event_name: z.string() }),
});

const OBJECTS = {
  submission_created: submittedAttempt,
  submission_updated: modifiedAttempt,
  plagiarism_resubmit: modifiedAttempt,
  grade_change: gradedAttempt,
  attachment_created: caliperDocumentObject,
  calendar_event_created: caliperCalendarEntity,
  calendar_event_updated: caliperCalendarEntity,
  quiz_submitted: quizAttempt,
} satisfies Record<WebhookEventType, z.ZodObject>;

export const caliperCourse = z.object({ id: iri(), type: z.literal('CourseOffering'), extensions: canvas({ context_type: z.literal('Course'), entity_id: z.string() }) });
export const caliperMembership = z.object({
  id: iri(),
  type: z.literal('Membership'),
  member: ref('Person'),
  organization: ref('CourseOffering'),
  roles: z.array(z.string()).optional(),
});
export const caliperEventExtensions = canvas({
  hostname: z.string().optional(),
  request_id: z.string().optional(),
  user_agent: z.string().optional(),
  client_ip: z.string().optional(),
  request_url: z.url().optional(),
  version: z.literal('1.0.0'),
  event_name: z.string(),
  subscription_id: z.string(),
});

/** The one event of an envelope, for one event type. Keys whose value would be null are left out. */
export function caliperEvent(eventName: WebhookEventType) {
  const kind = CALIPER_KINDS[eventName];
  return z.object({
    '@context': z.literal(CALIPER_CONTEXT),
    id: iri().describe('urn:uuid:<message id>'),
    type: z.literal(kind.type),
    actor: z.union([caliperPerson, caliperApp]).describe('The acting user, or the service itself when nobody acted (e.g. auto-grading).'),
    action: z.literal(kind.action),
    object: OBJECTS[eventName],
    eventTime: dateTime(),
    edApp: caliperApp,
    group: caliperCourse.optional(),
    membership: caliperMembership.optional(),
    ...(eventName === 'grade_change' ? { generated: caliperScore } : {}),
    extensions: caliperEventExtensions,
  });
}

/** The Caliper envelope of one event type, as a subscriber receives it. */
export function caliperEnvelope(eventName: WebhookEventType) {
  return z
    .object({
      sensor: iri(),
      sendTime: dateTime().describe('Set at each send.'),
      dataVersion: z.literal(CALIPER_CONTEXT),
      data: z.tuple([caliperEvent(eventName)]),
    })
    .describe(`${eventName} (Caliper 1.1): ${EVENT_SUMMARIES[eventName]}`);
}
