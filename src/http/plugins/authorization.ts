// Access control (contract sections 9 and 14), after the rate limit: without any token (on a
// loopback HOST only) a client of this machine may do everything, if the request is addressed to
// a loopback name (Host); any other client is 401, any other Host 403. Otherwise a request needs a valid bearer
// token (401), used before its expiry (401) from an allowed address (403), whose scope covers
// the request (403): read for GET, HEAD and OPTIONS, write for the rest, admin for the token
// endpoints. Runs before the body is read, so that an anonymous caller cannot probe which
// paths exist. The OpenAPI document, the docs page and the health probes stay public.
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { ANONYMOUS } from '../../auth/caller.js';
import { isLoopback, isLoopbackAuthority } from '../../auth/exposure-guard.js';
import { isPublicPath } from '../../auth/public-paths.js';
import { ApiError } from '../../errors/api-error.js';
import { message, type MessageKey } from '../../messages/messages.js';
import { routeFacts } from '../route-label.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const REALM = 'Bearer realm="config-api"';
// RFC 6750, section 3.1; the description says why, as its own example does.
const INVALID = `${REALM}, error="invalid_token"`;
const EXPIRED = `${INVALID}, error_description="The access token expired"`;

function unauthorized(key: MessageKey, challenge: string): ApiError {
  return new ApiError('UNAUTHORIZED', message(key), [], { 'www-authenticate': challenge });
}

/** The request fields the decision reads (and, for anonymous access, sets). */
export type AuthorizedRequest = Pick<FastifyRequest, 'refusal' | 'caller' | 'method' | 'url' | 'routeFacts' | 'routeOptions' | 'ip' | 'headers'>;

function refusalOf(request: AuthorizedRequest): ApiError | undefined {
  switch (request.refusal) {
    case 'invalid':
      return unauthorized('auth.invalid', INVALID);
    case 'expired':
      return unauthorized('auth.expired', EXPIRED);
    case 'address':
      return new ApiError('FORBIDDEN', message('auth.address'));
    default:
      break;
  }
  const caller = request.caller;
  if (caller === null) return unauthorized('auth.missing', REALM);
  if (routeFacts(request).admin && caller.scope !== 'admin') return new ApiError('FORBIDDEN', message('auth.adminOnly'));
  if (caller.scope === 'read' && !READ_METHODS.has(request.method)) {
    return new ApiError('FORBIDDEN', message('auth.readOnly', { method: request.method }));
  }
  return undefined;
}

/** What the hook does with each request: the refusal, if any. On its own so that
 * `npm run bench:auth` times exactly it. */
export function authorize(request: AuthorizedRequest, loopback: boolean, index: { readonly size: number }): ApiError | undefined {
  if (loopback && index.size === 0) return anonymousRefusal(request);
  return isPublicPath(request.url) ? undefined : refusalOf(request);
}

/**
 * Without any token. Listening on loopback is not enough: a reverse proxy on this machine
 * (TRUST_PROXY) brings other machines' requests, so the client's own address (request.ip,
 * X-Forwarded-For's through a trusted proxy) must be loopback too; and a browser on this
 * machine may be sent here by a page whose DNS name was rebound to 127.0.0.1, so the Host
 * header must be a loopback name. Public paths and the probes (/metrics) answer as before.
 */
/** `check`, answered again without running for the argument it was last given: the requests
 * of a connection, and nearly all clients, send the same address and Host, which the loopback
 * checks parse (patterns, lower-casing) on every anonymous request otherwise. */
function lastAnswerOf<T>(check: (value: T) => boolean): (value: T) => boolean {
  let last: { readonly value: T; readonly answer: boolean } | undefined;
  return (value) => {
    if (last === undefined || last.value !== value) last = { value, answer: check(value) };
    return last.answer;
  };
}

const loopbackPeer = lastAnswerOf(isLoopback);
const loopbackHost = lastAnswerOf(isLoopbackAuthority);

function anonymousRefusal(request: AuthorizedRequest): ApiError | undefined {
  if (isPublicPath(request.url)) {
    request.caller = ANONYMOUS;
    request.refusal = null;
    return undefined;
  }
  if (!loopbackPeer(request.ip)) return unauthorized('auth.loopbackOnly', REALM);
  if (!loopbackHost(request.headers.host) && !routeFacts(request).probe) return new ApiError('FORBIDDEN', message('auth.host'));
  request.caller = ANONYMOUS;
  request.refusal = null;
  return undefined;
}

export default fp<{ host: string }>(
  async (app, { host }) => {
    const loopback = isLoopback(host);
    const index = app.tokenIndex;
    app.addHook('onRequest', (request, _reply, done) => {
      done(authorize(request, loopback, index));
    });
  },
  { name: 'authorization', dependencies: ['problem-responses', 'authentication'] },
);
