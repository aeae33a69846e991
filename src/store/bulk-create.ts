// A bulk create (contract section 12), as one step of the write's transaction: every entry
// checked in turn as a single create is (StoreTransaction.checkedChange), then all stored by a
// few statements, a batch of rows each (row-batches.ts), with their links, counts and change
// records.
import { aboutEntry, ApiError } from '../errors/api-error.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import { decodeEntry, writeNewLinks, type Entry, type EntryChange, type Row } from './entry-rows.js';
import { rowBatches, slottedRows } from './row-batches.js';
import type { StoreTransaction } from './store-transaction.js';
import type { WriteStep } from './write-step.js';
import { rethrowAt, UniqueConflict } from './unique-rules.js';

/** Creates of one resource (a bulk create): every entry checked in turn, then all stored by
 * a few statements (insertMany); the first refusal names its entry by `index`. Two entries
 * that clash were refused by the plan already. */
export async function createEntries(tx: StoreTransaction, steps: readonly WriteStep[]): Promise<Entry[]> {
  const changes: EntryChange[] = [];
  for (const [index, step] of steps.entries()) {
    try {
      changes.push((await tx.checkedChange(step, undefined))!);
    } catch (error) {
      throw error instanceof ApiError ? aboutEntry(error, index) : error;
    }
  }
  let entries: Entry[];
  try {
    entries = await insertMany(tx, steps[0]!.resource, changes, new Date().toISOString());
  } catch (error) {
    if (!(error instanceof UniqueConflict)) throw error;
    throw error.index === undefined ? error.problem() : aboutEntry(error.problem(), error.index);
  }
  entries.forEach((entry, index) => tx.recordWrite(steps[index]!, undefined, entry, changes[index]!.values));
  return entries;
}

/** Stores new entries, in order, a batch of rows per statement (see row-batches.ts): a bulk
 * create. Throws UniqueConflict naming the position of the first entry whose values are
 * taken. Where the stored rows cannot come back by RETURNING, entry by entry. */
async function insertMany(tx: StoreTransaction, resource: CompiledResource, changes: readonly EntryChange[], now: string): Promise<Entry[]> {
  const valuesList = changes.map((change) => change.values);
  const rows = changes.map((change) => tx.newRow(resource, change.row, now));
  const columns = Object.keys(rows[0] ?? {});
  const signature = columns.join();
  const sameColumns = rows.every((row) => Object.keys(row).join() === signature);
  if (!tx.capabilities.returning || !sameColumns) {
    const entries: Entry[] = [];
    for (const [index, change] of changes.entries()) entries.push(await tx.insertChange(resource, change, now).catch((error) => rethrowAt(error, index)));
    return entries;
  }
  if (tx.capabilities.failedStatementEndsTransaction) await tx.unique.refuseMany(tx.db, resource, valuesList);
  const entries: Entry[] = [];
  for (const batch of rowBatches(rows)) {
    const query = tx.templates.get(`insert ${resource.table} ${signature} x${batch.length}`, (slot) =>
      tx.db
        .insertInto(resource.table)
        .values(slottedRows(batch.length, columns, slot))
        .returning(resource.storedColumns),
    );
    let stored: Row[];
    try {
      stored = (await query.execute(tx.db, batch.flatMap((row) => Object.values(row)))).rows as Row[];
    } catch (error) {
      // The statement undid itself (where a refused statement leaves the transaction usable):
      // name the first entry of the batch whose values are taken.
      if (!tx.capabilities.failedStatementEndsTransaction && tx.failureOf(error) === 'unique') {
        for (let index = entries.length; index < entries.length + batch.length; index++) {
          await tx.unique.refuse(tx.db, resource, valuesList[index]!, undefined).catch((refusal) => rethrowAt(refusal, index));
        }
      }
      throw error;
    }
    // Ids are given in the order of the rows; RETURNING does not promise that order.
    stored.sort((a, b) => Number(a.id) - Number(b.id));
    for (const row of stored) entries.push(decodeEntry(resource, row));
  }
  await writeNewLinks(tx.db, tx.templates, resource, entries, valuesList);
  tx.countChange(resource, entries.length, entries.length);
  return entries;
}
