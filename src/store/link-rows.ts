// The rows of link tables (one row per pair of a set of ids), as a store transaction writes
// them. A link table that copies its owner's soft-delete flag (LinkTable.ownerDeletedColumn)
// gets the owner's state on every row written, and again when the owner is deleted or
// restored, in the same transaction: a list filtered by the set trusts that copy to skip and
// count deleted owners without reading them, so no write may leave it behind.
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { Entry } from './entry-rows.js';
import type { QueryTemplates } from './query-templates.js';
import { rowBatches, slottedRows } from './row-batches.js';
import type { EntryDatabase } from '../db/database-schema.js';

/** Makes the link tables hold the sets `values` gives (unchanged sets are left alone), and
 * shows them in `entry` (the owner as stored: a deleted one may still be changed). */
export async function writeLinks(
  db: EntryDatabase,
  templates: QueryTemplates,
  resource: CompiledResource,
  entry: Entry,
  values: Record<string, unknown>,
  existing: Entry | undefined,
): Promise<void> {
  const deleted = resource.deletion.mode === 'soft' && entry[resource.deletion.flagField] === 1 ? 1 : 0;
  for (const [name, link] of resource.linkedFields) {
    const previous = (existing?.[name] as number[] | undefined) ?? [];
    const next = (values[name] as number[] | undefined) ?? previous;
    entry[name] = next;
    const removed = previous.filter((id) => !next.includes(id));
    const added = next.filter((id) => !previous.includes(id));
    if (removed.length > 0) {
      await db.deleteFrom(link.table).where(link.ownerColumn, '=', entry.id).where(link.targetColumn, 'in', removed).execute();
    }
    if (added.length > 0) {
      // A template per number of ids added (at most a set's bound): a bulk create of 1,000
      // servers with one tag each compiled this insert 1,000 times otherwise.
      const flagged = link.ownerDeletedColumn;
      const width = flagged === undefined ? 2 : 3;
      const query = templates.get(`link ${link.table} ${added.length}`, (slot) =>
        db.insertInto(link.table).values(
          added.map((_, index) => ({
            [link.ownerColumn]: slot(index * width),
            [link.targetColumn]: slot(index * width + 1),
            ...(flagged === undefined ? {} : { [flagged]: slot(index * width + 2) }),
          })),
        ),
      );
      await query.execute(db, added.flatMap((id) => (flagged === undefined ? [entry.id, id] : [entry.id, id, deleted])));
    }
  }
}

/** The links of new entries (entries[i] made of valuesList[i]), a batch of rows per
 * statement (see row-batches.ts), shown in the entries as writeLinks does. */
export async function writeNewLinks(
  db: EntryDatabase,
  templates: QueryTemplates,
  resource: CompiledResource,
  entries: readonly Entry[],
  valuesList: readonly Record<string, unknown>[],
): Promise<void> {
  for (const [name, link] of resource.linkedFields) {
    const flagged = link.ownerDeletedColumn;
    const columns = flagged === undefined ? [link.ownerColumn, link.targetColumn] : [link.ownerColumn, link.targetColumn, flagged];
    const rows: unknown[][] = [];
    entries.forEach((entry, index) => {
      const ids = (valuesList[index]![name] as number[] | undefined) ?? [];
      entry[name] = ids;
      const deleted = resource.deletion.mode === 'soft' && entry[resource.deletion.flagField] === 1 ? 1 : 0;
      for (const id of ids) rows.push(flagged === undefined ? [entry.id, id] : [entry.id, id, deleted]);
    });
    for (const batch of rowBatches(rows)) {
      const query = templates.get(`links ${link.table} x${batch.length}`, (slot) =>
        db.insertInto(link.table).values(slottedRows(batch.length, columns, slot)),
      );
      await query.execute(db, batch.flat());
    }
  }
}

/** Copies an owner's new soft-delete flag (1 deleted, 0 restored) into its links. */
export async function markLinkOwner(db: EntryDatabase, templates: QueryTemplates, resource: CompiledResource, id: number, deleted: 0 | 1): Promise<void> {
  for (const [, link] of resource.linkedFields) {
    const column = link.ownerDeletedColumn;
    if (column === undefined) continue;
    const query = templates.get(`mark owner ${link.table}`, (slot) => db.updateTable(link.table).set({ [column]: slot(0) }).where(link.ownerColumn, '=', slot(1)));
    await query.execute(db, [deleted, id]);
  }
}
