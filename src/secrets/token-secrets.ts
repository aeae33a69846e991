// API token secrets: made here (a recognisable prefix, then 256 random bits) and known to the
// database only by their keyed digest, HMAC-SHA-256 under the token key (TOKEN_KEY or its key
// file, kept like the encryption key), so that a copy of the database alone lets nobody check
// a guessed token: without the key, a digest cannot even be computed.
import { createHmac, randomBytes } from 'node:crypto';
import { loadKey } from './key-file.js';

/** Every managed token starts with this, so that secret scanners can find a leaked one. */
export const TOKEN_PREFIX = 'pmcapi_';
const RANDOM_BYTES = 32;
/** A managed token as a whole: the prefix and 43 base64url characters. */
export const TOKEN_PATTERN = `^${TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`;

export function newTokenSecret(): string {
  return `${TOKEN_PREFIX}${randomBytes(RANDOM_BYTES).toString('base64url')}`;
}

export interface TokenDigester {
  /** The keyed digest a managed token is stored and found by (base64url). */
  digest(token: string): string;
  /** Tells whether stored digests were made with this key, and nothing else: the digest of a
   * text no token can be (tokens hold no space). */
  readonly keyCheck: string;
}

export function loadTokenKey(value: string | undefined, keyFile: string): Buffer {
  return loadKey(value, 'TOKEN_KEY', keyFile);
}

export function createTokenDigester(key: Buffer): TokenDigester {
  const digest = (text: string): string => createHmac('sha256', key).update(text, 'utf8').digest('base64url');
  return { digest, keyCheck: digest('key check of the API token digests') };
}
