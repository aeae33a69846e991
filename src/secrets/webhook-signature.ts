// Standard Webhooks signatures (https://www.standardwebhooks.com): `v1,` + base64 of
// HMAC-SHA256 over `id.timestamp.body`, keyed by the secret's base64 part (after `whsec_`).
// node:crypto rather than a library: the rule is one HMAC, and a runtime dependency for one
// line would bring more than it saves (the `standardwebhooks` package signs with one secret
// per instance; the service signs with two for a day after a rotation, space separated). The
// tests verify every signature with that package, as an independent implementation.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
export const WEBHOOK_SECRET_PATTERN = '^whsec_[A-Za-z0-9+/]{43}=$';

/** A new signing secret: 32 random bytes. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The `webhook-signature` header: one signature per secret, space separated. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => sign(secret, id, timestamp, body)).join(' ');
}
