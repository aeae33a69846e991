// The caches as one layer around the store: reads go through it (an entry as GET by id sends
// it, the version of a resource's lists, a list's answer text under its tag) and are read from
// the store only when memory does not hold them; writes go through it too, so that the cached
// copies of what a write changes are out of the way before its transaction starts and again
// after it ends (the entry cache's comment says why both). The execute step asks this layer and never
// looks at a cache itself.
//
// A hit is answered without a promise: the hot reads (GET by id, an unchanged list) then cost
// no extra turn of the microtask queue.
import { makeRoom } from '../db/bounded-map.js';
import { entryNotFound } from '../errors/api-error.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { Author } from '../store/change-log.js';
import type { Entry } from '../store/entry-rows.js';
import type { ResourceStore } from '../store/resource-store.js';
import type { StoreTransaction } from '../store/store-transaction.js';
import { readAnswer, type ReadAnswer, type ReadAnswerText } from '../store/entity-tag.js';
import { listBody } from './list-page.js';
import type { DeletePlan, ListPlan, RestorePlan, WritePlan } from './plan.js';

// The entry cache: entries as GET by id sends them (JSON text and entity tag), kept in memory so that what
// dashboards poll skips the database: reading a row costs more than the rest of the request.
//
// The cache must never answer with an entry older than one a client has already seen:
// - Writes of this process invalidate before their transaction starts and again after it
//   ends, and a read fills the cache only if no write began or ended while it read.
// - Commits of other processes (cluster workers, a second instance, an operator's sqlite3
//   shell) are seen through the database's change marker (SQLite's data_version), checked
//   once per event-loop turn, before the first cached answer of the turn: the cache is
//   dropped whenever the marker moved. A request is then answered as of the start of the
//   turn it is handled in. (The check is two file-lock calls: per request it would cost
//   more than the cache saves. One corner is left: a check made after the turn's
//   I/O, by a request Node resumes there, serves the next turn too.)
// An entry is kept at its second read, not its first: a read of an entry nobody read lately
// leaves only its key, in a small table of one key per cell (the "doorkeeper" of TinyLFU).
// At a million servers read at random, nearly every read is a miss that pushed out an entry
// more likely to be read again, for a hit in a hundred, and keeping each (its bytes, encoded
// for the cache, then collected in V8's old generation) cost a noticeable share of such a
// request's CPU (the measurements: docs/decisions.md, "GET by id is served from memory on
// SQLite"). An entry a dashboard polls is kept from its second read on.
//
// Where the database has no such marker (PostgreSQL, MariaDB: other instances write without
// this one knowing), there is no cache.
//
// The same holds the version of each table's lists (the change counter a list's ETag names),
// under the same rules: a poll of an unchanged list, or a list answer in the list cache, then
// reads nothing from the database either. Every write of this process forgets the version of
// the table it writes (creates included), before and after, like an entry.
export class EntryCache {
  /** By key(slot(table), id). */
  private readonly entries = new Map<number, ReadAnswer>();
  /** Each table's place in a key. */
  private readonly slots: ReadonlyMap<string, number>;
  /** The list version of each table, as listVersion read it. */
  private readonly versions = new Map<string, string>();
  /** Moves whenever a write of this process begins or ends, or the cache is dropped. */
  private generation = 0;
  private marker: unknown;
  private turnChecked = false;
  /** The key of the entry last read but not kept, in its cell (cellOf); -1 where none. */
  private readonly readOnce: Float64Array;

  constructor(
    private readonly capacity: number,
    /** A value that changes whenever another connection commits to the database. */
    private readonly changeMarker: () => unknown,
    /** The tables whose entries may be cached. */
    tables: readonly string[],
  ) {
    this.slots = new Map(tables.map((table, slot) => [table, slot]));
    // Two to four cells for each entry the cache holds (a power of two), 8 bytes each.
    this.readOnce = new Float64Array(2 ** Math.min(30, Math.ceil(Math.log2(Math.max(2, 2 * capacity))))).fill(-1);
  }

  private slot(table: string): number {
    const slot = this.slots.get(table);
    if (slot === undefined) throw new Error(`the entry cache was not made for the table ${table}`);
    return slot;
  }

  // A number, not a string such as `servers/42`: building and hashing a new string at every
  // lookup cost more than the lookup itself (docs/performance.md, "Figures behind the code"). Exact for every id up to 2^53 / tables.
  private key(slot: number, id: number): number {
    return id * this.slots.size + slot;
  }

  // An entry's cell: the low bits of its id, mixed with its table's slot. Consecutive ids of a
  // table take consecutive cells and random ids spread evenly, whatever the number of tables.
  // Not the key modulo the cells: the keys of a table are the number of tables apart, and fold
  // onto a fraction of the cells whenever that number shares a factor with theirs (8 tables
  // and 2,048 cells: none of 1,000 consecutive entries was kept at its second read).
  private cellOf(slot: number, id: number): number {
    return ((id % 4294967296) ^ Math.imul(slot, 0x9e3779b1)) & (this.readOnce.length - 1);
  }

  /** Brings the cache up to every commit other connections made before this turn. */
  private checkTurn(): void {
    if (this.turnChecked) return;
    this.turnChecked = true;
    const marker = this.changeMarker();
    if (marker !== this.marker) {
      this.marker = marker;
      this.drop();
    }
    setImmediate(() => {
      this.turnChecked = false;
    });
  }

  get(table: string, id: number): ReadAnswer | undefined {
    this.checkTurn();
    return this.entries.get(this.key(this.slot(table), id));
  }

  listVersion(table: string): string | undefined {
    this.checkTurn();
    return this.versions.get(table);
  }

  /** Keeps a list version read under `ticket`, unless a write began or ended since. */
  fillListVersion(table: string, version: string, ticket: number): void {
    if (ticket === this.generation) this.versions.set(table, version);
  }

  /** Called when any write of `table` begins, and again when it has ended. */
  forgetListVersion(table: string): void {
    this.generation += 1;
    this.versions.delete(table);
  }

  /** Taken before reading an entry from the database; `fill` needs it back. */
  ticket(): number {
    return this.generation;
  }

  /** Keeps what was read under `ticket`, unless a write began or ended since, or unless this
   * is the entry's first read lately (above). */
  fill(table: string, id: number, answer: ReadAnswerText, ticket: number): void {
    if (ticket !== this.generation) return;
    const slot = this.slot(table);
    const key = this.key(slot, id);
    const cell = this.cellOf(slot, id);
    if (this.readOnce[cell] !== key) {
      this.readOnce[cell] = key;
      return;
    }
    this.readOnce[cell] = -1;
    // Oldest first: dashboards re-read the same entries, which a refill brings back.
    makeRoom(this.entries, this.capacity);
    this.entries.set(key, { body: Buffer.from(answer.body), etag: answer.etag });
  }

  /** Called when a change of an existing entry begins, and again when it has ended, however
   * it ended. (A create needs neither: no entry it could change was ever cached.) */
  invalidate(table: string, id: number): void {
    this.generation += 1;
    this.entries.delete(this.key(this.slot(table), id));
  }

  /** Forgets every entry: for a change that touches entries it does not name one by one (a
   * deleted tag leaves all its servers). Called when it begins and again when it has ended. */
  drop(): void {
    this.generation += 1;
    this.entries.clear();
    this.versions.clear();
  }
}

// The list cache: list answers kept in memory by their entity tag, so that a dashboard polling a page that
// has not changed costs the one row read the tag needs, not the page's query and its
// serialization (about nine tenths of a list request).
//
// Keyed by the tag itself, the cache is exactly as coherent as the tag, on every backend and
// with any number of instances: the tag names the table's change counter, which every
// committed change of the table moves in its own transaction, and the query, normalised
// (entity-tag.ts, listTag). The counter is read before the page, so the body kept under a
// tag is never older than the counter it names; a body from a write that committed between
// the two reads is no older than a request running next to that write may see. A tag that
// could name two bodies would already break If-None-Match.
//
// Bounded by the characters it holds, oldest answer dropped first; an answer larger than a
// tenth of the bound is not kept, so one huge page cannot empty the cache.
export class ListCache {
  private readonly answers = new Map<string, string>();
  private held = 0;

  /** `capacity`: characters of JSON text kept at most (> 0; no cache at all for 0). */
  constructor(private readonly capacity: number) {}

  get(tag: string): string | undefined {
    return this.answers.get(tag);
  }

  fill(tag: string, body: string): void {
    if (body.length > this.capacity / 10 || this.answers.has(tag)) return;
    for (const [oldest, text] of this.answers) {
      if (this.held + body.length <= this.capacity) break;
      this.answers.delete(oldest);
      this.held -= text.length;
    }
    this.answers.set(tag, body);
    this.held += body.length;
  }
}

/** What a write changes: its plans, or, for work that may change any entry of these tables (an
 * apply), the tables. */
export type WriteChanges = readonly (WritePlan | DeletePlan | RestorePlan)[] | { readonly tables: readonly CompiledResource[] };

export class ReadThroughStore {
  constructor(
    readonly store: ResourceStore,
    /** Entries as GET by id sends them; undefined where the backend cannot keep one coherent. */
    private readonly entries: EntryCache | undefined,
    /** List answers by entity tag; undefined when LIST_CACHE_SIZE is 0. */
    private readonly lists: ListCache | undefined,
  ) {}

  /** An entry as GET by id answers it; a 404 if there is none. */
  entry(resource: CompiledResource, id: number): ReadAnswer | Promise<ReadAnswer> {
    return this.entries?.get(resource.table, id) ?? this.readEntry(resource, id);
  }

  private async readEntry(resource: CompiledResource, id: number): Promise<ReadAnswer> {
    const ticket = this.entries?.ticket();
    const entry = await this.store.read(resource, id);
    if (entry === undefined) throw entryNotFound(resource.name, id);
    const answer = readAnswer(entry);
    if (ticket !== undefined) this.entries?.fill(resource.table, id, answer, ticket);
    return answer;
  }

  /** The version of the lists of `resource` (the change counter a list's tag names). */
  listVersion(resource: CompiledResource): string | Promise<string> {
    return this.entries?.listVersion(resource.table) ?? this.readListVersion(resource);
  }

  private async readListVersion(resource: CompiledResource): Promise<string> {
    const ticket = this.entries?.ticket();
    const version = await this.store.listVersion(resource);
    if (ticket !== undefined) this.entries?.fillListVersion(resource.table, version, ticket);
    return version;
  }

  /** The answer text kept under a list's tag, if any. */
  keptList(etag: string): string | undefined {
    return this.lists?.get(etag);
  }

  /** A list's answer text, read from the store and kept under its tag; a request that waited
   * its turn may find it made meanwhile by the same query. */
  async list(plan: ListPlan, etag: string): Promise<string> {
    const made = this.lists?.get(etag);
    if (made !== undefined) return made;
    const body = listBody(plan.list, await this.store.list(plan.resource, plan.list, plan.total));
    this.lists?.fill(etag, body);
    return body;
  }

  /** A write's transaction, with the cached copies of the entries it changes out of the way
   * before and after. */
  async transaction<T>(changes: WriteChanges, work: (tx: StoreTransaction) => Promise<T>, author: Author): Promise<T> {
    this.forget(changes);
    try {
      return await this.store.transaction(work, author);
    } finally {
      this.forget(changes);
    }
  }

  /** A create in one statement where the store can (ResourceStore.createAlone), with the
   * cached copies it changes out of the way; undefined when it was not done so. */
  async createAlone(plan: WritePlan, values: Record<string, unknown>, now: string, secretsChanged: readonly string[]): Promise<Entry | undefined> {
    this.forget([plan]);
    try {
      return await this.store.createAlone(plan.resource, values, now, plan.author, secretsChanged, plan.references);
    } finally {
      this.forget([plan]);
    }
  }

  private forget(changes: WriteChanges): void {
    const cache = this.entries;
    if (cache === undefined) return;
    if (!Array.isArray(changes)) {
      cache.drop();
      for (const resource of (changes as { readonly tables: readonly CompiledResource[] }).tables) cache.forgetListVersion(resource.table);
      return;
    }
    for (const change of changes as readonly (WritePlan | DeletePlan | RestorePlan)[]) {
      // A delete that takes its entry out of other entries' sets changes those entries too.
      if (change.action === 'delete' && change.unlinks.length > 0) cache.drop();
      else if (change.id !== undefined) cache.invalidate(change.resource.table, change.id);
      cache.forgetListVersion(change.resource.table);
    }
  }
}
