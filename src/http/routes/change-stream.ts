// `GET /{lang}/api/changes/stream` (contract section 13): the change log as Server-Sent
// Events. A stream first sends what was committed after `since` (or `Last-Event-ID`), read
// from the log page by page, then what the shared change feed reads as it is committed. It
// subscribes to the feed before reading that backlog, and skips by id what it already sent:
// nothing falls between the two, nothing is sent twice (docs/api.md, Change log).
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { asApiError } from '../../pipeline/handle-request.js';
import { parseStreamQuery } from '../../pipeline/parse-change-query.js';
import type { RequestTarget } from '../../pipeline/request-target.js';
import type { Outcome } from '../../pipeline/respond.js';
import { eventOf, type FeedRecord, type FeedSubscriber } from '../../store/change-feed.js';
import { matches, type ChangeFilter, type ChangeLog } from '../../store/change-log.js';
import { endpointRoute } from './endpoint-route.js';

// Records read per statement while catching up.
const PAGE = 500;
// A client this far behind is cut off rather than buffered for without end: it resumes from
// the last event it received, and catches up from the log.
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

class StreamClient implements FeedSubscriber {
  /** Past the backlog: the feed's batches are sent as they come. */
  private live = false;
  private readonly waiting: (readonly FeedRecord[])[] = [];

  constructor(
    readonly raw: ServerResponse,
    /** The id of the last record sent (or the `since` asked for). */
    private lastId: number,
    private readonly filter: ChangeFilter,
  ) {}

  deliver(records: readonly FeedRecord[]): void {
    if (this.live) this.send(records);
    else this.waiting.push(records);
  }

  /** Sends the records after `since` already in the log, then goes live. */
  async catchUp(log: ChangeLog, first: readonly FeedRecord[]): Promise<void> {
    let page = first;
    for (;;) {
      if (!this.send(page) && !(await drained(this.raw))) return;
      if (page.length < PAGE) break;
      page = (await log.after(this.lastId, this.filter, PAGE)).map(eventOf);
    }
    this.live = true;
    for (const batch of this.waiting.splice(0)) this.send(batch);
  }

  /** Writes the records it has not sent yet; false when the socket asks to wait. */
  private send(records: readonly FeedRecord[]): boolean {
    let text = '';
    for (const record of records) {
      if (record.id <= this.lastId || !matches(record, this.filter)) continue;
      text += record.event;
      this.lastId = record.id;
    }
    if (text === '' || this.raw.destroyed) return true;
    const flowing = this.raw.write(text);
    if (!flowing && this.raw.writableLength > MAX_BUFFERED_BYTES) this.raw.destroy();
    return flowing;
  }
}

/** Resolves true once the socket takes more, false if it closed meanwhile. */
async function drained(raw: ServerResponse): Promise<boolean> {
  if (raw.destroyed) return false;
  const [event] = await Promise.race([once(raw, 'drain').then(() => ['drain']), once(raw, 'close').then(() => ['close'])]);
  return event === 'drain';
}

export default async function changeStreamRoute(app: FastifyInstance, keepAliveMs: number): Promise<void> {
  const { store, registry, changeFeed: feed } = app;
  const open = new Set<StreamClient>();

  async function stream(request: FastifyRequest, reply: FastifyReply): Promise<Outcome> {
    const lastEventId = request.headers['last-event-id'];
    const { since, filter } = parseStreamQuery(registry, request.query as Record<string, unknown>, typeof lastEventId === 'string' ? lastEventId : undefined);
    const client = new StreamClient(reply.raw, since, filter);
    let first: FeedRecord[];
    try {
      // Subscribed first, then the backlog is read: see the top of this file.
      await feed.subscribe(client);
      first = (await store.changeLog.after(since, filter, PAGE)).map(eventOf);
    } catch (error) {
      feed.unsubscribe(client);
      throw error;
    }
    // From here the answer is this stream, written by hand; a failure ends it, and the
    // client resumes from the last id it received.
    reply.hijack();
    const raw = reply.raw;
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
    raw.on('close', () => {
      open.delete(client);
      feed.unsubscribe(client);
    });
    client.catchUp(store.changeLog, first).catch((error: unknown) => {
      request.log.warn({ err: error }, 'a change stream could not read the change log; it is closed and its client resumes');
      raw.destroy();
    });
    return { status: 200, streaming: true };
  }

  const keepAlive = setInterval(() => {
    for (const client of open) if (!client.raw.destroyed) client.raw.write(': keep-alive\n\n');
  }, keepAliveMs);
  keepAlive.unref();
  // Streams do not end by themselves: on close they are ended cleanly, first.
  app.addHook('preClose', async () => {
    clearInterval(keepAlive);
    for (const client of open) client.raw.end();
  });

  const handle = async (_target: RequestTarget, request: FastifyRequest, reply: FastifyReply): Promise<Outcome> => {
    try {
      return await stream(request, reply);
    } catch (error) {
      throw asApiError(store, error);
    }
  };
  endpointRoute(app, registry, '/:lang/api/changes/stream', 'changeStream', handle);
}
