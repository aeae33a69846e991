// What the writes of one transaction leave to its end (its TransactionTail, the one kind there
// is): the changes of resource_counts, and the change log's records in the order the writes
// made them, of every store on the handle. Each work leaves its part as plain data (TailPart)
// beside its result; the tail writes the parts of the transaction once, just before its COMMIT:
// on SQLite, where a commit group holds many writes, one count update per table and one change
// log insert serve the whole group, where each write would otherwise run its own (what that
// saved: docs/performance.md, "Figures behind the code"). The tail is the one writer of the
// change log's records (change-log.ts reads them) and of the count changes (resource-counts.ts
// reads them).
import type { CompiledQuery, RawBuilder, Transaction } from 'kysely';
import type { DatabaseCapabilities, TransactionTail } from '../db/connect.js';
import { PENDING_COLUMNS, type Database } from '../db/database-schema.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { SerializedChange } from './change-log.js';
import type { QueryTemplates } from './query-templates.js';
import { countRowUpdate, countShareUpdate } from './resource-counts.js';
import { rowBatches, slottedRows } from './row-batches.js';

/** Entries added and made live (negative: removed) in a table. */
export interface CountChange {
  readonly resource: ResourceDefinition;
  readonly total: number;
  readonly live: number;
}

/** What a write learns once its transaction's tail is written: the id of its last change
 * record, or undefined if it recorded none or they wait for the sequencer (`pending`). */
export interface ChangeReceipt {
  lastChange: number | undefined;
  /** Records were written without ids, for the change sequencer to number after the commit. */
  pending: boolean;
}

/** What one work leaves to its transaction's tail: its count changes and its records, made by
 * the work, and the receipt the tail fills in once they are written. */
export interface TailPart {
  readonly counts: readonly CountChange[];
  readonly changes: readonly SerializedChange[];
  readonly receipt: ChangeReceipt;
}

/** The columns of a record, in the order of rowValues; the pending queue has all but the id. */
const COLUMNS = ['id', ...PENDING_COLUMNS] as const;

/** The values of `change`'s row in the order of PENDING_COLUMNS (after its id, where it has one). */
function rowValues(change: SerializedChange, at: string): unknown[] {
  return [at, change.action, change.resource, change.entryId, change.author.actor, change.author.requestId, change.before, change.after, change.secretsChanged];
}

/** The parts of a transaction's works, as the tail writes them: the count changes summed by
 * table, so that a bulk write of a thousand entries, or a commit group of many writes, updates
 * each count row once; the records in order, each work's receipt with the position of its
 * last record. */
function joined(parts: readonly TailPart[]) {
  const counts = new Map<ResourceDefinition, { total: number; live: number }>();
  const changes: SerializedChange[] = [];
  const receipts: { receipt: ChangeReceipt; last: number }[] = [];
  for (const part of parts) {
    for (const { resource, total, live } of part.counts) {
      const sum = counts.get(resource);
      if (sum === undefined) counts.set(resource, { total, live });
      else {
        sum.total += total;
        sum.live += live;
      }
    }
    if (part.changes.length === 0) continue;
    changes.push(...part.changes);
    receipts.push({ receipt: part.receipt, last: changes.length - 1 });
  }
  return { counts, changes, receipts };
}

/** Writes the parts of a transaction: one per store, the same for every transaction of it. */
export class WriteTail implements TransactionTail<TailPart> {
  constructor(
    private readonly templates: QueryTemplates,
    private readonly capabilities: DatabaseCapabilities,
    /** Run after writing change records, where the database signals commits (ChangeSignal). */
    private readonly changeSignal: CompiledQuery | undefined,
    /** The count share of the connection (DialectQueries.countShard), where there are shares. */
    private readonly countShard: RawBuilder<number> | undefined,
  ) {}

  /**
   * Counts first, the change log last. Each count change goes to the share `countShard` where
   * there is one, else (or if its row is missing) to the table's own row, and moves the
   * table's change counter, the version of its lists. Where writes number their records
   * (SQLite), they take consecutive ids from change_log_state: the state row's lock, held from
   * here to the commit, orders the log, and is taken last so that holding it never waits for
   * any other lock. Elsewhere the records wait, without ids, for the change sequencer
   * (change-sequencer.ts), which numbers the committed ones and signals their commit itself.
   */
  async write(tx: Transaction<Database>, parts: readonly TailPart[]): Promise<void> {
    const { counts, changes, receipts } = joined(parts);
    const { templates, capabilities, countShard } = this;
    if (await this.writeInOneStatement(tx, counts, changes)) {
      for (const { receipt } of receipts) receipt.pending = true;
      return;
    }
    for (const [resource, { total, live }] of counts) {
      const values = [total, live, resource.table];
      if (countShard !== undefined) {
        const share = await templates.get('adjust count share', (slot) => countShareUpdate(tx, slot, countShard)).execute(tx, values);
        if (Number(share.numAffectedRows ?? 0) > 0) continue;
      }
      await templates.get('adjust counts', (slot) => countRowUpdate(tx, slot)).execute(tx, values);
    }
    if (changes.length === 0) return;
    const at = new Date().toISOString();
    if (capabilities.numbersChangesAfterCommit) {
      for (const chunk of rowBatches(changes)) {
        const insert = templates.get(`insert pending changes ${chunk.length}`, (slot) => tx.insertInto('change_log_pending').values(slottedRows(chunk.length, PENDING_COLUMNS, slot) as any));
        await insert.execute(tx, chunk.flatMap((change) => rowValues(change, at)));
      }
      for (const { receipt } of receipts) receipt.pending = true;
      return;
    }
    const taken = templates.get(`take change ids ${capabilities.updateReturning}`, (slot) => {
      const update = tx.updateTable('change_log_state').set((eb) => ({ last_id: eb('last_id', '+', slot(0)) })).where('id', '=', 1);
      return capabilities.updateReturning ? update.returning('last_id') : update;
    });
    let last = Number(((await taken.execute(tx, [changes.length])).rows[0] as { last_id?: unknown } | undefined)?.last_id);
    if (!capabilities.updateReturning) {
      const read = templates.get('last change id', () => tx.selectFrom('change_log_state').select('last_id').where('id', '=', 1));
      last = Number((await read.execute(tx, [])).rows[0]?.last_id);
    }
    let id = last - changes.length;
    for (const chunk of rowBatches(changes)) {
      const insert = templates.get(`insert changes ${chunk.length}`, (slot) => tx.insertInto('change_log').values(slottedRows(chunk.length, COLUMNS, slot) as any));
      const values: unknown[] = [];
      for (const change of chunk) values.push((id += 1), ...rowValues(change, at));
      await insert.execute(tx, values);
    }
    const first = last - changes.length + 1;
    for (const { receipt, last: position } of receipts) receipt.lastChange = first + position;
    if (this.changeSignal !== undefined) await tx.executeQuery(this.changeSignal);
  }

  /** A single write's count share and pending record as one statement, where the dialect
   * allows (DatabaseCapabilities.modifyingWith: PostgreSQL); false when the tail is not of
   * that shape. If the share's row is missing, the table's own row takes the count. */
  private async writeInOneStatement(tx: Transaction<Database>, counts: ReadonlyMap<ResourceDefinition, { total: number; live: number }>, changes: readonly SerializedChange[]): Promise<boolean> {
    const shard = this.countShard;
    if (!this.capabilities.modifyingWith || !this.capabilities.numbersChangesAfterCommit || shard === undefined) return false;
    const [change, ...moreChanges] = changes;
    const [count, ...moreCounts] = counts;
    if (change === undefined || count === undefined || moreChanges.length > 0 || moreCounts.length > 0) return false;
    const [resource, { total, live }] = count;
    const insert = this.templates.get('insert pending change with count share', (slot) =>
      tx
        .with('share', (db) => countShareUpdate(db, slot, shard).returning('shard'))
        .insertInto('change_log_pending')
        .values(slottedRows(1, PENDING_COLUMNS, (index) => slot(index + 3))[0] as any)
        .returning((eb) => eb.selectFrom('share').select((inner) => inner.fn.countAll<number>().as('shares')).as('shares')),
    );
    const result = await insert.execute(tx, [total, live, resource.table, ...rowValues(change, new Date().toISOString())]);
    if (Number((result.rows[0] as { shares?: unknown } | undefined)?.shares) > 0) return true;
    await this.templates.get('adjust counts', (slot) => countRowUpdate(tx, slot)).execute(tx, [total, live, resource.table]);
    return true;
  }
}
