// The change streams (contract section 13): the change log as Server-Sent Events, each on a
// connection the pipeline hands over (src/pipeline/execute-change-stream.ts: the route's
// request was parsed and planned like any other). A stream first sends what was committed
// after `since` (or `Last-Event-ID`), read from the log page by page, then what the shared
// change feed reads as it is committed. It subscribes to the feed before reading that
// backlog, and skips by id what it already sent: nothing falls between the two, nothing is
// sent twice (docs/api.md, Change log).
//
// A stream lasts no longer than its token: it is ended when the token is revoked (here, or
// on another instance, once the token list is read again) or expires. How many streams may be
// open is limited (change-stream-limits.ts), and so is what they may hold unsent together
// (change-stream-budget.ts).
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ANONYMOUS } from '../auth/caller.js';
import type { KnownToken } from '../auth/token-index.js';
import { ThrottledReport } from '../metrics/throttled-report.js';
import type { ChangeStreamPlan, ChangeStreams } from '../pipeline/execute-change-stream.js';
import { eventOf, type FeedRecord, type FeedSubscriber } from '../store/change-feed.js';
import { matches, type ChangeFilter, type ChangeLog } from '../store/change-log.js';
import { ChangeStreamBudget, type BufferedStream } from './change-stream-budget.js';
import { ChangeStreamLimits } from './change-stream-limits.js';

declare module '../pipeline/respond.js' {
  /** What the route factory hands over: the request and its reply. */
  interface StreamConnection {
    readonly request: FastifyRequest;
    readonly reply: FastifyReply;
  }
}

// Records read per statement while catching up.
const PAGE = 500;
// A client this far behind is cut off rather than buffered for without end: it resumes from
// the last event it received, and catches up from the log. All streams together are bounded
// too (CHANGE_STREAM_BUFFER_BYTES, src/http/change-stream-budget.ts).
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
// How often open streams look whether their token expired (a revocation is seen at once).
const TOKEN_CHECK_MS = 1000;
// An ended stream whose client does not take the end is dropped after this.
const END_GRACE_MS = 1000;
// Streams ended or cut are logged together, at most this often.
const REPORT_EVERY_MS = 1000;

class StreamClient implements FeedSubscriber, BufferedStream {
  /** Past the backlog: the feed's batches are sent as they come. */
  private live = false;
  private readonly waiting: (readonly FeedRecord[])[] = [];
  /** The bytes of the events in `waiting`. */
  private waitingBytes = 0;
  /** Ended by the service (token gone, limit, close): nothing more is written. */
  private ending = false;
  behindSince: number | undefined;

  constructor(
    readonly raw: ServerResponse,
    /** The id of the last record sent (or the `since` asked for). */
    private lastId: number,
    private readonly filter: ChangeFilter,
    /** The token it was opened with; undefined for anonymous access. */
    readonly token: KnownToken | undefined,
    private readonly budget: ChangeStreamBudget,
    private readonly maxBytes: number,
  ) {
    // Emitted once a queue that made a write wait has emptied.
    raw.on('drain', () => {
      this.behindSince = undefined;
    });
  }

  deliver(records: readonly FeedRecord[]): void {
    if (this.ending) return;
    if (this.live) {
      this.send(records);
      return;
    }
    this.waiting.push(records);
    this.behindSince ??= Date.now();
    for (const record of records) this.waitingBytes += record.event.length;
    this.budget.grew(this);
  }

  buffered(): number {
    return this.raw.writableLength + this.waitingBytes;
  }

  cut(): void {
    this.ending = true;
    this.dropWaiting();
    this.raw.destroy();
  }

  /** Ends the answer cleanly; a client that does not take the end is dropped soon after.
   * False if it was ending already. */
  end(): boolean {
    if (this.ending || this.raw.destroyed) return false;
    this.ending = true;
    this.dropWaiting();
    this.raw.end();
    const drop = setTimeout(() => this.raw.destroy(), END_GRACE_MS);
    drop.unref();
    this.raw.once('close', () => clearTimeout(drop));
    return true;
  }

  /** A comment that keeps proxies from closing a quiet stream. */
  keepAlive(): void {
    if (this.ending || this.raw.destroyed) return;
    this.raw.write(': keep-alive\n\n');
    this.budget.grew(this);
  }

  /** Sends the records after `since` already in the log, then goes live. */
  async catchUp(log: ChangeLog, first: readonly FeedRecord[]): Promise<void> {
    let page = first;
    for (;;) {
      const full = page.length === PAGE;
      const flowing = this.send(page);
      // Its text is in the socket's queue now: the records are not kept while it drains.
      page = [];
      if (!flowing && !(await drained(this.raw))) return;
      if (this.ending) return;
      if (!full) break;
      page = (await log.after(this.lastId, this.filter, PAGE)).map(eventOf);
    }
    this.live = true;
    const waiting = this.waiting.splice(0);
    this.waitingBytes = 0;
    for (const batch of waiting) this.send(batch);
  }

  private dropWaiting(): void {
    this.waiting.length = 0;
    this.waitingBytes = 0;
  }

  /** Writes the records it has not sent yet; false when the socket asks to wait. */
  private send(records: readonly FeedRecord[]): boolean {
    let text = '';
    for (const record of records) {
      if (record.id <= this.lastId || !matches(record, this.filter)) continue;
      text += record.event;
      this.lastId = record.id;
    }
    if (text === '' || this.ending || this.raw.destroyed) return true;
    const flowing = this.raw.write(text);
    if (!flowing) this.behindSince ??= Date.now();
    if (!flowing && this.buffered() > this.maxBytes) {
      this.cut();
      return false;
    }
    this.budget.grew(this);
    return flowing;
  }
}

/** Resolves true once the socket takes more, false if it closed meanwhile. */
async function drained(raw: ServerResponse): Promise<boolean> {
  if (raw.destroyed) return false;
  const [event] = await Promise.race([once(raw, 'drain').then(() => ['drain']), once(raw, 'close').then(() => ['close'])]);
  return event === 'drain';
}

export interface ChangeStreamSettings {
  readonly keepAliveMs: number;
  readonly perToken: number;
  readonly perAddress: number;
  readonly maxConnections: number;
  readonly bufferBytes: number;
}

/** The service of this app's change streams; on close, the open streams are ended cleanly. */
export function changeStreams(app: FastifyInstance, settings: ChangeStreamSettings): ChangeStreams {
  const { store, changeFeed: feed, tokenIndex } = app;
  const open = new Set<StreamClient>();
  const limits = new ChangeStreamLimits(settings);

  // Counted here and logged together: a burst of cuts is one line, not one per stream.
  let cutStreams = 0;
  let tokenEnded = 0;
  const report = new ThrottledReport(REPORT_EVERY_MS, () => {
    if (cutStreams > 0) {
      app.log.warn(
        { cutStreams, bufferBytes: settings.bufferBytes },
        'change streams cut: their clients read too slowly and the streams held too much unsent (CHANGE_STREAM_BUFFER_BYTES); they resume from the log',
      );
    }
    if (tokenEnded > 0) app.log.info({ endedStreams: tokenEnded }, 'change streams ended: their token was revoked or expired');
    cutStreams = 0;
    tokenEnded = 0;
  });
  const budget = new ChangeStreamBudget(settings.bufferBytes, (cut) => {
    cutStreams += cut;
    report.later();
  });
  const maxBytes = Math.min(MAX_BUFFERED_BYTES, settings.bufferBytes);

  /** Ends the streams whose token would no longer be accepted: revoked, or expired. */
  const endInvalid = (): void => {
    const now = Date.now();
    for (const client of open) {
      if (client.token === undefined || tokenIndex.stillValid(client.token, now) || !client.end()) continue;
      tokenEnded += 1;
      report.later();
    }
  };

  async function openStream({ since, filter }: ChangeStreamPlan, { request, reply }: { request: FastifyRequest; reply: FastifyReply }): Promise<void> {
    // The token the authentication hook accepted (remembered on the connection, no hashing).
    const header = request.headers.authorization;
    const token = header === undefined || request.caller === ANONYMOUS ? undefined : tokenIndex.identifyHeader(header, request.raw.socket);
    const release = limits.admit(token === undefined ? undefined : token.id === undefined ? `environment:${token.caller.name}` : `managed:${token.id}`, request.ip);
    const client = new StreamClient(reply.raw, since, filter, token, budget, maxBytes);
    let first: FeedRecord[];
    try {
      // Subscribed first, then the backlog is read: see the top of this file.
      await feed.subscribe(client);
      first = (await store.changeLog.after(since, filter, PAGE)).map(eventOf);
    } catch (error) {
      feed.unsubscribe(client);
      release();
      throw error;
    }
    const raw = reply.raw;
    const forget = (): void => {
      open.delete(client);
      budget.delete(client);
      feed.unsubscribe(client);
      release();
    };
    // The client may have gone while the backlog was read: then 'close' has come already.
    if (request.raw.socket.destroyed) {
      forget();
      reply.hijack();
      return;
    }
    // From here the answer is this stream, written by hand; a failure ends it, and the
    // client resumes from the last id it received.
    reply.hijack();
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // The stream is the connection's last answer: when it ends, so does the connection.
      connection: 'close',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    });
    raw.write(': change stream open\n\n');
    // The socket's idle time-out is for requests; a stream may be quiet for long.
    request.raw.socket.setTimeout(0);
    open.add(client);
    budget.add(client);
    raw.on('close', forget);
    // The token may have been revoked while the backlog was read.
    if (token !== undefined && !tokenIndex.stillValid(token, Date.now())) client.end();
    client.catchUp(store.changeLog, first).catch((error: unknown) => {
      request.log.warn({ err: error }, 'a change stream could not read the change log; it is closed and its client resumes');
      raw.destroy();
    });
  }

  const keepAlive = setInterval(() => {
    for (const client of open) client.keepAlive();
  }, settings.keepAliveMs);
  keepAlive.unref();
  // A revocation (here, or read from the database) is acted on at once; expiry on this beat.
  const stopWatching = tokenIndex.onChange(endInvalid);
  const tokenCheck = setInterval(endInvalid, TOKEN_CHECK_MS);
  tokenCheck.unref();
  // Streams do not end by themselves: on close they are ended cleanly, first.
  app.addHook('preClose', async () => {
    clearInterval(keepAlive);
    clearInterval(tokenCheck);
    report.cancel();
    stopWatching();
    for (const client of open) client.raw.end();
  });

  return { open: openStream };
}
