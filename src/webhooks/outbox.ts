import { randomUUID } from 'node:crypto';
import { EntityManager, In } from 'typeorm';
import { formatDateTime } from '../common/dates';
import { Quiz } from '../content/quizzes/quiz.entity';
import { Submission } from '../content/submissions/submission.entity';
import { Course } from '../courses/course.entity';
import { Attachment } from '../files/attachment.entity';
import { CalendarEvent } from '../calendar-events/calendar-event.entity';
import { CourseSection } from '../courses/section.entity';
import type { RequestContext } from '../request/context';
import { Group } from '../groups/group.entity';
import { ToolProxy } from '../lti/tool-proxy.entity';
import { caliperDocument, withSendTime } from './caliper.format';
import {
  buildMetadata,
  courseContext,
  EventContext,
  gradeChangeBody,
  idString,
  Json,
  LiveEvent,
  reads,
  submissionBody,
} from './live-event.format';
import type { AttachmentCreatedBody, CalendarEventBody, LiveEventMetadata, QuizSubmittedBody } from './event-schemas';
import { EventScope, subscriptionsInScope, wants } from './subscription-match';
import { activeTraceparent, withSpan } from '../tracing/tracing';
import type { WebhookSubscription } from './webhook-subscription.entity';
import { afterCommit } from '../db/transaction';
import { DomainEvent, type DomainEventHandler } from '../events/domain-events';
import { OutboxMessage } from './outbox.entity';
import { announceOutboxWritten } from './outbox-signal';

/**
 * The transactional outbox: each domain event that Canvas reports as a live event becomes one
 * message per matching webhook subscription, inserted in the transaction of the change, so a
 * message exists if and only if its change committed. Dispatchers deliver them afterwards
 * (src/webhooks/dispatcher.ts); after the commit, tools listening on graphql-ws get them at once.
 */

/** The graphql-ws topic of a tool proxy's messages, routed by the tool proxy's guid (unique across deployments sharing a Redis). */
export const WEBHOOK_MESSAGE_TOPIC = 'webhookMessage';

/** What a live subscriber receives: the document exactly as an HTTPS delivery carries it. */
export interface PublishedMessage {
  messageId: string;
  subscriptionId: string;
  eventName: string;
  format: string;
  document: Json;
}

type EventName = LiveEventMetadata['event_name'];

/** One live event to produce, once its subscribers are known. */
interface Planned {
  eventName: EventName;
  build: () => Promise<LiveEvent | null>;
}

interface Plan {
  scope: EventScope;
  /** Read only once some subscription is in scope (nobody subscribing costs one lookup). */
  events: () => Promise<Planned[]>;
}

type Candidates = Awaited<ReturnType<typeof subscriptionsInScope>>;

/** Submissions that got a submission_created in this transaction (the same save is not also an update). */
const createdInTx = new WeakMap<EntityManager, Set<number>>();

async function plan(em: EntityManager, ctx: RequestContext, event: DomainEvent, at: Date): Promise<Plan | null> {
  const r = reads(em);
  const liveEvent = async (eventName: EventName, context: EventContext | null, body: (c: EventContext) => Promise<Json>): Promise<LiveEvent | null> => {
    if (!context) return null;
    const { metadata, actor } = await buildMetadata(r, ctx, eventName, at, context);
    return { eventName, metadata, body: await body(context), baseUrl: baseUrlOf(ctx), actor };
  };
  const courseScope = async (courseId: number, assignmentId: number | null): Promise<EventScope | null> => {
    const course = await r.course(courseId);
    return course ? { assignmentId, courseId, accountId: course.accountId, rootAccountId: course.rootAccountId } : null;
  };

  switch (event.type) {
    case 'submission.submitted':
    case 'submission.updated':
    case 'submission.graded':
    case 'submission.plagiarism_resubmit': {
      const created = createdInTx.get(em) ?? new Set<number>();
      createdInTx.set(em, created);
      const justCreated = created.has(event.submissionId);
      if (event.type === 'submission.submitted') created.add(event.submissionId);
      const scope = await courseScope(event.courseId, event.assignmentId);
      if (!scope) return null;
      const context = () => courseContext(r, event.courseId);
      const events = async (): Promise<Planned[]> => {
        const s = await em.getRepository(Submission).findOneBy({ id: event.submissionId });
        if (!s) return [];
        const names: EventName[] = [];
        if (event.type === 'submission.submitted') names.push('submission_created');
        else if (event.type === 'submission.plagiarism_resubmit') names.push('plagiarism_resubmit');
        else {
          if (event.type === 'submission.graded') names.push('grade_change');
          // Any other save of a submission that is not unsubmitted (Canvas's submission_updated).
          if (s.workflowState !== 'unsubmitted' && !justCreated) names.push('submission_updated');
        }
        return names.map((eventName) => ({
          eventName,
          build: async () =>
            liveEvent(eventName, await context(), (c) =>
              eventName === 'grade_change' && event.type === 'submission.graded'
                ? gradeChangeBody(r, s, event)
                : submissionBody(r, s, c.rootAccount.uuid),
            ),
        }));
      };
      return { scope, events };
    }
    case 'quiz_submission.completed': {
      const quiz = await em.getRepository(Quiz).findOneBy({ id: event.quizId });
      const scope = await courseScope(event.courseId, quiz?.assignmentId ?? null);
      if (!scope) return null;
      return {
        scope,
        events: async () => [
          {
            eventName: 'quiz_submitted',
            build: async () =>
              liveEvent('quiz_submitted', await courseContext(r, event.courseId), async () => ({
                submission_id: idString(event.quizSubmissionId),
                quiz_id: idString(event.quizId),
              }) satisfies QuizSubmittedBody),
          },
        ],
      };
    }
    case 'attachment.created': {
      const att = await em.getRepository(Attachment).findOneBy({ id: event.attachmentId });
      if (!att) return null;
      const where = await attachmentContext(em, att);
      if (!where) return null;
      return {
        scope: where.scope,
        events: async () => [
          {
            eventName: 'attachment_created',
            build: () =>
              liveEvent('attachment_created', where.context, async () => ({
                attachment_id: idString(att.id),
                user_id: idString(att.userId),
                display_name: att.displayName,
                filename: att.filename,
                context_type: att.contextType,
                context_id: idString(att.contextId),
                content_type: att.contentType || null,
                folder_id: idString(att.folderId),
                unlock_at: null,
                lock_at: null,
                updated_at: formatDateTime(att.updatedAt),
              }) satisfies AttachmentCreatedBody),
          },
        ],
      };
    }
    case 'calendar_event.changed': {
      const e = await em.getRepository(CalendarEvent).findOneBy({ id: event.eventId });
      if (!e) return null;
      // A section's event lives in the section's course.
      const section = e.contextType === 'CourseSection' ? await em.getRepository(CourseSection).findOneBy({ id: e.contextId }) : null;
      const where = await ownerContext(em, section ? 'Course' : e.contextType, section ? section.courseId : e.contextId, e.userId, null);
      if (!where) return null;
      // Canvas reports a deletion as an update of the event (its workflow_state is deleted).
      const eventName = event.change === 'created' ? 'calendar_event_created' : 'calendar_event_updated';
      return {
        scope: where.scope,
        events: async () => [
          {
            eventName,
            build: () =>
              liveEvent(eventName, where.context, async () => ({
                calendar_event_id: idString(e.id),
                context_id: idString(e.contextId),
                context_type: e.contextType,
                workflow_state: e.workflowState,
                title: e.title,
                description: e.description,
                start_at: formatDateTime(e.startAt),
                end_at: formatDateTime(e.endAt),
                location_name: e.locationName,
                location_address: e.locationAddress,
                user_id: idString(e.userId),
                created_at: formatDateTime(e.createdAt),
                updated_at: formatDateTime(e.updatedAt),
              }) satisfies CalendarEventBody),
          },
        ],
      };
    }
    default:
      return null;
  }
}

/** Where a file lives, for metadata and matching: a course's, a group's (in a course or account) or a user's. */
function attachmentContext(em: EntityManager, att: Attachment): Promise<{ scope: EventScope; context: EventContext } | null> {
  return ownerContext(em, att.contextType, att.contextId, att.userId, att.rootAccountId);
}

/** Where an object owned by a course, a group or a user lives (files, calendar events), for metadata and matching. */
async function ownerContext(em: EntityManager, contextType: string, contextId: number, userId: number | null, rootAccountId: number | null): Promise<{ scope: EventScope; context: EventContext } | null> {
  const r = reads(em);
  const att = { contextType, contextId, userId, rootAccountId };
  if (att.contextType === 'Course') {
    const context = await courseContext(r, att.contextId);
    if (!context) return null;
    return { context, scope: { assignmentId: null, courseId: context.course!.id, accountId: context.course!.accountId, rootAccountId: context.rootAccount.id } };
  }
  if (att.contextType === 'Group') {
    const group = await em.getRepository(Group).findOneBy({ id: att.contextId });
    if (!group) return null;
    const root = await r.account(group.rootAccountId);
    if (!root) return null;
    const course: Course | null = group.contextType === 'Course' ? await r.course(group.contextId) : null;
    const accountId = course ? course.accountId : group.contextId;
    return {
      context: { type: 'Group', id: group.id, accountId, rootAccount: root, course: null, sisSourceId: null },
      scope: { assignmentId: null, courseId: course?.id ?? null, accountId, rootAccountId: root.id },
    };
  }
  // A user's own files: the root account of the uploader's login.
  const pseudonym = att.userId != null ? await r.pseudonym(att.userId) : null;
  const rootId = att.rootAccountId ?? (pseudonym ? (await r.account(pseudonym.accountId))?.resolvedRootId : null);
  const root = rootId != null ? await r.account(rootId) : null;
  if (!root) return null;
  return {
    context: { type: 'User', id: att.contextId, accountId: null, rootAccount: root, course: null, sisSourceId: null },
    scope: { assignmentId: null, courseId: null, accountId: pseudonym?.accountId ?? root.id, rootAccountId: root.id },
  };
}

/** ctx.baseUrl is PUBLIC_URL when configured, else the request's (trusted) origin (src/common/origin.ts). */
function baseUrlOf(ctx: RequestContext): string {
  return ctx.baseUrl;
}

/** The document a subscriber receives, naming its subscription and the message. */
export function renderDocument(ev: LiveEvent, sub: Pick<WebhookSubscription, 'id' | 'format'>, messageId: string): Json {
  if (sub.format === 'caliper') return caliperDocument(ev, sub.id, messageId);
  return { metadata: { ...ev.metadata, subscription_id: sub.id, message_id: messageId }, body: ev.body };
}

/**
 * Writes the outbox messages of one domain event; returns how many. Nothing is read beyond the
 * subscription lookup unless some subscription wants the event.
 */
export async function writeOutbox(em: EntityManager, ctx: RequestContext, event: DomainEvent): Promise<number> {
  const at = new Date();
  const p = await plan(em, ctx, event, at);
  if (!p) return 0;
  const candidates = await subscriptionsInScope(em, p.scope);
  if (!candidates.length) return 0;
  // Some subscription may want it: a span for the write, whose trace context each message keeps.
  return withSpan('webhook outbox write', { attributes: { 'webhook.domain_event': event.type } }, async (span) => {
    const written = await writeMessages(em, ctx, p, candidates, at, activeTraceparent());
    span?.setAttribute('webhook.messages', written);
    return written;
  });
}

async function writeMessages(em: EntityManager, ctx: RequestContext, p: Plan, candidates: Candidates, at: Date, traceparent: string | null): Promise<number> {
  const rows: OutboxMessage[] = [];
  const published: { toolProxyId: number; message: PublishedMessage }[] = [];
  const retryWindow = ctx.app.config.WEBHOOK_RETRY_WINDOW_MS;
  for (const planned of await p.events()) {
    // Listed by the subscription and still allowed by its tool's capabilities.
    const subs = candidates.filter((c) => wants(c.sub, c.capabilities, planned.eventName)).map((c) => c.sub);
    if (!subs.length) continue;
    const ev = await planned.build();
    if (!ev) continue;
    for (const sub of subs) {
      const messageId = randomUUID();
      const document = renderDocument(ev, sub, messageId);
      rows.push(
        em.getRepository(OutboxMessage).create({
          messageId,
          subscriptionId: sub.id,
          toolProxyId: sub.toolProxyId,
          eventName: ev.eventName,
          format: sub.format,
          payload: JSON.stringify(document),
          status: 'pending',
          attempts: 0,
          nextAttemptAt: at,
          retryUntil: new Date(at.getTime() + retryWindow),
          leaseToken: null,
          claimedBy: null,
          lastError: null,
          lastStatusCode: null,
          firstAttemptAt: null,
          lastAttemptAt: null,
          deliveredAt: null,
          traceparent,
          createdAt: at,
          updatedAt: at,
        }),
      );
      published.push({ toolProxyId: sub.toolProxyId, message: { messageId, subscriptionId: sub.id, eventName: ev.eventName, format: sub.format, document } });
    }
  }
  if (!rows.length) return 0;
  for (let i = 0; i < rows.length; i += 200) await em.getRepository(OutboxMessage).insert(rows.slice(i, i + 200));
  const pubsub = ctx.app.pubsub;
  const toolIds = [...new Set(published.map((p) => p.toolProxyId))];
  const guids = new Map((await em.getRepository(ToolProxy).findBy({ id: In(toolIds) })).map((t) => [t.id, t.guid]));
  afterCommit(em, () => {
    announceOutboxWritten(pubsub, rows.length);
    for (const { toolProxyId, message } of published) {
      const document = message.format === 'caliper' ? withSendTime(message.document) : message.document;
      const guid = guids.get(toolProxyId);
      if (guid) pubsub.publish(WEBHOOK_MESSAGE_TOPIC, guid, { ...message, document });
    }
  });
  return rows.length;
}

export const webhookOutboxHandler: DomainEventHandler = async (em, ctx, event) => {
  await writeOutbox(em, ctx, event);
};
