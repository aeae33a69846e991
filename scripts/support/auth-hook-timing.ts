// The attribution half of `npm run bench:auth`: the work the access hooks do for one GET by id,
// timed in this process with the service's own modules — authenticate() (bearerToken, the
// token index's SHA-256 lookup and constant-time comparison, expiry, allowed_ips, the last-use
// note, the connection's memo of its header) and authorize() (public path, refusals, scope) —
// with a token among `count` managed ones, and the same two hooks for an anonymous request on
// a service without tokens. The
// difference is what a token adds in JavaScript; the end-to-end half (bench-auth.ts) measures
// everything else with it (the header's parsing, caches, the garbage collector).
//
// A tight loop keeps this code and its data in the CPU's caches, which a real request, amid
// 25 µs of other work, does not: this is a lower bound of the in-service cost.
import { randomBytes } from 'node:crypto';
import { TokenIndex, type ManagedToken } from '../../src/auth/token-index.js';
import { authenticate } from '../../src/http/plugins/authentication.js';
import { authorize, type AuthorizedRequest } from '../../src/http/plugins/authorization.js';
import { createTokenDigester, newTokenSecret } from '../../src/secrets/token-secrets.js';

/** The fields of a Fastify request the hooks read and write. Fastify makes a new request for
 * each one with `caller` and `refusal` null; the loop resets them instead. */
interface FakeRequest extends AuthorizedRequest {
  headers: Record<string, string>;
  ip: string;
  /** Each fake request stands for a client on a keep-alive connection of its own. */
  raw: { socket: object | null };
}

/** Requests as autocannon sends them to the bench's services. `connection` null: one request
 * per connection, so no memo (the header is hashed each time). */
function fakeRequest(token: string | undefined, connection: object | null = {}): FakeRequest {
  const headers: Record<string, string> = { host: '127.0.0.1:3000', 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return {
    headers,
    ip: '127.0.0.1',
    raw: { socket: connection },
    method: 'GET',
    url: '/en/api/config/servers/4242',
    caller: null,
    refusal: null,
    // The metrics and the log line read the route's facts anyway: where authorization reads
    // them first, it only moves that work earlier. Found cached, as they then are.
    routeFacts: { label: '/:lang/api/config/:resource/:id', probe: false, admin: false },
    routeOptions: undefined as never,
  };
}

export interface HookVariant {
  readonly name: string;
  /** Managed tokens in the index. */
  readonly tokens: number;
  readonly index: TokenIndex;
  /** The requests sent in turn: one token's, or every token's (each seen once before timing). */
  readonly requests: readonly FakeRequest[];
  /** ns per request, one per repetition. */
  readonly nanoseconds: number[];
}

/** An index as the api-tokens plugin fills it (replaceManaged, from the database's rows), under
 * a throw-away key; the secrets stay in memory. */
function variant(name: string, tokens: number, use: 'one' | 'all' | 'one per connection'): HookVariant {
  const digester = createTokenDigester(randomBytes(32));
  const index = new TokenIndex([], digester.digest);
  const secrets = Array.from({ length: tokens }, () => newTokenSecret());
  const rows: ManagedToken[] = secrets.map((secret, i) => ({
    id: i + 1,
    name: `bench-${i}`,
    scope: 'read',
    digest: digester.digest(secret),
    expiresAt: null,
    allowedIps: null,
  }));
  for (const row of rows) index.addManaged(row);
  const requests =
    tokens === 0 ? [fakeRequest(undefined)] : (use === 'all' ? secrets : secrets.slice(-1)).map((secret) => fakeRequest(secret, use === 'one per connection' ? null : {}));
  return { name, tokens, index, requests, nanoseconds: [] };
}

export function hookVariants(tokenCounts: readonly number[]): HookVariant[] {
  return [
    variant('anonymous (no token anywhere)', 0, 'one'),
    ...tokenCounts.map((count) => variant(`one token among ${count}`, count, 'one')),
    // A fleet where every token is in use: the lookups then miss the CPU's caches more.
    ...tokenCounts.filter((count) => count > 1).map((count) => variant(`all ${count} tokens in turn`, count, 'all')),
    // Clients that open a connection per request: the header is hashed and looked up each time.
    ...tokenCounts.map((count) => variant(`one token among ${count}, a connection per request`, count, 'one per connection')),
  ];
}

function pass(subject: HookVariant, iterations: number): void {
  const { index, requests } = subject;
  let next = 0;
  for (let i = 0; i < iterations; i++) {
    const request = requests[next]!;
    next = next + 1 === requests.length ? 0 : next + 1;
    request.caller = null;
    request.refusal = null;
    authenticate(request, index);
    if (authorize(request, true, index) !== undefined || request.caller === null) throw new Error(`${subject.name}: the request was refused`);
  }
}

/** One repetition: each variant in turn, `iterations` requests each, after a pass that warms
 * the JIT and has every token seen once (its HMAC paid, as a running service has). */
export function timeHooks(variants: readonly HookVariant[], iterations: number): void {
  for (const subject of variants) {
    pass(subject, Math.max(subject.requests.length, 10_000));
    const started = process.hrtime.bigint();
    pass(subject, iterations);
    subject.nanoseconds.push(Number(process.hrtime.bigint() - started) / iterations);
  }
}
