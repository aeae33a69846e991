// Gives change records their ids after their write committed (PostgreSQL, MariaDB; see
// docs/decisions.md, "Writes that scale: change ids given after the commit"). A write stores
// its records in change_log_pending, without an id, in its own transaction: writers share no
// lock. After the commit, a sequencer run takes change_log_state's row lock, moves the
// committed pending records to change_log with the next ids (in the order of their `seq`),
// deletes them from the queue, and commits: a short transaction whose length does not grow
// with the writes' own. Readers read change_log only.
//
// Why the feed stays exact: ids are given only under the state row's lock, and that lock is
// held until the ids commit, so ids commit in increasing order, as they did when each write
// took its ids itself; a record is moved and deleted in one transaction, and the next run
// (which waits for the lock, then reads what is committed then) no longer sees it: numbered
// once. Every committed record is numbered: by its writer's run after the commit, or by any
// instance's sweep (a writer killed after its commit leaves its records in the queue).
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../db/database-schema.js';
import { PENDING_COLUMNS } from '../db/database-schema.js';

/** Records moved per transaction: a larger queue is moved in several. */
const BATCH = 1000;

export class ChangeSequencer {
  private running: Promise<void> | undefined;
  /** The run under way while it has not yet sent its statement: a caller joins it. */
  private starting: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    /** Run in each run's transaction (ChangeSignal.notify): other instances read at once. */
    private readonly signal: CompiledQuery | undefined,
    /** Told the last id given by each run that numbered records. */
    private readonly onNumbered: (lastId: number) => void,
    /** The dialect's run in one statement (DialectQueries.numberChanges), where it has one. */
    private readonly inOneStatement?: (db: Kysely<Database>, batch: number) => Promise<{ moved: number; lastId: number }>,
  ) {}

  /** Numbers every record committed before this call; resolves once they are. Calls made
   * while a run is under way share the next run: one run numbers what many writes left.
   *
   * A run starts after the event loop's current phase (setImmediate), so that the writes
   * whose commits were read in the same phase share it instead of each waiting for the next;
   * until it starts, a caller joins it: its commit came before, and the run's statement,
   * sent later, sees it (READ COMMITTED). A caller that comes once it has started waits for
   * the next run, as before. */
  number(): Promise<void> {
    if (this.starting !== undefined) return this.starting;
    if (this.running === undefined) {
      const started = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.starting = undefined;
        return this.run();
      });
      this.running = started.finally(() => {
        this.running = undefined;
      });
      this.starting = this.running;
      return this.running;
    }
    // The run under way may have read the queue before this caller's commit.
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.number();
      });
    return this.queued;
  }

  /** Numbers what is waiting, if anything is: records whose writer died after its commit,
   * or whose run failed. One read of the queue's first row when it is empty. */
  async sweep(): Promise<void> {
    const waiting = await this.db.selectFrom('change_log_pending').select('seq').limit(1).executeTakeFirst();
    if (waiting !== undefined) await this.number();
  }

  private async run(): Promise<void> {
    for (;;) {
      const { moved, lastId } = this.inOneStatement === undefined ? await this.moveBatch() : await this.inOneStatement(this.db, BATCH);
      if (moved > 0) this.onNumbered(lastId);
      if (moved < BATCH) return;
    }
  }

  // READ COMMITTED on every backend (MariaDB's default is REPEATABLE READ): each statement
  // sees what is committed when it runs, so the queue read after the lock is granted holds
  // every record committed before, and reads take no gap locks that writers' inserts wait on.
  private moveBatch(): Promise<{ moved: number; lastId: number }> {
    return this.db
      .transaction()
      .setIsolationLevel('read committed')
      .execute(async (tx) => {
        const state = await tx.selectFrom('change_log_state').select('last_id').where('id', '=', 1).forUpdate().executeTakeFirstOrThrow();
        const last = Number(state.last_id);
        const rows = await tx.selectFrom('change_log_pending').select('seq').orderBy('seq').limit(BATCH).execute();
        if (rows.length === 0) return { moved: 0, lastId: last };
        const seqs = rows.map((row) => row.seq);
        const columns = sql.join(PENDING_COLUMNS.map((column) => sql.ref(column)));
        await sql`insert into change_log (id, ${columns}) select ${last} + row_number() over (order by seq), ${columns} from change_log_pending where seq in (${sql.join(seqs)})`.execute(tx);
        const deleted = await tx.deleteFrom('change_log_pending').where('seq', 'in', seqs).executeTakeFirst();
        // Only a run holds the lock and deletes: a difference would mean a record numbered twice.
        if (Number(deleted.numDeletedRows) !== rows.length) throw new Error(`the change sequencer moved ${rows.length} records but deleted ${deleted.numDeletedRows}`);
        await tx.updateTable('change_log_state').set({ last_id: last + rows.length }).where('id', '=', 1).execute();
        if (this.signal !== undefined) await tx.executeQuery(this.signal);
        return { moved: rows.length, lastId: last + rows.length };
      });
  }
}
