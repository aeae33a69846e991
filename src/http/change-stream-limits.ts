// How many change streams may be open at once on this process. A stream holds a connection
// for as long as its client wants, so without a limit one token (or one address) could open
// streams until MAX_CONNECTIONS is reached and every other client is turned away. Three
// counts are kept: per token (CHANGE_STREAMS_PER_TOKEN), per client address
// (CHANGE_STREAMS_PER_ADDRESS), both answered 429 TOO_MANY_STREAMS, and for the whole process,
// at most half of MAX_CONNECTIONS, so that the other half always serves ordinary requests
// (answered 503, as a full service is).
import { ApiError } from '../errors/api-error.js';
import { message } from '../messages/messages.js';

/** What a refused client is told to wait: streams are long-lived, so not a second. */
export const STREAM_RETRY_AFTER_SECONDS = 5;

export interface StreamLimitSettings {
  /** 0: no limit per token. */
  readonly perToken: number;
  /** 0: no limit per address. */
  readonly perAddress: number;
  readonly maxConnections: number;
}

/** The streams this process may hold at once: half its connections (at least one). */
export function streamsAllowed(maxConnections: number): number {
  return Math.max(1, Math.floor(maxConnections / 2));
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** Keys are dropped at zero: nothing is kept for a token or an address with no stream. */
function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left <= 0) counts.delete(key);
  else counts.set(key, left);
}

export class ChangeStreamLimits {
  private readonly byToken = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();
  private total = 0;
  readonly maxStreams: number;

  constructor(private readonly settings: StreamLimitSettings) {
    this.maxStreams = streamsAllowed(settings.maxConnections);
  }

  get open(): number {
    return this.total;
  }

  /** Takes a place for a stream of `token` (undefined: anonymous) from `address`, or throws
   * the refusal. The returned function gives the place back; calling it again does nothing. */
  admit(token: string | undefined, address: string): () => void {
    const seconds = STREAM_RETRY_AFTER_SECONDS;
    const retry = { 'retry-after': String(seconds) };
    const { perToken, perAddress } = this.settings;
    if (token !== undefined && perToken > 0 && (this.byToken.get(token) ?? 0) >= perToken) {
      throw new ApiError('TOO_MANY_STREAMS', message('streams.perToken', { limit: perToken, seconds }), [], retry);
    }
    if (perAddress > 0 && (this.byAddress.get(address) ?? 0) >= perAddress) {
      throw new ApiError('TOO_MANY_STREAMS', message('streams.perAddress', { limit: perAddress, seconds }), [], retry);
    }
    if (this.total >= this.maxStreams) throw new ApiError('UNAVAILABLE', message('streams.full', { seconds }), [], retry);
    if (token !== undefined) increment(this.byToken, token);
    increment(this.byAddress, address);
    this.total += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (token !== undefined) decrement(this.byToken, token);
      decrement(this.byAddress, address);
      this.total -= 1;
    };
  }
}
