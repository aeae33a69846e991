// The tokens this process accepts, held in memory so that a request is authenticated without
// the database: the environment tokens, and the managed tokens as last read from the database
// (kept current by the api-tokens plugin). A presented token is hashed, never compared itself:
// first its SHA-256 (cheap) is looked for among the environment tokens and the managed tokens
// already seen; only then is its keyed digest (HMAC, the stored form) looked for. Digests are
// found by their first characters and then compared whole in constant time.
import { timingSafeEqual } from 'node:crypto';
import { addressMatcher } from './address-ranges.js';
import { bearerToken, fingerprint, type EnvironmentToken } from './api-tokens.js';
import type { Caller, TokenScope } from './caller.js';

/** A managed token as the database holds it. */
export interface ManagedToken {
  readonly id: number;
  readonly name: string;
  readonly scope: TokenScope;
  /** The keyed digest (HMAC) of the token. */
  readonly digest: string;
  readonly expiresAt: string | null;
  readonly allowedIps: readonly string[] | null;
}

export interface KnownToken {
  readonly caller: Caller;
  /** The id of a managed token; undefined for an environment token. */
  readonly id: number | undefined;
  /** Milliseconds since the epoch; Infinity for a token that never expires. */
  readonly expiresAt: number;
  /** Whether a client address may use the token; undefined: any address. */
  readonly allows: ((address: string) => boolean) | undefined;
  /** When this process last accepted it (ms), 0 if never. */
  lastUsed: number;
  /** Used since its use was last handed to the database. */
  unsaved: boolean;
}

// 48 bits: buckets almost always hold one digest, even with 100,000 tokens.
const BUCKET_CHARS = 8;
// Tokens whose SHA-256 is remembered once seen; past this many, the others pay the HMAC.
const SEEN_MAX = 100_000;

// SHA-256 and HMAC-SHA-256 in base64url: 43 characters.
const DIGEST_CHARS = 43;

/** What a connection last sent as its Authorization header, and what it was found to be. */
interface ConnectionMemo {
  readonly header: string;
  readonly token: KnownToken | undefined;
  /** The index's generation then: any change to the tokens makes the memo stale. */
  readonly generation: number;
}

// A client sends the same header on every request of a keep-alive connection; hashing it each
// time was a large part of what authentication cost a GET by id (docs/performance.md,
// "What authentication costs"; npm run bench:auth). Kept on the
// connection (one entry each, gone with it), so nothing grows with the number of clients.
const MEMO = Symbol('authorization memo');

type Connection = object & { [MEMO]?: ConnectionMemo };

/** Whether two texts are equal, in a time that depends on their length only: the memo may hold
 * another client's header where a proxy shares one upstream connection between clients. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

class DigestTable {
  private readonly buckets = new Map<string, { digest: Buffer; token: KnownToken }[]>();
  private count = 0;
  /** Where a presented digest is written to be compared: no buffer made per request. */
  private readonly presented = Buffer.alloc(DIGEST_CHARS);

  get size(): number {
    return this.count;
  }

  add(digest: string, token: KnownToken): void {
    if (digest.length !== DIGEST_CHARS) throw new Error('a token digest is 43 base64url characters');
    const key = digest.slice(0, BUCKET_CHARS);
    const entry = { digest: Buffer.from(digest, 'latin1'), token };
    const bucket = this.buckets.get(key);
    if (bucket === undefined) this.buckets.set(key, [entry]);
    else bucket.push(entry);
    this.count += 1;
  }

  find(digest: string): KnownToken | undefined {
    const bucket = this.buckets.get(digest.slice(0, BUCKET_CHARS));
    if (bucket === undefined || digest.length !== DIGEST_CHARS) return undefined;
    this.presented.write(digest, 'latin1');
    let found: KnownToken | undefined;
    for (const entry of bucket) {
      if (timingSafeEqual(entry.digest, this.presented)) found = entry.token;
    }
    return found;
  }

  /** Takes out the entry of `digest` that holds `token`, if there is one. */
  remove(digest: string, token: KnownToken): void {
    const key = digest.slice(0, BUCKET_CHARS);
    const bucket = this.buckets.get(key);
    const at = bucket === undefined ? -1 : bucket.findIndex((entry) => entry.token === token);
    if (at < 0) return;
    if (bucket!.length === 1) this.buckets.delete(key);
    else bucket!.splice(at, 1);
    this.count -= 1;
  }

  clear(): void {
    this.buckets.clear();
    this.count = 0;
  }
}

/** Reads a token's ranges when it is first presented, not when the token is loaded: a start or
 * a change then costs nothing per range, however many tokens list how many ranges. */
function lazyMatcher(ranges: readonly string[]): (address: string) => boolean {
  let matcher: ((address: string) => boolean) | undefined;
  return (address) => (matcher ??= addressMatcher(ranges))(address);
}

function known(caller: Caller, id: number | undefined, expiresAt: string | null, allowedIps: readonly string[] | null): KnownToken {
  return {
    caller,
    id,
    expiresAt: expiresAt === null ? Infinity : Date.parse(expiresAt),
    allows: allowedIps === null ? undefined : lazyMatcher(allowedIps),
    lastUsed: 0,
    unsaved: false,
  };
}

export class TokenIndex {
  /** By SHA-256: the environment tokens, and the managed ones seen since the last change. */
  private readonly seen = new DigestTable();
  private readonly environment: readonly EnvironmentToken[];
  /** Names a managed token may not take. */
  readonly environmentNames: ReadonlySet<string>;
  /** By keyed digest: every managed token. */
  private readonly managed = new DigestTable();
  private readonly byId = new Map<number, KnownToken>();
  private readonly digests = new Map<number, string>();
  /** The SHA-256 under which `seen` holds a managed token, by id: a revocation takes it out. */
  private readonly seenPrints = new Map<number, string>();
  private unsaved: KnownToken[] = [];
  /** Moves at every change of the tokens: connection memos older than it are not used. */
  private generation = 0;
  /** Told after a managed token was removed (open change streams look again). */
  private readonly changeListeners = new Set<() => void>();

  constructor(
    environment: readonly EnvironmentToken[],
    private readonly keyedDigest: (token: string) => string,
  ) {
    this.environment = environment;
    // Managed tokens join once presented (identify).
    for (const token of environment) this.seen.add(token.fingerprint, known(token.caller, undefined, null, null));
    this.environmentNames = new Set(environment.map((token) => token.caller.name));
  }

  /** Every token, environment and managed: none means anonymous access (on loopback only). */
  get size(): number {
    return this.environment.length + this.byId.size;
  }

  /** The token a request presents, if this process knows it (expired or not). */
  identify(token: string): KnownToken | undefined {
    const print = fingerprint(token);
    const found = this.seen.find(print);
    if (found !== undefined || this.byId.size === 0) return found;
    const managed = this.managed.find(this.keyedDigest(token));
    if (managed !== undefined && this.seen.size < SEEN_MAX && !this.seenPrints.has(managed.id!)) {
      this.seen.add(print, managed);
      this.seenPrints.set(managed.id!, print);
    }
    return managed;
  }

  /** The token of an Authorization header (undefined: malformed or unknown), remembered on
   * the connection it came by until the connection sends another header or a token changes. */
  identifyHeader(header: string, connection: Connection | null | undefined): KnownToken | undefined {
    const memo = connection?.[MEMO];
    if (memo !== undefined && memo.generation === this.generation && sameText(memo.header, header)) return memo.token;
    const presented = bearerToken(header);
    const token = presented === undefined ? undefined : this.identify(presented);
    if (connection !== null && connection !== undefined) connection[MEMO] = { header, token, generation: this.generation };
    return token;
  }

  /** Whether `token`, accepted earlier, would still be accepted at `now`: not revoked (here,
   * or by another instance, once the token list is read again) and not expired. */
  stillValid(token: KnownToken, now: number): boolean {
    if (token.id === undefined) return now < token.expiresAt;
    const current = this.byId.get(token.id);
    return current !== undefined && now < current.expiresAt;
  }

  /** Calls `listener` after every removal of a managed token; returns its removal. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  /** Notes that a request was accepted with the token. */
  used(token: KnownToken, now: number): void {
    token.lastUsed = now;
    if (!token.unsaved && token.id !== undefined) {
      token.unsaved = true;
      this.unsaved.push(token);
    }
  }

  /** The keyed digest of every managed token, by id: what a sync compares with the database. */
  managedDigests(): ReadonlyMap<number, string> {
    return this.digests;
  }

  addManaged(token: ManagedToken): KnownToken {
    this.removeManaged(token.id);
    // A header remembered as unknown may be this token.
    this.generation += 1;
    const entry = known({ name: token.name, scope: token.scope }, token.id, token.expiresAt, token.allowedIps);
    this.managed.add(token.digest, entry);
    this.byId.set(token.id, entry);
    this.digests.set(token.id, token.digest);
    return entry;
  }

  /** A revocation: the token is refused from now on. Only its own entries are taken out, so a
   * revocation costs the same with ten tokens or a hundred thousand. */
  removeManaged(id: number): void {
    const token = this.byId.get(id);
    if (token === undefined) return;
    // A connection memo may hold this token.
    this.generation += 1;
    this.byId.delete(id);
    this.managed.remove(this.digests.get(id)!, token);
    this.digests.delete(id);
    const print = this.seenPrints.get(id);
    if (print !== undefined) {
      this.seen.remove(print, token);
      this.seenPrints.delete(id);
    }
    if (token.unsaved) this.unsaved = this.unsaved.filter((unsaved) => unsaved !== token);
    this.changed();
  }

  /** When this process last accepted the managed token `id` (ms), 0 if never. */
  lastUsed(id: number): number {
    return this.byId.get(id)?.lastUsed ?? 0;
  }

  /** The uses not yet handed to the database; they count as handed over from now on. */
  takeUsage(): { id: number; at: number }[] {
    const taken = this.unsaved.map((token) => ({ id: token.id!, at: token.lastUsed }));
    for (const token of this.unsaved) token.unsaved = false;
    this.unsaved = [];
    return taken;
  }
}
