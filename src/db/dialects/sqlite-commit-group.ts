// Group commit for a database that runs one write transaction at a time (SQLite). Each COMMIT
// waits for an fsync of the log, which, one write per transaction, caps durable writes at the
// disk's fsync rate (docs/decisions.md, "Writes are committed in groups on SQLite"). Writes that arrive together share one
// transaction instead: each runs in a savepoint of its own, so that a refused write undoes
// only itself, and every write of the group is answered after the one COMMIT has made them
// all durable. Nothing is acknowledged before its COMMIT; if the COMMIT (or the transaction)
// fails, every write of the group fails with it and none is acknowledged. The last step
// before the COMMIT moves the search indexes' queues into them, once for the group
// (searchQueueMover; the queues themselves: sqlite-search-queue.ts).
import { CompiledQuery, DefaultQueryExecutor, Transaction, type Dialect, type Kysely, type QueryResult } from 'kysely';
import type { Database } from '../database-schema.js';
import type SqliteDatabase from 'better-sqlite3';
import type { GroupedWork, TailedResult, TransactionTail } from './database-dialect.js';
import { moveStatement, QUEUE_SUFFIX } from './sqlite-search-queue.js';

interface Pending {
  work: GroupedWork;
  /** Writes the part the work leaves (its result is then a TailedResult). */
  tail: TransactionTail | undefined;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Result = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Runs a statement at once on the database's one connection, past Kysely's queue. */
export type RunOnConnection = (query: CompiledQuery) => QueryResult<unknown>;

// Bounds the wait of the first write of a group behind the others.
const GROUP_MAX = 256;

const BEGIN = CompiledQuery.raw('begin immediate');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');
const SAVEPOINT = CompiledQuery.raw('savepoint write_in_group');
const RELEASE = CompiledQuery.raw('release savepoint write_in_group');
const ROLLBACK_TO = CompiledQuery.raw('rollback to savepoint write_in_group');
// SQLite takes the level only outside a transaction: it is set before BEGIN and put back after.
const NOT_SYNCED = CompiledQuery.raw('pragma synchronous = NORMAL');

/**
 * The executor of the group's own transaction: it sends every statement the group's writes
 * run (the store's compiled templates, built queries) straight to the connection, which the
 * group holds from BEGIN to COMMIT. Kysely's default executor wraps each statement in several
 * promises and objects, which take as long as SQLite takes to run most of a write's statements
 * (docs/decisions.md, "Writes are committed in groups on SQLite"). Statements are awaited one
 * after the other, so none runs in the middle of another.
 */
class OnConnectionExecutor extends DefaultQueryExecutor {
  constructor(
    dialect: Dialect,
    private readonly runOnConnection: RunOnConnection,
  ) {
    super(dialect.createQueryCompiler(), dialect.createAdapter(), {
      // What Kysely's own machinery asks for (streams, a copy with plugins): the same connection.
      provideConnection: (consume) => consume({ executeQuery: async (query) => runOnConnection(query) as QueryResult<never>, streamQuery: () => { throw new Error('a grouped write does not stream'); } }),
    });
  }

  override executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return Promise.resolve(this.runOnConnection(query) as QueryResult<R>);
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

export class CommitGroup {
  private readonly queue: Pending[] = [];
  private draining = false;

  /** The group's transaction, as its writes see it: Kysely's query builders over the one
   * connection, their statements run at once (OnConnectionExecutor). */
  private readonly tx: Transaction<Database>;

  constructor(
    /** Kysely's handle: the group holds its one connection while the transaction is open, so
     * that no query queued on it runs in the middle (and sees uncommitted writes). */
    private readonly db: Kysely<Database>,
    dialect: Dialect,
    /** Where the dialect runs a statement on its one connection at once (SQLite). */
    private readonly runOnConnection: RunOnConnection,
    /** The synchronous level a durable commit needs (SQLITE_SYNCHRONOUS). */
    private readonly synchronous: 'FULL' | 'NORMAL' = 'NORMAL',
    /** What is written once per transaction, just before its COMMIT (the search queues:
     * searchQueueMover, below). */
    private readonly finishWrites: () => void = () => undefined,
  ) {
    // Kysely's own constructor, given the parts of a transaction: its driver is never used
    // (a Transaction refuses connection() and destroy()).
    this.tx = new Transaction<Database>({ config: { dialect }, dialect, driver: dialect.createDriver(), executor: new OnConnectionExecutor(dialect, runOnConnection) });
  }

  /** `durable: false`: work whose loss in a power cut is harmless (it is redone, as the
   * webhook dispatcher's leases and attempt results are). A group made of such work only is
   * committed without waiting for an fsync (synchronous NORMAL: in WAL mode still atomic and
   * in order, a later durable commit makes it durable too), so that it does not hold the
   * event loop for a disk flush. A group with any durable write is committed as configured. */
  run(work: GroupedWork, durable = true, tail?: TransactionTail): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      this.queue.push({ work, tail, durable, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        // After the I/O callbacks of this event-loop turn: the writes they started join.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) await this.commit(this.queue.splice(0, GROUP_MAX));
    this.draining = false;
  }

  private async commit(group: Pending[]): Promise<void> {
    let results: Result[];
    try {
      results = await this.runGroup(group);
    } catch (error) {
      for (const pending of group) pending.reject(error);
      return;
    }
    group.forEach((pending, index) => {
      const result = results[index]!;
      if (result.ok) pending.resolve(result.value);
      else pending.reject(result.error);
    });
  }

  /** Resolves once the group is committed, with each write's own outcome; rejects if the
   * transaction as a whole failed. */
  private async runGroup(group: Pending[]): Promise<Result[]> {
    const relaxed = this.synchronous === 'FULL' && group.every((pending) => !pending.durable);
    if (!relaxed) return this.runGroupSynced(group);
    this.runOnConnection(NOT_SYNCED);
    try {
      return await this.runGroupSynced(group);
    } finally {
      // The groups run one after the other (drain): the next one starts at the level set here.
      this.runOnConnection(CompiledQuery.raw(`pragma synchronous = ${this.synchronous}`));
    }
  }

  private runGroupSynced(group: Pending[]): Promise<Result[]> {
    // Holding Kysely's connection keeps its queue waiting; the statements go past it.
    return this.db.connection().execute(async () => {
      const run = this.runOnConnection;
      run(BEGIN);
      try {
        const results: Result[] = [];
        // The parts the group's writes leave, written once, after the last of them, by the tail
        // of the first (every tail on a handle is the store's: TransactionTail).
        let tail: TransactionTail | undefined;
        const parts: unknown[] = [];
        for (const pending of group) {
          run(SAVEPOINT);
          try {
            const result = await pending.work(this.tx);
            if (pending.tail === undefined) results.push({ ok: true, value: result });
            else {
              tail ??= pending.tail;
              parts.push((result as TailedResult<unknown>).part);
              results.push({ ok: true, value: (result as TailedResult<unknown>).value });
            }
          } catch (error) {
            run(ROLLBACK_TO);
            results.push({ ok: false, error });
          }
          run(RELEASE);
        }
        // A group none of whose writes stands (refusals, dry runs) is rolled back rather than
        // committed: a commit would still write the pages those writes touched and undid.
        if (results.some((result) => result.ok)) {
          if (tail !== undefined) await tail.write(this.tx, parts);
          this.finishWrites();
          run(COMMIT);
        } else {
          run(ROLLBACK);
        }
        return results;
      } catch (error) {
        // A failed COMMIT may leave the transaction open (a full disk) or have ended it.
        try {
          run(ROLLBACK);
        } catch {
          // There was none left to roll back.
        }
        throw error;
      }
    });
  }
}

/**
 * Moves every search queue of `database` into its index, in the transaction open on it. The
 * queues are found in the schema (a queue is a table named after an FTS5 table, with the
 * suffix), again whenever the schema changes (a migration may add one after the start).
 */
export function searchQueueMover(database: SqliteDatabase.Database): () => void {
  const schemaVersion = database.prepare('pragma schema_version').pluck();
  let version: unknown;
  let moves: { move: SqliteDatabase.Statement; empty: SqliteDatabase.Statement; any: SqliteDatabase.Statement }[] = [];
  const find = () => {
    const found = database
      .prepare(`select q.name as queue, f.name as name from sqlite_master q join sqlite_master f on q.name = f.name || '${QUEUE_SUFFIX}' where q.type = 'table' and f.type = 'table' and f.sql like '%using fts5%'`)
      .all() as { queue: string; name: string }[];
    moves = found.map(({ queue, name }) => {
      const columns = (database.prepare(`select name from pragma_table_info('${queue}') where name not in ('seq', 'command', 'row_id') order by cid`).pluck().all() as string[]);
      return {
        move: database.prepare(moveStatement(name, queue, columns)),
        empty: database.prepare(`delete from ${queue}`),
        any: database.prepare(`select 1 from ${queue} limit 1`).pluck(),
      };
    });
  };
  return () => {
    const now = schemaVersion.get();
    if (now !== version) {
      find();
      version = now;
    }
    for (const { move, empty, any } of moves) {
      if (any.get() === undefined) continue;
      move.run();
      empty.run();
    }
  };
}
