// Entries as GET by id sends them (JSON text and entity tag), kept in memory so that what
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

import { makeRoom } from '../db/bounded-map.js';
import type { ReadAnswer, ReadAnswerText } from './shown-entry.js';

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
