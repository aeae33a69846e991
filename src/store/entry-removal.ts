// The delete step and the restore step: a delete or a restore of an entry, handed over by
// the pipeline as its plan's plain data and checked and done here, in the write's transaction
// (StoreTransaction): the entry locked and the request's precondition checked, the delete
// rule (a built-in entry, entries that still point at it), the sets the entry is taken out
// of, a soft or hard delete; or, for a restore, the unique rules among live entries. Every
// change is recorded, the entries whose sets it leaves included.
import { ApiError, apiError } from '../errors/api-error.js';
import { message } from '../messages/messages.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { ReferencingField } from '../registry/registry.js';
import type { LinkTable, UniqueRule } from '../registry/resource-definition.js';
import { decodeEntry, markLinkOwner, type Entry, type Row } from './entry-rows.js';
import type { StoreTransaction } from './store-transaction.js';
import { UniqueConflict } from './unique-rules.js';

// Ids bound in one statement: far under every backend's limit of bound values.
const ROWS_PER_STATEMENT = 500;

/** How many referencing entries a 409 REFERENCED names at most. */
const REFERENCES_NAMED = 20;

/** A delete as planned (the delete plan is one). */
export interface DeleteStep {
  readonly resource: CompiledResource;
  readonly id: number;
  /** A built-in entry (409 DELETE_GUARDED once it is known to exist). */
  readonly guarded: boolean;
  /** The fields of other resources that may still point at the entry (409 REFERENCED). */
  readonly referencedBy: readonly ReferencingField[];
  /** The sets the entry is taken out of when it goes (a deleted tag leaves its servers). */
  readonly unlinks: readonly (ReferencingField & { readonly link: LinkTable })[];
  /** The request's If-Match, checked against the entry as locked. */
  readonly ifMatch: string | undefined;
}

/** A restore as planned (the restore plan is one). */
export interface RestoreStep {
  readonly resource: CompiledResource;
  readonly id: number;
  readonly ifMatch: string | undefined;
}

/** Deletes an entry (already deleted, softly: nothing to do); any refusal throws, and nothing changes. */
export async function deleteEntry(tx: StoreTransaction, step: DeleteStep): Promise<void> {
  const { resource, id } = step;
  const existing = await tx.lockExisting(resource, id, step.ifMatch);
  if (step.guarded) throw apiError('DELETE_GUARDED', 'delete.guarded', { resource: resource.name, id });
  const deletion = resource.deletion;
  if (deletion.mode === 'soft' && existing[deletion.flagField] === 1) return; // already deleted: nothing to do
  await refuseIfReferenced(tx, step);
  const at = new Date().toISOString();
  for (const unlink of step.unlinks) {
    // The entries that held it change too: each is recorded as the update it is.
    const holders = await entriesLinkedTo(tx, unlink, id);
    await unlinkTarget(tx, unlink, id, holders.map((holder) => holder.id), at);
    for (const before of holders) {
      const after = { ...before, [unlink.field]: (before[unlink.field] as number[]).filter((held) => held !== id), updated_at: at };
      tx.recordChange({ action: 'update', resource: unlink.resource, entryId: before.id, before, after, secretsChanged: [] });
    }
  }
  if (deletion.mode === 'soft') {
    await softDelete(tx, resource, id, at);
    tx.recordChange({ action: 'delete', resource, entryId: id, before: existing, after: { ...existing, [deletion.flagField]: 1, updated_at: at }, secretsChanged: [] });
  } else {
    await tx.remove(resource, id);
    tx.recordChange({ action: 'delete', resource, entryId: id, before: existing, after: null, secretsChanged: [] });
  }
}

/** Brings a soft-deleted entry back (not deleted: nothing changes, the entry as it is). */
export async function restoreEntry(tx: StoreTransaction, step: RestoreStep): Promise<Entry> {
  const existing = await tx.lockExisting(step.resource, step.id, step.ifMatch);
  const deletion = step.resource.deletion;
  if (deletion.mode !== 'soft' || existing[deletion.flagField] !== 1) return existing;
  let restored: Entry;
  try {
    restored = await restoreRow(tx, step.resource, existing, new Date().toISOString());
  } catch (error) {
    throw error instanceof UniqueConflict ? error.problem() : error;
  }
  tx.recordChange({ action: 'restore', resource: step.resource, entryId: existing.id, before: existing, after: restored, secretsChanged: [] });
  return restored;
}

async function refuseIfReferenced(tx: StoreTransaction, step: DeleteStep): Promise<void> {
  const users: { resource: string; ids: number[] }[] = [];
  // One more than are named: whether the message must say that others are left unnamed.
  let others = false;
  for (const reference of step.referencedBy) {
    const ids = await idsReferencing(tx, reference.resource, reference.field, step.id, REFERENCES_NAMED + 1);
    if (ids.length > REFERENCES_NAMED) others = true;
    if (ids.length > 0) users.push({ resource: reference.resource.name, ids: ids.slice(0, REFERENCES_NAMED) });
  }
  if (users.length === 0) return;
  const named = users.map((user) => `${user.resource} ${user.ids.join(', ')}`).join('; ');
  const params = { resource: step.resource.name, id: step.id, users: named, named: REFERENCES_NAMED };
  throw new ApiError('REFERENCED', message(others ? 'delete.referencedAndOthers' : 'delete.referenced', params), [], {}, {
    referenced_by: users,
  });
}

/** The entries of `referencing` whose set holds `targetId`, as responses show them, locked
 * (with their links) until the transaction ends: what a delete of the target is about to
 * change (unlinkTarget), and the before of their change records. */
async function entriesLinkedTo(tx: StoreTransaction, referencing: ReferencingField & { link: LinkTable }, targetId: number): Promise<Entry[]> {
  const { resource, link } = referencing;
  const locked = tx.capabilities.rowLocks;
  const query = tx.templates.get(`linked to ${resource.table} ${link.table} ${locked}`, (slot) => {
    const select = tx.db
      .selectFrom(resource.table)
      .select(tx.selections.all(resource))
      .where('id', 'in', tx.db.selectFrom(link.table).select(link.ownerColumn).where(link.targetColumn, '=', slot(0)))
      .orderBy('id');
    return locked ? select.forUpdate() : select;
  });
  const rows = (await query.execute(tx.db, [targetId])).rows as Row[];
  return rows.map((row) => decodeEntry(resource, row));
}

/** Takes `targetId` out of the sets of `holders` (entriesLinkedTo, which locked them) and
 * of every other entry of `referencing`; the holders are changed, so their `updated_at`
 * moves. They are touched by primary key: `WHERE id IN (SELECT owner …)` made InnoDB lock
 * the link index's gap while waiting for an owner row that a concurrent create had just
 * inserted, whose link insert waited for that gap: a deadlock. */
async function unlinkTarget(tx: StoreTransaction, referencing: ReferencingField & { link: LinkTable }, targetId: number, holders: readonly number[], now: string): Promise<void> {
  const { resource, link } = referencing;
  for (let start = 0; start < holders.length; start += ROWS_PER_STATEMENT) {
    await tx.db.updateTable(resource.table).set({ updated_at: now }).where('id', 'in', holders.slice(start, start + ROWS_PER_STATEMENT)).execute();
  }
  const unlink = tx.templates.get(`unlink target ${link.table}`, (slot) => tx.db.deleteFrom(link.table).where(link.targetColumn, '=', slot(0)));
  await unlink.execute(tx.db, [targetId]);
  if (holders.length > 0) tx.countChange(resource, 0, 0);
}

/** Marks an entry deleted and takes it out of the live uniqueness rules. */
async function softDelete(tx: StoreTransaction, resource: CompiledResource, id: number, now: string): Promise<void> {
  const deletion = resource.deletion;
  if (deletion.mode !== 'soft') throw new Error(`${resource.name} is not soft-deleted`);
  const flag = resource.fields[deletion.flagField]!;
  const query = tx.templates.get(`soft delete ${resource.table}`, (slot) =>
    tx.db
      .updateTable(resource.table)
      .set({ [flag.column]: 1, [deletion.liveColumn]: null, updated_at: slot(0) })
      .where('id', '=', slot(1)),
  );
  await query.execute(tx.db, [now, id]);
  await markLinkOwner(tx.db, tx.templates, resource, id, 1);
  tx.countChange(resource, 0, -1);
}

/** Brings a soft-deleted entry back; throws UniqueConflict when a live entry now holds its
 * values of a rule among live entries. */
async function restoreRow(tx: StoreTransaction, resource: CompiledResource, existing: Entry, now: string): Promise<Entry> {
  const deletion = resource.deletion;
  if (deletion.mode !== 'soft') throw new Error(`${resource.name} is not soft-deleted`);
  const flag = resource.fields[deletion.flagField]!;
  // Restored, the entry takes part in the rules among live entries again: look first, and
  // let the unique index catch what races past the look.
  const taken: UniqueRule[] = [];
  for (const rule of resource.unique) {
    if (rule.amongLive && (await tx.unique.isTaken(tx.db, resource, rule, [existing], existing.id))) taken.push(rule);
  }
  if (taken.length > 0) throw new UniqueConflict(taken);
  const query = tx.templates.get(`restore ${resource.table}`, (slot) =>
    tx.db
      .updateTable(resource.table)
      .set({ [flag.column]: 0, [deletion.liveColumn]: 1, updated_at: slot(0) })
      .where('id', '=', slot(1)),
  );
  try {
    await query.execute(tx.db, [now, existing.id]);
  } catch (error) {
    if (tx.failureOf(error) === 'unique') throw new UniqueConflict(resource.unique.filter((rule) => rule.amongLive));
    throw error;
  }
  await markLinkOwner(tx.db, tx.templates, resource, existing.id, 0);
  tx.countChange(resource, 0, 1);
  return { ...existing, [deletion.flagField]: 0, updated_at: now };
}

/** Ids of the entries of `resource` whose `field` points at `id`, at most `max`. */
async function idsReferencing(tx: StoreTransaction, resource: CompiledResource, field: string, id: number, max: number): Promise<number[]> {
  const column = resource.fields[field]!.column;
  const query = tx.templates.get(`referencing ${resource.table} ${column}`, (slot) =>
    tx.db.selectFrom(resource.table).select('id').where(column, '=', slot(0)).orderBy('id').limit(slot(1)),
  );
  const rows = (await query.execute(tx.db, [id, max])).rows as { id: unknown }[];
  return rows.map((row) => Number(row.id));
}
