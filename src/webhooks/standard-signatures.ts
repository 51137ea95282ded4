import { createHmac, createPrivateKey, generateKeyPairSync, KeyObject, randomUUID, sign } from 'node:crypto';
import type { JWK } from 'jose';
import type { DataSource } from 'typeorm';
import { Setting } from '../db/setting.entity';
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

async function readKeys(ds: DataSource): Promise<StoredEdKey[] | null> {
  const row = await ds.getRepository(Setting).findOneBy({ name: SETTING });
  return row ? (JSON.parse(row.value) as StoredEdKey[]) : null;
}

/** The stored keys, generating the first one when there is none (concurrent first starts agree on one). */
async function ensureKeys(ds: DataSource, tokenKey: string): Promise<StoredEdKey[]> {
  const found = await readKeys(ds);
  if (found?.length) return found;
  const keys = [newKey(tokenKey)];
  try {
    await ds.getRepository(Setting).insert({ name: SETTING, value: JSON.stringify(keys) });
    return keys;
  } catch {
    const theirs = await readKeys(ds);
    if (theirs?.length) return theirs;
    throw new Error('could not store the webhook Ed25519 key');
  }
}

/** Adds a new Ed25519 key (v1a signatures use it from now on); the JWKS keeps the last few. */
export async function rotateEd25519Key(ds: DataSource, tokenKey: string): Promise<string> {
  const keys = await ensureKeys(ds, tokenKey);
  const next = newKey(tokenKey);
  await ds.getRepository(Setting).update({ name: SETTING }, { value: JSON.stringify([...keys, next].slice(-KEEP)) });
  return next.kid;
}

/** The Ed25519 public keys as JWKs, newest first. */
export async function publishedEd25519Jwks(ds: DataSource, tokenKey: string): Promise<JWK[]> {
  return (await ensureKeys(ds, tokenKey)).map((k) => k.publicJwk).reverse();
}

/** What Standard Webhooks signs: `${id}.${timestamp}.${body}`. */
export const signedContent = (id: string, timestamp: number, body: string): string => `${id}.${timestamp}.${body}`;

/**
 * Makes the three Standard Webhooks headers of one attempt. The newest Ed25519 key is re-read now and
 * then, so a rotation by another process is picked up.
 */
export class StandardWebhookSigner {
  private current?: { kid: string; key: KeyObject; loadedAt: number };
  private loading?: Promise<KeyObject>;

  constructor(
    private readonly ds: DataSource,
    private readonly tokenKey: string,
    private readonly refreshMs = 5 * 60_000,
  ) {}

  private key(): Promise<KeyObject> {
    if (this.current && Date.now() - this.current.loadedAt < this.refreshMs) return Promise.resolve(this.current.key);
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<KeyObject> {
    const keys = await ensureKeys(this.ds, this.tokenKey);
    const newest = keys[keys.length - 1];
    if (this.current?.kid !== newest.kid) {
      this.current = { kid: newest.kid, key: createPrivateKey(unseal(this.tokenKey, PURPOSE, newest.privateKey)), loadedAt: Date.now() };
    } else this.current.loadedAt = Date.now();
    return this.current.key;
  }

  /** `hmacKeys`: the subscription's current (and, during a grace period, previous) secret. */
  async headers(messageId: string, body: string, hmacKeys: Buffer[], now = Date.now()): Promise<Record<string, string>> {
    const timestamp = Math.floor(now / 1000);
    const content = Buffer.from(signedContent(messageId, timestamp, body), 'utf8');
    const signatures = hmacKeys.map((k) => `v1,${createHmac('sha256', k).update(content).digest('base64')}`);
    signatures.push(`v1a,${sign(null, content, await this.key()).toString('base64')}`);
    return { [STANDARD_HEADERS.id]: messageId, [STANDARD_HEADERS.timestamp]: String(timestamp), [STANDARD_HEADERS.signature]: signatures.join(' ') };
  }
}
