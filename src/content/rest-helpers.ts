import { nullableStr } from '../api/rest/params';

/**
 * A numeric form/JSON param: absent stays absent, "" or null clears, numbers pass; anything else is
 * passed on as given so GraphQL's coercion answers 400 naming the field.
 */
export function num(v: unknown): number | string | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || v === '') return null;
  if (typeof v === 'number') return v;
  const s = String(v).trim();
  return s !== '' && Number.isFinite(Number(s)) ? Number(s) : s;
}

/** A date param: absent stays absent, "" or null clears (Canvas), other strings go to the DateTime scalar. */
export const date = (v: unknown): string | null | undefined => (v === undefined ? undefined : nullableStr(v) ?? null);

/** A text param that may be cleared: absent stays absent, null clears. */
export const text = (v: unknown): string | null | undefined => (v === undefined ? undefined : v === null ? null : String(v));

export { PAYLOAD_ERRORS } from '../api/rest/route';
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
