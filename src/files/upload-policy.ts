import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long an upload_url / upload_params pair stays usable, as in Canvas. */
export const POLICY_TTL_MS = 30 * 60 * 1000;

/** What the signed Policy of a preflight says: which pending attachment, until when, how many bytes. */
export interface UploadPolicy {
  attachmentId: number;
  uuid: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** The size declared at preflight; the upload may not be larger. */
  maxBytes: number;
}

/** A key of its own for upload policies, derived from the server secret. */
function policyKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('lms:file-upload-policy:v1').digest();
}

export function signPolicy(secret: string, policy: UploadPolicy): { Policy: string; Signature: string } {
  const body = {
    expiration: new Date(policy.expiresAt).toISOString(),
    attachment_id: policy.attachmentId,
    uuid: policy.uuid,
    conditions: [['content-length-range', 1, policy.maxBytes]],
  };
  const encoded = Buffer.from(JSON.stringify(body)).toString('base64');
  const signature = createHmac('sha256', policyKey(secret)).update(encoded).digest('base64');
  return { Policy: encoded, Signature: signature };
}

/** The policy when the signature matches and it has not expired; null otherwise. */
export function verifyPolicy(secret: string, encoded: unknown, signature: unknown, now = Date.now()): UploadPolicy | null {
  if (typeof encoded !== 'string' || typeof signature !== 'string' || encoded.length > 4096) return null;
  const expected = createHmac('sha256', policyKey(secret)).update(encoded).digest();
  const given = Buffer.from(signature, 'base64');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const body = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
    const expiresAt = Date.parse(body.expiration);
    const range = Array.isArray(body.conditions) ? body.conditions.find((c: unknown) => Array.isArray(c) && c[0] === 'content-length-range') : null;
    const maxBytes = range && Number.isSafeInteger(range[2]) && range[2] >= 0 ? (range[2] as number) : null;
    // A policy without a byte cap (signed before sizes were required) no longer authorises an upload.
    if (maxBytes == null || !Number.isFinite(expiresAt) || expiresAt <= now) return null;
    if (!Number.isInteger(body.attachment_id) || typeof body.uuid !== 'string') return null;
    return { attachmentId: body.attachment_id, uuid: body.uuid, expiresAt, maxBytes };
  } catch {
    return null;
  }
}
