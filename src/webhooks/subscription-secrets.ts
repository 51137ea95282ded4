import { randomBytes } from 'node:crypto';
import { seal, unseal } from './sealed';
import type { WebhookSubscription } from './webhook-subscription.entity';

/**
 * Standard Webhooks symmetric secrets (`whsec_` + base64 of 32 random bytes, as Svix issues them).
 * The tool sees a secret once, in the response that created or rotated it; the database keeps it
 * encrypted; it is never logged. After a rotation the previous secret still signs (a second `v1,…`
 * in `webhook-signature`) until `previousSecretUntil`, so a receiver can switch without losing
 * messages.
 */
const PURPOSE = 'webhook-subscription-secret';
export const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export const sealSecret = (tokenKey: string, secret: string): string => seal(tokenKey, PURPOSE, secret);

/** The HMAC key a `whsec_` secret stands for (the base64 after the prefix, decoded). */
export function hmacKeyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** The columns a new secret is stored in; the current one (if any) stays valid for `graceMs`. */
export function rotatedSecretColumns(
  tokenKey: string,
  sub: Pick<WebhookSubscription, 'signingSecret'>,
  secret: string,
  graceMs: number,
  now = new Date(),
): Pick<WebhookSubscription, 'signingSecret' | 'previousSigningSecret' | 'previousSecretUntil'> {
  const keepOld = sub.signingSecret != null && graceMs > 0;
  return {
    signingSecret: sealSecret(tokenKey, secret),
    previousSigningSecret: keepOld ? sub.signingSecret : null,
    previousSecretUntil: keepOld ? new Date(now.getTime() + graceMs) : null,
  };
}

/**
 * The HMAC keys a delivery is signed with now: the current secret, then the previous one while its
 * grace period lasts. A secret that no longer decrypts (the server secret changed) is skipped: the
 * delivery still carries its v1a signature and the tool can rotate.
 */
export function signingKeysOf(tokenKey: string, sub: Pick<WebhookSubscription, 'signingSecret' | 'previousSigningSecret' | 'previousSecretUntil'>, now = new Date()): Buffer[] {
  const sealed = [sub.signingSecret];
  if (sub.previousSigningSecret && sub.previousSecretUntil && sub.previousSecretUntil.getTime() > now.getTime()) sealed.push(sub.previousSigningSecret);
  const out: Buffer[] = [];
  for (const s of sealed) {
    if (!s) continue;
    try {
      out.push(hmacKeyOf(unseal(tokenKey, PURPOSE, s)));
    } catch {
      // undecryptable: skipped (see above)
    }
  }
  return out;
}
