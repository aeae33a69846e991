// Who sends a request (contract section 14): the bearer token it carries is looked up in the
// in-memory token index (no database), then checked for expiry and client address. This hook
// only records what it found; the rate limit reads it next, and the authorization hook decides.
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../auth/caller.js';
import { TokenIndex } from '../../auth/token-index.js';
import type { Config } from '../../config/config.js';
import { createTokenDigester, loadTokenKey, type TokenDigester } from '../../secrets/token-secrets.js';

/** Why a credential is refused: unknown or malformed (401), expired (401), sent from an
 * address outside the token's `allowed_ips` (403). */
export type Refusal = 'invalid' | 'expired' | 'address';

declare module 'fastify' {
  interface FastifyInstance {
    tokenIndex: TokenIndex;
    tokenDigester: TokenDigester;
  }
  interface FastifyRequest {
    /** The token's caller (even when refused), anonymous where access is open; else null. */
    caller: Caller | null;
    refusal: Refusal | null;
  }
}

/** What the hook does with each request; on its own so that `npm run bench:auth` times exactly it. */
export function authenticate(request: Pick<FastifyRequest, 'headers' | 'ip' | 'caller' | 'refusal'> & { raw: { socket: object | null } }, index: TokenIndex): void {
  const header = request.headers.authorization;
  if (header === undefined) return;
  const token = index.identifyHeader(header, request.raw.socket);
  if (token === undefined) {
    request.refusal = 'invalid';
    return;
  }
  request.caller = token.caller;
  const now = Date.now();
  if (now >= token.expiresAt) request.refusal = 'expired';
  // request.ip reads X-Forwarded-For only from the proxies TRUST_PROXY names.
  else if (token.allows !== undefined && !token.allows(request.ip)) request.refusal = 'address';
  else index.used(token, now);
}

export default fp<{ config: Config }>(
  async (app, { config }) => {
    const digester = createTokenDigester(loadTokenKey(config.tokenKey, config.tokenKeyFile));
    const index = new TokenIndex(config.apiTokens, digester.digest);
    app.decorate('tokenIndex', index);
    app.decorate('tokenDigester', digester);
    app.decorateRequest('caller', null);
    app.decorateRequest('refusal', null);

    app.addHook('onRequest', (request, _reply, done) => {
      authenticate(request, index);
      done();
    });
  },
  { name: 'authentication' },
);
