import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, JWK, KeyLike, SignJWT } from 'jose';
import type { DataSource } from 'typeorm';
import { Setting } from '../db/setting.entity';

/**
 * The service's key pair for signing webhook deliveries. Generated on first use and kept in the
 * settings table: the public half as a JWK, the private half as PKCS#8 encrypted with AES-256-GCM
 * under a key derived from the server secret. Rotation appends a key (new deliveries are signed with
 * it) and keeps the previous ones in the published JWKS, so receivers can verify messages signed
 * just before the rotation; every key has its own `kid`.
 */
const SETTING = 'webhook_signing_keys';
const ALG = 'RS256';
/** Keys published after a rotation: the current one and the ones before it. */
const KEEP = 3;

interface StoredKey {
  kid: string;
  alg: typeof ALG;
  createdAt: string;
  publicJwk: JWK;
  /** base64 `iv.tag.ciphertext` of the PKCS#8 PEM. */
  privateKey: string;
}

function encryptionKey(tokenKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(tokenKey, 'utf8'), Buffer.alloc(0), 'lms:webhook-signing-key', 32));
}

function encrypt(tokenKey: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(tokenKey), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64')).join('.');
}

function decrypt(tokenKey: string, stored: string): string {
  const [iv, tag, data] = stored.split('.').map((p) => Buffer.from(p, 'base64'));
  const decipher = createDecipheriv('aes-256-gcm', encryptionKey(tokenKey), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}

async function newKey(tokenKey: string): Promise<StoredKey> {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
  const kid = `${new Date().toISOString().slice(0, 10)}-${randomUUID().slice(0, 8)}`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
  return { kid, alg: ALG, createdAt: new Date().toISOString(), publicJwk, privateKey: encrypt(tokenKey, await exportPKCS8(privateKey)) };
}

async function readKeys(ds: DataSource): Promise<StoredKey[] | null> {
  const row = await ds.getRepository(Setting).findOneBy({ name: SETTING });
  return row ? (JSON.parse(row.value) as StoredKey[]) : null;
}

/** The stored keys, generating the first one when there is none (concurrent first starts agree on one). */
async function ensureKeys(ds: DataSource, tokenKey: string): Promise<StoredKey[]> {
  const found = await readKeys(ds);
  if (found?.length) return found;
  const keys = [await newKey(tokenKey)];
  try {
    await ds.getRepository(Setting).insert({ name: SETTING, value: JSON.stringify(keys) });
    return keys;
  } catch {
    // Another process generated them first: use theirs.
    const theirs = await readKeys(ds);
    if (theirs?.length) return theirs;
    throw new Error('could not store the webhook signing key');
  }
}

/** Adds a new signing key (used from now on) and keeps the last few in the JWKS. Returns its kid. */
export async function rotateSigningKey(ds: DataSource, tokenKey: string): Promise<string> {
  const keys = await ensureKeys(ds, tokenKey);
  const next = await newKey(tokenKey);
  const kept = [...keys, next].slice(-KEEP);
  await ds.getRepository(Setting).update({ name: SETTING }, { value: JSON.stringify(kept) });
  return next.kid;
}

/** The public keys receivers verify signatures with (`{"keys": [...]}`, RFC 7517). */
export async function publishedJwks(ds: DataSource, tokenKey: string): Promise<{ keys: JWK[] }> {
  return { keys: (await ensureKeys(ds, tokenKey)).map((k) => k.publicJwk).reverse() };
}

export interface SignatureClaims {
  subscriptionId: string;
  messageId: string;
  eventName: string;
  attempt: number;
  /** Where the message is sent (the JWT's audience). */
  destination: string;
  /** The exact request body. */
  body: string;
}

/** The header carrying the signature of an HTTPS delivery. */
export const SIGNATURE_HEADER = 'X-Webhook-Signature';

/**
 * Signs deliveries with the newest key. The signature is a JWT (RS256, `kid` in the header) whose
 * claims bind it to one request: `sub` the subscription, `aud` the destination URL, `jti` the
 * message id and attempt, `body_sha256` the base64url SHA-256 of the exact body, valid 5 minutes.
 * Keys are re-read now and then, so a rotation by another process is picked up.
 */
export class DeliverySigner {
  private current?: { kid: string; key: KeyLike; loadedAt: number };
  /** One load at a time: concurrent deliveries share it (and never generate two first keys). */
  private loading?: Promise<{ kid: string; key: KeyLike }>;

  constructor(
    private readonly ds: DataSource,
    private readonly tokenKey: string,
    private readonly refreshMs = 5 * 60_000,
  ) {}

  private key(): Promise<{ kid: string; key: KeyLike }> {
    if (this.current && Date.now() - this.current.loadedAt < this.refreshMs) return Promise.resolve(this.current);
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<{ kid: string; key: KeyLike }> {
    const keys = await ensureKeys(this.ds, this.tokenKey);
    const newest = keys[keys.length - 1];
    if (this.current?.kid !== newest.kid) {
      this.current = { kid: newest.kid, key: await importPKCS8(decrypt(this.tokenKey, newest.privateKey), ALG), loadedAt: Date.now() };
    } else this.current.loadedAt = Date.now();
    return this.current;
  }

  async sign(c: SignatureClaims): Promise<string> {
    const { kid, key } = await this.key();
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ message_id: c.messageId, event_name: c.eventName, body_sha256: bodyDigest(c.body) })
      .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
      .setIssuer('canvas')
      .setSubject(c.subscriptionId)
      .setAudience(c.destination)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .setJti(`${c.messageId}:${c.attempt}`)
      .sign(key);
  }
}

/** base64url SHA-256 of a body, as the `body_sha256` claim carries it. */
export function bodyDigest(body: string | Buffer): string {
  return createHash('sha256').update(body).digest('base64url');
}
