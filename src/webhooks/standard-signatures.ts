import { createHmac, createPrivateKey, generateKeyPairSync, KeyObject, randomUUID, sign } from 'node:crypto';
import type { JWK } from 'jose';
import type { DataSource } from 'typeorm';
import { KeyRing } from './key-ring';
import { seal, unseal } from './sealed';

/**
 * Standard Webhooks 1.0 signatures (https://www.standardwebhooks.com): every HTTPS delivery carries
 * `webhook-id` (the message id), `webhook-timestamp` (unix seconds of this attempt) and
 * `webhook-signature`, a space-separated list over the signed content `${id}.${timestamp}.${body}`:
 *
 * - `v1a,<base64 Ed25519 signature>` with the service's Ed25519 key. The public keys are published in
 *   the JWKS beside the RS256 ones (`kty: OKP`, `crv: Ed25519`, `alg: EdDSA`; the raw 32-byte public
 *   key is the base64url `x`). A receiver accepts the message when any published key verifies.
 * - `v1,<base64 HMAC-SHA256>` with each of the subscription's secrets (subscription-secrets.ts): the
 *   current one and, during a rotation's grace period, the previous one.
 *
 * The Ed25519 keys are kept like the RS256 ones (signing-keys.ts): generated on first use, stored in
 * the settings table with the private half encrypted under the server secret, rotated by
 * `npm run cli -- rotate-webhook-key`, the last three published.
 */
const SETTING = 'webhook_ed25519_keys';
const PURPOSE = 'webhook-ed25519-key';
const KEEP = 3;

export const STANDARD_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;

interface StoredEdKey {
  kid: string;
  createdAt: string;
  publicJwk: JWK;
  /** Sealed PKCS#8 PEM. */
  privateKey: string;
}

function newKey(tokenKey: string): StoredEdKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const kid = `ed25519-${new Date().toISOString().slice(0, 10)}-${randomUUID().slice(0, 8)}`;
  const publicJwk = { ...(publicKey.export({ format: 'jwk' }) as JWK), kid, alg: 'EdDSA', use: 'sig' };
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return { kid, createdAt: new Date().toISOString(), publicJwk, privateKey: seal(tokenKey, PURPOSE, pem) };
}

const ring = new KeyRing(SETTING, 'webhook Ed25519 key', newKey, KEEP);

/** Adds a new Ed25519 key (v1a signatures use it from now on); the JWKS keeps the last few. */
export function rotateEd25519Key(ds: DataSource, tokenKey: string): Promise<string> {
  return ring.rotate(ds, tokenKey);
}

/** The Ed25519 public keys as JWKs, newest first. */
export function publishedEd25519Jwks(ds: DataSource, tokenKey: string): Promise<JWK[]> {
  return ring.published(ds, tokenKey);
}

/** What Standard Webhooks signs: `${id}.${timestamp}.${body}`. */
export const signedContent = (id: string, timestamp: number, body: string): string => `${id}.${timestamp}.${body}`;

/**
 * Makes the three Standard Webhooks headers of one attempt. The newest Ed25519 key is re-read now and
 * then, so a rotation by another process is picked up.
 */
export class StandardWebhookSigner {
  private readonly key: () => Promise<{ kid: string; key: KeyObject }>;

  constructor(ds: DataSource, tokenKey: string, refreshMs = 5 * 60_000) {
    this.key = ring.newest(ds, tokenKey, (k) => createPrivateKey(unseal(tokenKey, PURPOSE, k.privateKey)), refreshMs);
  }

  /** `hmacKeys`: the subscription's current (and, during a grace period, previous) secret. */
  async headers(messageId: string, body: string, hmacKeys: Buffer[], now = Date.now()): Promise<Record<string, string>> {
    const timestamp = Math.floor(now / 1000);
    const content = Buffer.from(signedContent(messageId, timestamp, body), 'utf8');
    const signatures = hmacKeys.map((k) => `v1,${createHmac('sha256', k).update(content).digest('base64')}`);
    // On libuv's thread pool (a callback), like the RS256 signature: the event loop only queues it.
    const key = (await this.key()).key;
    const ed25519 = await new Promise<Buffer>((resolve, reject) => sign(null, content, key, (err, sig) => (err ? reject(err) : resolve(sig))));
    signatures.push(`v1a,${ed25519.toString('base64')}`);
    return { [STANDARD_HEADERS.id]: messageId, [STANDARD_HEADERS.timestamp]: String(timestamp), [STANDARD_HEADERS.signature]: signatures.join(' ') };
  }
}
