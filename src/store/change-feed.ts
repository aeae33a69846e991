// The change feed: one reader of the change log per process, shared by every open stream.
// It reads the records committed after the last one it read, once for all streams, and hands
// each batch to every subscriber with the text of its events made once. It reads when this
// process commits a change (at once), when the database signals a commit of another instance
// (PostgreSQL NOTIFY), and on a short poll otherwise (MariaDB, or a lost signal); the poll
// costs nothing where the database says without a query that nothing was committed (SQLite).
//
// Why a reader never skips a change: records are read in id order, and the change log's ids
// commit in order (given under one row lock held until they commit: change-sequencer.ts, or
// the write itself on SQLite), so every record after the cursor that will ever exist is either
// committed already (and read) or gets a larger id than any read.
import type { ChangeLog, ChangeRecord } from './change-log.js';

/** A record with the text of its Server-Sent Event. */
export interface FeedRecord extends ChangeRecord {
  readonly event: string;
}

export interface FeedSubscriber {
  /** Records committed after those of the previous call, in id order. */
  deliver(records: readonly FeedRecord[]): void;
}

export interface FeedOptions {
  readonly pollMs: number;
  /** Whether anything may have been committed since the last call; absent: always. */
  readonly changeMarker?: () => unknown;
  /** Subscribes to the database's commit signal; resolves to its unsubscription. */
  readonly listen?: (onSignal: () => void) => Promise<() => Promise<void>>;
  readonly onError: (error: unknown) => void;
}

// Records read in one statement; a larger backlog is read in several.
const BATCH = 1000;

export function eventOf(record: ChangeRecord): FeedRecord {
  return { ...record, event: `id: ${record.id}\nevent: change\ndata: ${record.json}\n\n` };
}

export class ChangeFeed {
  private readonly subscribers = new Set<FeedSubscriber>();
  /** The id of the last record handed out; undefined while nobody listens. */
  private cursor: number | undefined;
  private starting: Promise<void> | undefined;
  private reading = false;
  private readAgain = false;
  private poll: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private marker: unknown;
  /** Moves each time the feed stops, so that a start overtaken by a stop undoes itself. */
  private generation = 0;

  constructor(
    private readonly log: ChangeLog,
    private readonly options: FeedOptions,
  ) {}

  /** From now on `subscriber` receives every record committed after the feed's cursor; the
   * cursor is set before this resolves, so a reader that then reads its backlog from the log
   * misses nothing between the two (it skips what it already has by id). */
  async subscribe(subscriber: FeedSubscriber): Promise<void> {
    this.subscribers.add(subscriber);
    this.starting ??= this.start();
    await this.starting;
  }

  /** The last subscriber leaving stops the feed: nobody reads for nobody, and the next one
   * starts from what is committed then, not from a backlog nobody wants. */
  unsubscribe(subscriber: FeedSubscriber): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size === 0) this.stop();
  }

  get size(): number {
    return this.subscribers.size;
  }

  /** Something may have been committed: read it (now, or after the read under way). */
  wake(): void {
    if (this.cursor === undefined || this.subscribers.size === 0) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    void this.readNew().finally(() => {
      this.reading = false;
      if (this.readAgain) {
        this.readAgain = false;
        this.wake();
      }
    });
  }

  close(): void {
    this.subscribers.clear();
    this.stop();
  }

  private stop(): void {
    this.generation += 1;
    clearInterval(this.poll);
    this.poll = undefined;
    this.cursor = undefined;
    this.starting = undefined;
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    unlisten?.().catch(this.options.onError);
  }

  private async start(): Promise<void> {
    const generation = this.generation;
    const marker = this.options.changeMarker?.();
    let cursor: number;
    try {
      cursor = await this.log.lastId();
    } catch (error) {
      if (generation === this.generation) this.starting = undefined;
      throw error;
    }
    if (generation !== this.generation) return;
    this.marker = marker;
    this.cursor = cursor;
    this.poll = setInterval(() => this.tick(), this.options.pollMs);
    this.poll.unref();
    this.options
      .listen?.(() => this.wake())
      .then((unlisten) => {
        if (generation === this.generation) this.unlisten = unlisten;
        else unlisten().catch(this.options.onError);
      })
      .catch(this.options.onError);
  }

  private tick(): void {
    const marker = this.options.changeMarker;
    if (marker !== undefined) {
      const now = marker();
      if (now === this.marker) return;
      this.marker = now;
    }
    this.wake();
  }

  private async readNew(): Promise<void> {
    try {
      for (;;) {
        const records = await this.log.after(this.cursor!, {}, BATCH);
        if (records.length === 0) return;
        this.cursor = records[records.length - 1]!.id;
        const events = records.map(eventOf);
        for (const subscriber of this.subscribers) subscriber.deliver(events);
        if (records.length < BATCH) return;
      }
    } catch (error) {
      // The next wake or poll reads again from the same cursor: nothing is lost.
      this.options.onError(error);
    }
  }
}
