import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Keys derived from the server secret (app.tokenKey) with HKDF-SHA256, one per purpose, so the
 * secret itself never signs or encrypts anything and rotating it rotates all of them.
 */
function derive(tokenKey: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(tokenKey, 'utf8'), Buffer.alloc(0), `lms:${purpose}`, 32));
}

const cache = new Map<string, Buffer>();
function key(tokenKey: string, purpose: string): Buffer {
  const k = `${purpose}\u0000${tokenKey}`;
  let v = cache.get(k);
  if (!v) cache.set(k, (v = derive(tokenKey, purpose)));
  return v;
}

/** HS256 key for the access tokens the service issues to tools (opaque to them). */
export const accessTokenKey = (tokenKey: string): Uint8Array => key(tokenKey, 'lti-access-token');

/** AES-256-GCM of a tool proxy's shared secret: base64 `iv.tag.ciphertext`. */
export function encryptSecret(tokenKey: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key(tokenKey, 'lti-shared-secret'), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64')).join('.');
}

/** The shared secret back; throws when the ciphertext was altered or the key changed. */
export function decryptSecret(tokenKey: string, stored: string): string {
  const [iv, tag, data] = stored.split('.').map((p) => Buffer.from(p, 'base64'));
  if (!iv || !tag || !data) throw new Error('malformed encrypted secret');
  const decipher = createDecipheriv('aes-256-gcm', key(tokenKey, 'lti-shared-secret'), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}

/** 128 hex characters, as Canvas's SecureRandom.hex(64) shared secrets. */
export const generateSharedSecret = (): string => randomBytes(64).toString('hex');
