// What the writes of one transaction leave to its end (its TransactionTail, the one kind there
// is): the changes of resource_counts, and the change log's records in the order the writes
// made them, of every store on the handle. Written once for the transaction: on SQLite, where a commit group holds many writes, one count
// update per table and one change log insert serve the whole group, where each write would
// otherwise run its own (what that saved: docs/performance.md, "Figures behind the code").
import type { CompiledQuery, Kysely, RawBuilder, Transaction } from 'kysely';
import type { DatabaseCapabilities, TransactionTail } from '../db/connect.js';
import type { Database } from '../db/database-schema.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { writeChanges, writePendingChangeWithCountShare, writePendingChanges, type SerializedChange } from './change-log.js';
import type { QueryTemplates } from './query-templates.js';
import { countRowUpdate, countShareUpdate } from './resource-counts.js';

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

/** Keeps resource_counts (resource-counts.ts) in step with the inserts and deletes of a
 * transaction that changed the table, and moves its change counter, in the same transaction:
 * in the share `shard` (DialectQueries.countShard) where there is one, else (or if its row is
 * missing) in the table's own row. The tail is its one caller. */
async function adjustCount(
  tx: Kysely<Database>,
  templates: QueryTemplates,
  resource: ResourceDefinition,
  total: number,
  live: number,
  shard?: RawBuilder<number>,
): Promise<void> {
  if (shard !== undefined) {
    const share = templates.get('adjust count share', (slot) => countShareUpdate(tx, slot, shard));
    const result = await share.execute(tx, [total, live, resource.table]);
    if (Number(result.numAffectedRows ?? 0) > 0) return;
  }
  const query = templates.get('adjust counts', (slot) => countRowUpdate(tx, slot));
  await query.execute(tx, [total, live, resource.table]);
}

export class WriteTail implements TransactionTail {
  /** The sum of the writes' count changes, by table. */
  private readonly counts = new Map<ResourceDefinition, { total: number; live: number }>();
  private readonly changes: SerializedChange[] = [];
  /** Each write's receipt, and the position of its last record in `changes`. */
  private readonly receipts: { receipt: ChangeReceipt; last: number }[] = [];

  constructor(
    private readonly templates: QueryTemplates,
    private readonly capabilities: DatabaseCapabilities,
    /** Run after writing change records, where the database signals commits (ChangeSignal). */
    private readonly changeSignal: CompiledQuery | undefined,
    /** The count share of the connection (DialectQueries.countShard), where there are shares. */
    private readonly countShard: RawBuilder<number> | undefined,
  ) {}

  /** Adds what one write left, as the last step of its work. */
  add(counts: readonly CountChange[], changes: readonly SerializedChange[]): ChangeReceipt {
    for (const { resource, total, live } of counts) {
      const sum = this.counts.get(resource);
      if (sum === undefined) this.counts.set(resource, { total, live });
      else {
        sum.total += total;
        sum.live += live;
      }
    }
    const receipt: ChangeReceipt = { lastChange: undefined, pending: false };
    if (changes.length > 0) {
      this.changes.push(...changes);
      this.receipts.push({ receipt, last: this.changes.length - 1 });
    }
    return receipt;
  }

  // Counts first, the change log last: where writes number their records (writeChanges), its
  // ordering lock is then held only for its insert and the commit. Elsewhere the records wait
  // for the change sequencer, which signals the commit of their ids itself.
  async write(tx: Transaction<Database>): Promise<void> {
    if (await this.writeInOneStatement(tx)) return;
    for (const [resource, change] of this.counts) await adjustCount(tx, this.templates, resource, change.total, change.live, this.countShard);
    if (this.changes.length === 0) return;
    if (this.capabilities.numbersChangesAfterCommit) {
      await writePendingChanges(tx, this.templates, this.changes);
      for (const { receipt } of this.receipts) receipt.pending = true;
      return;
    }
    const last = await writeChanges(tx, this.templates, this.capabilities, this.changes);
    const first = last - this.changes.length + 1;
    for (const { receipt, last: position } of this.receipts) receipt.lastChange = first + position;
    if (this.changeSignal !== undefined) await tx.executeQuery(this.changeSignal);
  }

  /** A single write's count share and pending record as one statement, where the dialect
   * allows (DatabaseCapabilities.modifyingWith); false when the tail is not of that shape. */
  private async writeInOneStatement(tx: Transaction<Database>): Promise<boolean> {
    const [change, ...moreChanges] = this.changes;
    const [count, ...moreCounts] = this.counts;
    if (!this.capabilities.modifyingWith || !this.capabilities.numbersChangesAfterCommit || this.countShard === undefined) return false;
    if (change === undefined || count === undefined || moreChanges.length > 0 || moreCounts.length > 0) return false;
    const [resource, { total, live }] = count;
    const shared = await writePendingChangeWithCountShare(tx, this.templates, change, { table: resource.table, total, live }, this.countShard);
    if (!shared) await adjustCount(tx, this.templates, resource, total, live);
    for (const { receipt } of this.receipts) receipt.pending = true;
    return true;
  }
}
