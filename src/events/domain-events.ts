import type { EntityManager } from 'typeorm';
import type { RequestContext } from '../request/context';

/**
 * Domain events: what happened, raised by services inside the transaction of the change. Handlers
 * run in that same transaction (so module progress, the webhook outbox and anything else derived
 * from a change commits or rolls back with it); work that must wait for the commit (live
 * subscriptions) is queued with `afterCommit`.
 */
export type DomainEvent =
  | { type: 'submission.submitted'; courseId: number; assignmentId: number; userId: number; submissionId: number; attempt: number }
  | { type: 'submission.updated'; courseId: number; assignmentId: number; userId: number; submissionId: number }
  /** A grader asked for the submission to be sent to the plagiarism tool again. */
  | { type: 'submission.plagiarism_resubmit'; courseId: number; assignmentId: number; userId: number; submissionId: number }
  | {
      type: 'submission.graded';
      courseId: number;
      assignmentId: number;
      userId: number;
      submissionId: number;
      oldScore: number | null;
      newScore: number | null;
      oldGrade: string | null;
      newGrade: string | null;
      excused: boolean;
    }
  | { type: 'quiz_submission.completed'; courseId: number; quizId: number; userId: number; quizSubmissionId: number; score: number | null }
  | { type: 'quiz_submission.scored'; courseId: number; quizId: number; userId: number; quizSubmissionId: number; score: number | null }
  | { type: 'content.viewed'; courseId: number; userId: number; contentType: ContentKind; contentId: number }
  | { type: 'content.contributed'; courseId: number; userId: number; contentType: ContentKind; contentId: number }
  | { type: 'content.changed'; courseId: number; contentType: ContentKind; contentId: number; change: 'created' | 'updated' | 'deleted' }
  /**
   * Content was replaced by another object of the same kind that takes its place (a course file
   * overwritten by an upload of the same name): links to the old one follow to the new one. Raised
   * before the old one's `content.changed` deleted.
   */
  | { type: 'content.replaced'; courseId: number; contentType: ContentKind; contentId: number; replacementId: number }
  | { type: 'attachment.created'; contextType: string; contextId: number; attachmentId: number; userId: number | null }
  /** An admin replaced a tool proxy's capabilities (its webhook subscriptions follow them). */
  | { type: 'tool_proxy.capabilities_changed'; toolProxyId: number; capabilities: string[] }
  /** A tool proxy was deleted (its webhook subscriptions stop with it). */
  | { type: 'tool_proxy.deleted'; toolProxyId: number }
  /** A student marked a module item done (or not done) themselves: the planner follows (Canvas marks the content complete). */
  | {
      type: 'module_item.done_changed';
      courseId: number;
      userId: number;
      done: boolean;
      item: { requirementType: string | null; contentType: ContentKind; contentId: number | null };
    }
  /** A calendar event was created, changed or deleted (a deletion is a change of its workflow_state, as Canvas saves it). */
  | { type: 'calendar_event.changed'; eventId: number; change: 'created' | 'updated' | 'deleted' }
  /** A user was created with this login (group invitations sent to the address wait for it). */
  | { type: 'user.created'; userId: number; login: string };

/** Course content kinds as module items name them. */
export type ContentKind = 'Assignment' | 'Quiz' | 'Page' | 'Discussion' | 'File' | 'ExternalTool' | 'ExternalUrl' | 'SubHeader';

export type DomainEventHandler = (em: EntityManager, ctx: RequestContext, event: DomainEvent) => Promise<void>;

const handlers: DomainEventHandler[] = [];

/** Areas register what they derive from events (module progress, webhook outbox, …) once, at load. */
export function onDomainEvent(handler: DomainEventHandler): void {
  handlers.push(handler);
}

/** Raises an event inside the caller's transaction; every handler runs before the commit. */
export async function raise(em: EntityManager, ctx: RequestContext, event: DomainEvent): Promise<void> {
  for (const h of handlers) await h(em, ctx, event);
}
