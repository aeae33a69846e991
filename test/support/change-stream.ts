// A Server-Sent Events client for the change feed (GET /{lang}/api/changes/stream), over a
// connection of its own (node:http, no agent): it keeps every byte received, parses the
// events and comment lines as they arrive (with the time each arrived), and says how the
// response ended: cleanly (the chunked body's last chunk came) or cut.
import assert from 'node:assert/strict';
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { TestServer } from './server.js';

/** A change record as the API shows it (contract section 13). */
export interface ChangeRecord {
  id: number;
  at: string;
  action: 'create' | 'update' | 'delete' | 'restore';
  resource: string;
  entry_id: number;
  actor: string;
  request_id: string;
  before: Record<string, any> | null;
  after: Record<string, any> | null;
  secrets_changed: string[];
}

export interface SseEvent {
  /** The `id:` field, or undefined when the event had none. */
  id: string | undefined;
  /** The `event:` field ('message' when absent, as EventSource has it). */
  event: string;
  data: string;
  /** The exact lines of the event, each with its line end, and the blank line that ended it. */
  raw: string;
  /** performance.now() when the event's last line arrived. */
  receivedAt: number;
}

export interface SseComment {
  text: string;
  receivedAt: number;
}

export type StreamEnd = 'end' | 'cut';

export interface ChangeStream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** performance.now() when the response's headers arrived. */
  readonly openedAt: number;
  /** Every byte of the body received so far, as text. */
  readonly text: string;
  readonly events: SseEvent[];
  readonly comments: SseComment[];
  /** The data of every `change` event, parsed. */
  readonly changes: ChangeRecord[];
  /** Resolves once `check` holds (looked at after every chunk); fails after `timeoutMs`, saying what. */
  waitFor(what: string, check: () => boolean, timeoutMs?: number): Promise<void>;
  /** waitFor: at least `count` change events. */
  waitForChanges(count: number, timeoutMs?: number): Promise<void>;
  /** How the response ended (pending while it is open). */
  readonly ended: Promise<StreamEnd>;
  /** Whether the response has ended. */
  readonly isEnded: boolean;
  /** Drops the connection (as a client that goes away does). */
  close(): void;
}

export interface OpenOptions {
  headers?: Record<string, string>;
  /** Fails if the response's headers have not come by then. */
  timeoutMs?: number;
}

/** Opens `path` on the server at `baseUrl` and resolves once the response's headers came. */
export function openStream(baseUrl: string, path: string, options: OpenOptions = {}): Promise<ChangeStream> {
  const url = new URL(path, baseUrl);
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolveOpen, failOpen) => {
    let request: ClientRequest | undefined;
    const timer = setTimeout(() => {
      request?.destroy();
      failOpen(new Error(`GET ${path}: no response headers within ${timeoutMs} ms`));
    }, timeoutMs);
    request = httpRequest(url, { method: 'GET', agent: false, headers: { accept: 'text/event-stream', ...options.headers } }, (response) => {
      clearTimeout(timer);
      resolveOpen(streamOf(request!, response));
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      failOpen(error);
    });
    request.end();
  });
}

function streamOf(request: ClientRequest, response: IncomingMessage): ChangeStream {
  const openedAt = performance.now();
  const events: SseEvent[] = [];
  const comments: SseComment[] = [];
  const changes: ChangeRecord[] = [];
  const waiters = new Set<() => void>();
  let text = '';
  let pending = '';
  let block: string[] = [];
  let endedAs: StreamEnd | undefined;
  let resolveEnded: (how: StreamEnd) => void = () => undefined;
  const ended = new Promise<StreamEnd>((done) => (resolveEnded = done));

  const notify = (): void => {
    for (const waiter of [...waiters]) waiter();
  };

  const dispatch = (now: number): void => {
    const lines = block;
    block = [];
    let id: string | undefined;
    let event = 'message';
    const data: string[] = [];
    for (const line of lines) {
      const content = line.replace(/\r?\n$/, '');
      const colon = content.indexOf(':');
      const field = colon === -1 ? content : content.slice(0, colon);
      let value = colon === -1 ? '' : content.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    const parsed: SseEvent = { id, event, data: data.join('\n'), raw: `${lines.join('')}\n`, receivedAt: now };
    events.push(parsed);
    if (event === 'change') changes.push(JSON.parse(parsed.data) as ChangeRecord);
  };

  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    const now = performance.now();
    text += chunk;
    pending += chunk;
    // Lines end with \n (the service's line end; a \r before it is kept in `raw`).
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end + 1);
      pending = pending.slice(end + 1);
      const content = line.replace(/\r?\n$/, '');
      if (content === '') {
        if (block.length > 0) dispatch(now);
      } else if (content.startsWith(':')) {
        comments.push({ text: content.slice(1).trim(), receivedAt: now });
      } else {
        block.push(line);
      }
    }
    notify();
  });
  const finish = (how: StreamEnd): void => {
    if (endedAs !== undefined) return;
    endedAs = how;
    resolveEnded(how);
    notify();
  };
  response.on('end', () => finish('end'));
  response.on('error', () => finish('cut'));
  response.on('close', () => finish(response.complete ? 'end' : 'cut'));
  request.on('error', () => finish('cut'));

  const waitFor = (what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> =>
    new Promise((done, fail) => {
      if (check()) {
        done();
        return;
      }
      const waiter = (): void => {
        if (check()) {
          clearTimeout(timer);
          waiters.delete(waiter);
          done();
        } else if (endedAs !== undefined) {
          clearTimeout(timer);
          waiters.delete(waiter);
          fail(new Error(`${what}: the stream ended (${endedAs}) first; received:\n${text.slice(-2000)}`));
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        fail(new Error(`${what} did not happen within ${timeoutMs} ms; ${changes.length} changes received, last id ${changes.at(-1)?.id}`));
      }, timeoutMs);
      waiters.add(waiter);
    });

  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    openedAt,
    get text() {
      return text;
    },
    events,
    comments,
    changes,
    waitFor,
    waitForChanges: (count, timeoutMs) => waitFor(`${count} change events`, () => changes.length >= count, timeoutMs),
    ended,
    get isEnded() {
      return endedAs !== undefined;
    },
    close() {
      request.destroy();
      response.destroy();
    },
  };
}

/** The p-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

// ---- Reading the log through the list (GET /{lang}/api/changes), page by page. ----

/** The minimal server the readers below need (a TestServer). */
interface Requester {
  request<T = any>(method: string, path: string, options?: { headers?: Record<string, string> }): Promise<{ status: number; text: string; body: T }>;
}

/** Every record after `since` that passes `filters` (query text such as `resource=tags`),
 * walking the list by `next` with pages of `limit`. */
export async function changesAfter(server: Requester, since = 0, filters = '', headers: Record<string, string> = {}, limit = 1000): Promise<ChangeRecord[]> {
  const records: ChangeRecord[] = [];
  for (let cursor = since; ; ) {
    const page = await server.request('GET', `/en/api/changes?since=${cursor}&limit=${limit}${filters === '' ? '' : `&${filters}`}`, { headers });
    if (page.status !== 200) throw new Error(`GET /en/api/changes answered ${page.status}: ${page.text}`);
    const { items, next } = page.body as { items: ChangeRecord[]; next: number };
    records.push(...items);
    if (items.length === 0) {
      if (next !== cursor) throw new Error(`an empty page's next is ${next}, not its since ${cursor}`);
      return records;
    }
    cursor = next;
  }
}

/** The id of the last record (0 when there is none), looking after `from` (a known id). */
export async function lastChangeId(server: Requester, from = 0, headers: Record<string, string> = {}): Promise<number> {
  const all = await changesAfter(server, from, '', headers);
  return all.at(-1)?.id ?? from;
}

// ---- What the change feed tests share. ----

export const STREAM = '/en/api/changes/stream';

let counter = 0;
/** A name no other test of this process uses. */
export const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

/** POSTs `body` to /en/api/config/{resource}; its id. */
export async function created(server: TestServer, resource: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<number> {
  const reply = await server.request('POST', `/en/api/config/${resource}`, { body, headers });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id as number;
}

/** Closes every stream, whatever happens to the test. */
export async function withStreams<T>(streams: ChangeStream[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    for (const stream of streams) stream.close();
  }
}
