// Environment tokens (contract sections 9 and 14): `[name=]scope:token` entries from
// API_TOKENS (comma-separated) or API_TOKENS_FILE (one a line). An entry without a name is
// named after its place: `api-tokens-2` is the second entry of API_TOKENS, `api-tokens-file-1`
// the first of the file. Only the SHA-256 fingerprint of a token is kept, never the token.
import * as crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors/config-error.js';
import { RESERVED_NAMES, TOKEN_NAME_PATTERN, TOKEN_SCOPES, type Caller, type TokenScope } from './caller.js';

export interface EnvironmentToken {
  readonly caller: Caller;
  /** SHA-256 of the token, base64url. */
  readonly fingerprint: string;
}

// Long enough that guessing is hopeless; visible ASCII without the separators.
const TOKEN = /^[A-Za-z0-9._~+/=-]{16,512}$/;
const NAME = new RegExp(TOKEN_NAME_PATTERN);

// crypto.hash (Node 20.12+) makes no hash object, which is cheaper per request (what it saves:
// docs/performance.md, "Figures behind the code").
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash;

/** SHA-256 of a token, base64url: how a presented token is first looked for. */
export function fingerprint(token: string): string {
  return oneShotHash !== undefined ? oneShotHash('sha256', token, 'base64url') : crypto.createHash('sha256').update(token).digest('base64url');
}

function parseEntry(entry: string, origin: string, index: number): EnvironmentToken {
  const named = /^([^=:]*)=(.*)$/s.exec(entry);
  const name = named?.[1] ?? `${origin.toLowerCase().replace(/_/g, '-')}-${index + 1}`;
  const rest = named?.[2] ?? entry;
  const separator = rest.indexOf(':');
  const scope = rest.slice(0, separator);
  const token = rest.slice(separator + 1);
  if (!NAME.test(name) || RESERVED_NAMES.includes(name)) {
    throw new ConfigError(`${origin}: the name of entry ${index + 1} must be 1-64 characters of A-Z a-z 0-9 . _ @ - (not "anonymous")`);
  }
  if (separator < 0 || !(TOKEN_SCOPES as readonly string[]).includes(scope)) {
    throw new ConfigError(`${origin}: entry ${index + 1} must be [name=]scope:token, the scope read, write or admin`);
  }
  if (!TOKEN.test(token)) {
    throw new ConfigError(`${origin}: the token of entry ${index + 1} must be 16-512 characters of A-Z a-z 0-9 . _ ~ + / = -`);
  }
  return { caller: { name, scope: scope as TokenScope }, fingerprint: fingerprint(token) };
}

export function parseApiTokens(text: string, separator: RegExp, origin: string): EnvironmentToken[] {
  return text
    .split(separator)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '' && !entry.startsWith('#'))
    .map((entry, index) => parseEntry(entry, origin, index));
}

/** Two entries may not share a name (it would be ambiguous as an actor) nor a token. */
function refuseRepeats(tokens: readonly EnvironmentToken[]): void {
  const names = new Set<string>();
  const fingerprints = new Set<string>();
  for (const { caller, fingerprint: print } of tokens) {
    if (names.has(caller.name)) throw new ConfigError(`API_TOKENS/API_TOKENS_FILE: the name "${caller.name}" is given twice`);
    if (fingerprints.has(print)) throw new ConfigError(`API_TOKENS/API_TOKENS_FILE: the token named "${caller.name}" is given twice`);
    names.add(caller.name);
    fingerprints.add(print);
  }
}

export function loadApiTokens(env: NodeJS.ProcessEnv): EnvironmentToken[] {
  const tokens: EnvironmentToken[] = [];
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
  refuseRepeats(tokens);
  return tokens;
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any. */
export function bearerToken(header: string | undefined): string | undefined {
  return header !== undefined && /^Bearer [^\s]+$/i.test(header) ? header.slice(7) : undefined;
}
