// Bearer tokens (contract section 9): `scope:token` pairs from API_TOKENS (comma-separated)
// or API_TOKENS_FILE (one a line). Only SHA-256 digests are kept, and a presented token is
// compared with every configured one in constant time, so neither the token nor how much
// of it matched leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors/config-error.js';

export type TokenScope = 'read' | 'write';

export interface ApiToken {
  readonly scope: TokenScope;
  readonly digest: Buffer;
}

// Long enough that guessing is hopeless; visible ASCII without the separators.
const TOKEN = /^[A-Za-z0-9._~+/=-]{16,512}$/;

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

function parseEntry(entry: string, origin: string, index: number): ApiToken {
  const separator = entry.indexOf(':');
  const scope = entry.slice(0, separator);
  const token = entry.slice(separator + 1);
  if (separator < 0 || (scope !== 'read' && scope !== 'write')) {
    throw new ConfigError(`${origin}: entry ${index + 1} must be read:<token> or write:<token>`);
  }
  if (!TOKEN.test(token)) {
    throw new ConfigError(`${origin}: the token of entry ${index + 1} must be 16-512 characters of A-Z a-z 0-9 . _ ~ + / = -`);
  }
  return { scope, digest: digestOf(token) };
}

export function parseApiTokens(text: string, separator: RegExp, origin: string): ApiToken[] {
  return text
    .split(separator)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '' && !entry.startsWith('#'))
    .map((entry, index) => parseEntry(entry, origin, index));
}

export function loadApiTokens(env: NodeJS.ProcessEnv): ApiToken[] {
  const tokens: ApiToken[] = [];
  if (env.API_TOKENS) tokens.push(...parseApiTokens(env.API_TOKENS, /,/, 'API_TOKENS'));
  if (env.API_TOKENS_FILE) {
    let text: string;
    try {
      text = readFileSync(env.API_TOKENS_FILE, 'utf8');
    } catch (error) {
      throw new ConfigError(`API_TOKENS_FILE cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    tokens.push(...parseApiTokens(text, /\r?\n/, 'API_TOKENS_FILE'));
  }
  return tokens;
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any. */
export function bearerToken(header: string | undefined): string | undefined {
  return header !== undefined && /^Bearer [^\s]+$/i.test(header) ? header.slice(7) : undefined;
}

/** The scope of a presented token, or undefined when it matches none. */
export function scopeOf(tokens: readonly ApiToken[], presented: string): TokenScope | undefined {
  const digest = digestOf(presented);
  let scope: TokenScope | undefined;
  for (const token of tokens) {
    // No early exit: every configured token is compared, whatever matched before.
    if (timingSafeEqual(token.digest, digest) && scope !== 'write') scope = token.scope;
  }
  return scope;
}
