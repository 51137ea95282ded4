/**
 * The webhook capabilities a tool proxy may enable and the event types they allow, as Canvas's
 * Lti::SubscriptionsValidator maps them. The spec writes `vnd.<vendor>.webhooks…`; Canvas's vendor
 * segment is `instructure`, and that exact spelling is the only one accepted.
 */
export const WEBHOOK_EVENT_TYPES = [
  'quiz_submitted',
  'grade_change',
  'attachment_created',
  'submission_created',
  'submission_updated',
  'plagiarism_resubmit',
  // Canvas's live events for calendar events; subscribed with the root_account capability (no assignment-level one).
  'calendar_event_created',
  'calendar_event_updated',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const PREFIX = 'vnd.instructure.webhooks';
export const ALL_CAPABILITY = `${PREFIX}.root_account.all`;

/** Event types with an assignment-level capability (grade_change has none). */
const ASSIGNMENT_LEVEL: readonly WebhookEventType[] = ['quiz_submitted', 'attachment_created', 'submission_created', 'submission_updated', 'plagiarism_resubmit'];

export const rootAccountCapability = (e: WebhookEventType) => `${PREFIX}.root_account.${e}`;
export const assignmentCapability = (e: WebhookEventType) => `${PREFIX}.assignment.${e}`;

/** Every capability string of the spec's table. */
export const KNOWN_CAPABILITIES: ReadonlySet<string> = new Set([
  ALL_CAPABILITY,
  ...WEBHOOK_EVENT_TYPES.map(rootAccountCapability),
  ...ASSIGNMENT_LEVEL.map(assignmentCapability),
]);

/**
 * An event type name as the spec writes it (QUIZ_SUBMITTED) or as Canvas does (quiz_submitted),
 * in any case; null when it names no event type.
 */
export function eventTypeKey(name: string): WebhookEventType | null {
  const key = name.trim().toLowerCase();
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(key) ? (key as WebhookEventType) : null;
}

/**
 * Whether enabled capabilities allow subscribing to an event type: root_account.all allows every
 * type, root_account.<type> allows it anywhere, assignment.<type> only for an assignment context.
 */
export function capabilityAllows(capabilities: readonly string[], event: WebhookEventType, assignmentContext: boolean): boolean {
  const caps = new Set(capabilities);
  if (caps.has(ALL_CAPABILITY) || caps.has(rootAccountCapability(event))) return true;
  return assignmentContext && ASSIGNMENT_LEVEL.includes(event) && caps.has(assignmentCapability(event));
}

/**
 * Of a subscription's event types (as sent, any case), those the capabilities allow in its context
 * type; what a subscription keeps when its tool's capabilities are narrowed.
 */
export function allowedEventTypes(capabilities: readonly string[], eventTypes: readonly string[], contextType: string): string[] {
  return eventTypes.filter((t) => {
    const key = eventTypeKey(t);
    return key != null && capabilityAllows(capabilities, key, contextType === 'assignment');
  });
}
