// Live updates: one change stream (GET /{lang}/api/changes/stream, Server-Sent Events) per tab,
// opened when a list or entry page first listens, read with fetch so that it carries the
// bearer token (EventSource cannot send headers), parsed by eventsource-parser. It starts after
// the newest change recorded, found by halving (a few requests of one record each), so that the
// stream never replays the retained log; it resumes after the last id it saw.
import { createParser } from 'eventsource-parser';
import { apiPath, authorization, request, sentHere, type ChangeRecord } from './api.js';

/** `replayed`: a record the page's first reads may already show (see REPLAY), or this tab's own write. */
type Listener = (record: ChangeRecord, replayed: boolean) => void;
type StateListener = (live: boolean) => void;

/** Whether a change with an id above `since` exists. */
async function hasChangeAfter(since: number): Promise<boolean> {
  const answer = await request<{ items: unknown[] }>('GET', `/changes?since=${since}&limit=1`);
  return answer.body.items.length > 0;
}

/** The id of the newest change record (0 when there is none), in about 2·log2(id) requests. */
export async function newestChangeId(): Promise<number> {
  let low = 0;
  let high = 1;
  while (await hasChangeAfter(high)) {
    low = high;
    high *= 4;
  }
  // A change above `low` exists (or low is 0), none above `high`: the newest id is in (low, high].
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await hasChangeAfter(middle)) low = middle;
    else high = middle;
  }
  return low === 0 && !(await hasChangeAfter(0)) ? 0 : high;
}

// The newest id is found while the page reads its list, so a change committed in between could
// fall before it: the stream starts this many records earlier. Replayed in order, they leave
// every row as it is now; they are applied without the "changed elsewhere" mark.
const REPLAY = 100;

export class LiveFeed {
  private readonly listeners = new Set<Listener>();
  private readonly stateListeners = new Set<StateListener>();
  private started = false;
  private stopped = false;
  private readonly abort = new AbortController();
  private lastId: number | undefined;
  /** Records up to this id are replayed (see REPLAY). */
  private replayUpTo = 0;
  live = false;

  constructor(private readonly onUnauthorized: (detail: string) => void) {}

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    if (!this.started) {
      this.started = true;
      void this.run();
    }
    return () => this.listeners.delete(listener);
  }

  /** Closes the stream for good (sign-out). */
  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  onState(listener: StateListener): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  private setLive(live: boolean): void {
    this.live = live;
    for (const listener of this.stateListeners) listener(live);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (this.lastId === undefined) {
          this.replayUpTo = await newestChangeId();
          this.lastId = Math.max(0, this.replayUpTo - REPLAY);
        }
        await this.follow(this.lastId);
      } catch (error) {
        if ((error as { status?: number }).status === 401) return;
      }
      this.setLive(false);
      // A stream ended by the service (a restart, a slow reader cut off) is opened again.
      await new Promise((resume) => setTimeout(resume, 1000));
    }
  }

  private async follow(since: number): Promise<void> {
    const response = await fetch(apiPath(`/changes/stream?since=${since}`), { headers: { accept: 'text/event-stream', ...authorization() }, cache: 'no-store', signal: this.abort.signal });
    if (response.status === 401) {
      const body = (await response.json().catch(() => ({}))) as { detail?: string };
      this.onUnauthorized(body.detail ?? '');
      throw Object.assign(new Error('unauthorized'), { status: 401 });
    }
    if (!response.ok || response.body === null) throw new Error(`change stream: ${response.status}`);
    this.setLive(true);
    const parser = createParser({
      onEvent: (event) => {
        if (event.event !== 'change') return;
        const record = JSON.parse(event.data) as ChangeRecord;
        this.lastId = record.id;
        // This tab's own writes are applied like replayed records: not "changed elsewhere".
        const quiet = record.id <= this.replayUpTo || sentHere(record.request_id);
        for (const listener of this.listeners) listener(record, quiet);
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      parser.feed(value);
    }
  }
}
