import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM under a key derived (HKDF-SHA256) from the server secret for one purpose, as the
 * other secrets of the codebase are kept (lti-keys.ts, signing-keys.ts): base64 `iv.tag.ciphertext`.
 */
const keys = new Map<string, Buffer>();
function key(tokenKey: string, purpose: string): Buffer {
  const k = `${purpose}\u0000${tokenKey}`;
  let v = keys.get(k);
  if (!v) keys.set(k, (v = Buffer.from(hkdfSync('sha256', Buffer.from(tokenKey, 'utf8'), Buffer.alloc(0), `lms:${purpose}`, 32))));
  return v;
}

export function seal(tokenKey: string, purpose: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key(tokenKey, purpose), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64')).join('.');
}

/** The plaintext back; throws when the ciphertext was altered or the server secret changed. */
export function unseal(tokenKey: string, purpose: string, stored: string): string {
  const [iv, tag, data] = stored.split('.').map((p) => Buffer.from(p, 'base64'));
  if (!iv || !tag || !data) throw new Error('malformed sealed value');
  const decipher = createDecipheriv('aes-256-gcm', key(tokenKey, purpose), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}
