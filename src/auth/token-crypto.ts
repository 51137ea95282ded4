import { createHmac, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const TOKEN_HINT_LENGTH = 5;

/** 64 random alphanumeric characters, like Canvas's CanvasSlug tokens. */
export function generateTokenString(length = 64): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  // Rejection sampling keeps every character equally likely.
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    if (bytes[i] < 248) out += ALPHABET[bytes[i] % 62];
  }
  return out.length === length ? out : generateTokenString(length);
}

/** Keyed hash stored instead of the token; the key never leaves the server. */
export function hashToken(token: string, key: string): string {
  return createHmac('sha256', key).update(token).digest('hex');
}

export function tokenHint(token: string): string {
  return token.slice(0, TOKEN_HINT_LENGTH);
}
