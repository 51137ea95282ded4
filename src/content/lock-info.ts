/** The lock fields a locked content object (assignment, quiz) answers with, as Canvas's REST JSON names them. */
export const LOCK_FIELDS = `locked_for_user: lockedForUser lock_info: lockInfo { asset_string: assetString unlock_at: unlockAt lock_at: lockAt can_view: canView }
  lock_explanation: lockExplanation`;

/** Canvas leaves lock_info and lock_explanation out when the object is not locked. */
export function lockKeys(o: Record<string, unknown>): Record<string, unknown> {
  const out = { ...o };
  if (out.lock_info == null) delete out.lock_info;
  else {
    const li = { ...(out.lock_info as Record<string, unknown>) };
    for (const k of ['unlock_at', 'lock_at']) if (li[k] == null) delete li[k];
    if (!li.can_view) delete li.can_view;
    out.lock_info = li;
  }
  if (out.lock_explanation == null) delete out.lock_explanation;
  return out;
}
