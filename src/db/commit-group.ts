// Group commit for a database that runs one write transaction at a time (SQLite). Each COMMIT
// waits for an fsync of the log, which, one write per transaction, caps durable writes at the
// disk's fsync rate (docs/decisions.md, "Writes are committed in groups on SQLite"). Writes that arrive together share one
// transaction instead: each runs in a savepoint of its own, so that a refused write undoes
// only itself, and every write of the group is answered after the one COMMIT has made them
// all durable. Nothing is acknowledged before its COMMIT; if the COMMIT (or the transaction)
// fails, every write of the group fails with it and none is acknowledged.
import { CompiledQuery, isCompilable, type Kysely, type QueryResult, type Transaction } from 'kysely';
import type { Database } from './database-schema.js';
import { TransactionTails, type TransactionWork } from './transaction-tail.js';

interface Pending {
  work: TransactionWork<unknown>;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Result = { ok: true; value: unknown } | { ok: false; error: unknown };

// Bounds the wait of the first write of a group behind the others.
const GROUP_MAX = 256;

const SAVEPOINT = CompiledQuery.raw('savepoint write_in_group');
const RELEASE = CompiledQuery.raw('release savepoint write_in_group');
const ROLLBACK_TO = CompiledQuery.raw('rollback to savepoint write_in_group');
// SQLite takes the level only outside a transaction: it is set before BEGIN and put back after.
const NOT_SYNCED = CompiledQuery.raw('pragma synchronous = NORMAL');

export class CommitGroup {
  private readonly queue: Pending[] = [];
  private draining = false;

  constructor(
    private readonly db: Kysely<Database>,
    /** Where the dialect runs a statement on its one connection at once (SQLite). */
    private readonly runOnConnection?: (query: CompiledQuery) => QueryResult<unknown>,
    /** The synchronous level a durable commit needs (SQLITE_SYNCHRONOUS). */
    private readonly synchronous: 'FULL' | 'NORMAL' = 'NORMAL',
    /** What the dialect writes once per transaction, before its COMMIT (OpenedDatabase.finishWrites). */
    private readonly finishWrites?: () => void,
  ) {}

  /** `durable: false`: work whose loss in a power cut is harmless (it is redone, as the
   * webhook dispatcher's leases and attempt results are). A group made of such work only is
   * committed without waiting for an fsync (synchronous NORMAL: in WAL mode still atomic and
   * in order, a later durable commit makes it durable too), so that it does not hold the
   * event loop for a disk flush. A group with any durable write is committed as configured. */
  run<T>(work: TransactionWork<T>, durable = true): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, durable, resolve: resolve as (value: unknown) => void, reject });
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
    const relaxed = this.synchronous === 'FULL' && this.runOnConnection !== undefined && group.every((pending) => !pending.durable);
    if (!relaxed) return this.runGroupSynced(group);
    this.runOnConnection!(NOT_SYNCED);
    try {
      return await this.runGroupSynced(group);
    } finally {
      // The groups run one after the other (drain): the next one starts at the level set here.
      this.runOnConnection!(CompiledQuery.raw(`pragma synchronous = ${this.synchronous}`));
    }
  }

  private async runGroupSynced(group: Pending[]): Promise<Result[]> {
    const tx = await this.db.startTransaction().execute();
    if (this.runOnConnection !== undefined) runDirectly(tx, this.runOnConnection);
    try {
      const results: Result[] = [];
      // Shared by the group's writes: written once, after the last of them (transaction-tail.ts).
      const tails = new TransactionTails();
      for (const pending of group) {
        await tx.executeQuery(SAVEPOINT);
        try {
          results.push({ ok: true, value: await pending.work(tx, tails) });
        } catch (error) {
          await tx.executeQuery(ROLLBACK_TO);
          results.push({ ok: false, error });
        }
        await tx.executeQuery(RELEASE);
      }
      // A group none of whose writes stands (refusals, dry runs) is rolled back rather than
      // committed: a commit would still write the pages those writes touched and undid.
      if (results.some((result) => result.ok)) {
        await tails.write(tx);
        this.finishWrites?.();
        await tx.commit().execute();
      } else {
        await tx.rollback().execute();
      }
      return results;
    } catch (error) {
      if (!tx.isCommitted && !tx.isRolledBack) await tx.rollback().execute().catch(() => undefined);
      throw error;
    }
  }
}

/**
 * Sends the statements the group's writes run with `executeQuery` (the store's compiled
 * templates, the savepoints) straight to the connection, which the transaction holds from
 * BEGIN to COMMIT: Kysely's executor wraps each statement in several promises and objects,
 * which take as long as SQLite takes to run most of a write's statements (docs/decisions.md,
 * "Writes are committed in groups on SQLite"). Statements built and
 * run with `.execute()`, and the COMMIT, still go through Kysely; all are awaited one after
 * the other, so the two ways never overlap.
 */
function runDirectly(tx: Transaction<Database>, run: (query: CompiledQuery) => QueryResult<unknown>): void {
  tx.executeQuery = ((query: CompiledQuery | { compile(): CompiledQuery }) => {
    try {
      return Promise.resolve(run(isCompilable(query) ? query.compile() : (query as CompiledQuery)));
    } catch (error) {
      return Promise.reject(error);
    }
  }) as Transaction<Database>['executeQuery'];
}
