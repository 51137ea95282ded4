import { createCipheriv, createDecipheriv, createHash, createPrivateKey, hkdfSync, KeyObject, randomBytes, randomUUID, sign } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair, JWK } from 'jose';
import type { DataSource } from 'typeorm';
import { KeyRing } from './key-ring';

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

const ring = new KeyRing(SETTING, 'webhook signing key', newKey, KEEP);

/** Adds a new signing key (used from now on) and keeps the last few in the JWKS. Returns its kid. */
export function rotateSigningKey(ds: DataSource, tokenKey: string): Promise<string> {
  return ring.rotate(ds, tokenKey);
}

/** The public keys receivers verify signatures with (`{"keys": [...]}`, RFC 7517). */
export async function publishedJwks(ds: DataSource, tokenKey: string): Promise<{ keys: JWK[] }> {
  return { keys: await ring.published(ds, tokenKey) };
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
 *
 * The compact JWS is put together here rather than by jose's SignJWT: under a burst jose's own
 * checks and encodings cost the event loop more than the RSA signature itself, which runs on libuv's
 * thread pool (crypto.sign with a callback). The header is encoded once per key.
 */
export class DeliverySigner {
  private readonly key: () => Promise<{ kid: string; key: { header: string; privateKey: KeyObject } }>;

  constructor(ds: DataSource, tokenKey: string, refreshMs = 5 * 60_000) {
    this.key = ring.newest(
      ds,
      tokenKey,
      (k) => ({ header: base64url(JSON.stringify({ alg: ALG, kid: k.kid, typ: 'JWT' })), privateKey: createPrivateKey(decrypt(tokenKey, k.privateKey)) }),
      refreshMs,
    );
  }

  async sign(c: SignatureClaims): Promise<string> {
    const { header, privateKey } = (await this.key()).key;
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      message_id: c.messageId,
      event_name: c.eventName,
      body_sha256: bodyDigest(c.body),
      iss: 'canvas',
      sub: c.subscriptionId,
      aud: c.destination,
      iat: now,
      exp: now + 300,
      jti: `${c.messageId}:${c.attempt}`,
    };
    const input = `${header}.${base64url(JSON.stringify(claims))}`;
    const signature = await new Promise<Buffer>((resolve, reject) =>
      sign('sha256', Buffer.from(input, 'utf8'), privateKey, (err, sig) => (err ? reject(err) : resolve(sig))),
    );
    return `${input}.${signature.toString('base64url')}`;
  }
}

const base64url = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');

/** base64url SHA-256 of a body, as the `body_sha256` claim carries it. */
export function bodyDigest(body: string | Buffer): string {
  return createHash('sha256').update(body).digest('base64url');
}
