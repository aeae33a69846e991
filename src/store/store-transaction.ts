// The writes of one transaction, driven by the registry; its unique rules are enforced by
// unique-rules.ts.
import type { Transaction } from 'kysely';
import type { DatabaseCapabilities, DatabaseFailure } from '../db/connect.js';
import type { Database, EntryTables } from '../db/database-schema.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { ReferencingField } from '../registry/registry.js';
import type { LinkTable, UniqueRule } from '../registry/resource-definition.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { decodeEntry, encodeValues, secretContext, type EntrySelections, type Entry, type Row } from './entry-rows.js';
import type { QueryTemplates } from './query-templates.js';
import type { StoreContext } from './store-context.js';
import { serializeChange, type Author, type PendingChange, type SerializedChange } from './change-log.js';
import { markLinkOwner, writeLinks, writeNewLinks } from './link-rows.js';
import { readChanges } from './resource-counts.js';
import { rowBatches, slottedRows } from './row-batches.js';
import { addCountChange, type ChangeReceipt, type CountChange, type WriteTail } from './write-tail.js';
import { rethrowAt, UniqueConflict, UniqueRules } from './unique-rules.js';
import { lookUpReferenceStates, referenceKey, type ReferenceState } from './reference-states.js';

/** The transaction with the registry's tables (named at run time: EntryTables). */
type EntryTransaction = Transaction<Database & EntryTables>;

export type { ReferenceState } from './reference-states.js';

// Ids bound in one statement: far under every backend's limit of bound values.
const ROWS_PER_STATEMENT = 500;

export class StoreTransaction {
  private readonly db: EntryTransaction;
  /** Changes of resource_counts of every table changed, handed to the transaction's tail
   * when the work is done (a bulk write of a thousand entries, or a commit group of many
   * writes, then updates each count row once); each moves the table's change counter, the
   * version of its lists. */
  private readonly countChanges = new Map<CompiledResource, CountChange>();
  private readonly knownReferences = new Map<string, ReferenceState>();
  /** The change log's records of this write, handed to the transaction's tail by finish(). */
  private readonly changes: SerializedChange[] = [];
  private readonly unique: UniqueRules;

  // Copied from the store's context once: the write path reads them at every statement.
  private readonly capabilities: DatabaseCapabilities;
  private readonly failureOf: (error: unknown) => DatabaseFailure;
  private readonly templates: QueryTemplates;
  private readonly selections: EntrySelections;
  private readonly secrets: SecretBox;

  constructor(
    readonly tx: Transaction<Database>,
    context: StoreContext,
    /** Who makes the changes; undefined for work that records none (a token's creation). */
    private readonly author: Author | undefined,
    /** Where the counts and change records go when the work is done, written before the commit. */
    private readonly tail: WriteTail,
  ) {
    this.db = tx.withTables<EntryTables>();
    this.capabilities = context.handle.capabilities;
    this.failureOf = context.handle.failureOf;
    this.templates = context.templates;
    this.selections = context.selections;
    this.secrets = context.secrets;
    this.unique = new UniqueRules(this.db, this.capabilities, this.failureOf, this.templates);
  }

  /** Reads an entry and holds it until the transaction ends, so that concurrent writers queue. */
  async lockForWrite(resource: CompiledResource, id: number): Promise<Entry | undefined> {
    const locked = this.capabilities.rowLocks;
    const query = this.templates.get(`byId ${resource.table} ${locked}`, (slot) => {
      const select = this.db.selectFrom(resource.table).select(this.selections.all(resource)).where('id', '=', slot(0));
      return locked ? select.forUpdate() : select;
    });
    const row = (await query.execute(this.db, [id])).rows[0] as Row | undefined;
    return row === undefined ? undefined : decodeEntry(resource, row);
  }

  /** Every entry of `resource` not soft-deleted, ascending by id, as responses show them: what
   * an apply matches its document against. */
  async liveEntries(resource: CompiledResource): Promise<Entry[]> {
    const deletion = resource.deletion;
    const query = this.templates.get(`live entries ${resource.table}`, () => {
      const select = this.db.selectFrom(resource.table).select(this.selections.all(resource)).orderBy('id');
      return deletion.mode === 'soft' ? select.where(deletion.liveColumn, '=', 1) : select;
    });
    const rows = (await query.execute(this.db, [])).rows as Row[];
    return rows.map((row) => decodeEntry(resource, row));
  }

  /** The version of `resource`'s table as this transaction sees it: it moves with every
   * committed change of the table (resource-counts.ts). */
  tableVersion(resource: CompiledResource): Promise<string> {
    return readChanges(this.tx, this.templates, resource, true);
  }

  /** Stores a new entry; throws UniqueConflict when its values are taken. `columns`: columns
   * the service writes beside the fields (a token's digest), never shown. */
  async insert(resource: CompiledResource, values: Record<string, unknown>, now: string, columns: Row = {}): Promise<Entry> {
    const row = this.newRow(resource, values, now, columns);
    const entry = await this.unique.enforceCreate(resource, values, (skipConflicts) =>
      skipConflicts ? this.insertUnlessTaken(resource, row) : this.writeRow(resource, 'insert', row, undefined),
    );
    await writeLinks(this.db, this.templates, resource, entry, values, undefined);
    this.countChange(resource, 1, 1);
    return entry;
  }

  /** Stores new entries, in order, a batch of rows per statement (see row-batches.ts): a bulk
   * create. Throws UniqueConflict naming the position of the first entry whose values are
   * taken. Where the stored rows cannot come back by RETURNING, entry by entry. */
  async insertMany(resource: CompiledResource, valuesList: readonly Record<string, unknown>[], now: string): Promise<Entry[]> {
    const rows = valuesList.map((values) => this.newRow(resource, values, now));
    const columns = Object.keys(rows[0] ?? {});
    const signature = columns.join();
    const sameColumns = rows.every((row) => Object.keys(row).join() === signature);
    if (!this.capabilities.returning || !sameColumns) {
      const entries: Entry[] = [];
      for (const [index, values] of valuesList.entries()) entries.push(await this.insert(resource, values, now).catch((error) => rethrowAt(error, index)));
      return entries;
    }
    if (this.capabilities.failedStatementEndsTransaction) await this.unique.refuseMany(resource, valuesList);
    const entries: Entry[] = [];
    for (const batch of rowBatches(rows)) {
      const query = this.templates.get(`insert ${resource.table} ${signature} x${batch.length}`, (slot) =>
        this.db
          .insertInto(resource.table)
          .values(slottedRows(batch.length, columns, slot))
          .returning(resource.storedColumns),
      );
      let stored: Row[];
      try {
        stored = (await query.execute(this.db, batch.flatMap((row) => Object.values(row)))).rows as Row[];
      } catch (error) {
        // The statement undid itself (where a refused statement leaves the transaction usable):
        // name the first entry of the batch whose values are taken.
        if (!this.capabilities.failedStatementEndsTransaction && this.failureOf(error) === 'unique') {
          for (let index = entries.length; index < entries.length + batch.length; index++) {
            await this.unique.refuse(resource, valuesList[index]!, undefined).catch((refusal) => rethrowAt(refusal, index));
          }
        }
        throw error;
      }
      // Ids are given in the order of the rows; RETURNING does not promise that order.
      stored.sort((a, b) => Number(a.id) - Number(b.id));
      for (const row of stored) entries.push(decodeEntry(resource, row));
    }
    await writeNewLinks(this.db, this.templates, resource, entries, valuesList);
    this.countChange(resource, entries.length, entries.length);
    return entries;
  }

  /** Stores new values of `existing`; throws UniqueConflict when they are taken. */
  async update(resource: CompiledResource, existing: Entry, values: Record<string, unknown>, now: string): Promise<Entry> {
    const row: Row = { ...encodeValues(resource, values, this.secrets), updated_at: now };
    const candidate = { ...existing, ...values };
    const entry = await this.unique.enforce(resource, candidate, existing, () => this.writeRow(resource, 'update', row, existing.id));
    await writeLinks(this.db, this.templates, resource, entry, values, existing);
    this.countChange(resource, 0, 0);
    return entry;
  }

  /** Removes a live entry for good, with its links. */
  async remove(resource: CompiledResource, id: number): Promise<void> {
    for (const [, link] of resource.linkedFields) {
      const unlink = this.templates.get(`unlink owner ${link.table}`, (slot) => this.db.deleteFrom(link.table).where(link.ownerColumn, '=', slot(0)));
      await unlink.execute(this.db, [id]);
    }
    const query = this.templates.get(`delete ${resource.table}`, (slot) => this.db.deleteFrom(resource.table).where('id', '=', slot(0)));
    await query.execute(this.db, [id]);
    this.countChange(resource, -1, -1);
  }

  /** Takes `targetId` out of the sets of `holders` (entriesLinkedTo, which locked them) and
   * of every other entry of `referencing`; the holders are changed, so their `updated_at`
   * moves. They are touched by primary key: `WHERE id IN (SELECT owner …)` made InnoDB lock
   * the link index's gap while waiting for an owner row that a concurrent create had just
   * inserted, whose link insert waited for that gap: a deadlock. */
  async unlinkTarget(referencing: ReferencingField & { link: LinkTable }, targetId: number, holders: readonly number[], now: string): Promise<void> {
    const { resource, link } = referencing;
    for (let start = 0; start < holders.length; start += ROWS_PER_STATEMENT) {
      await this.db.updateTable(resource.table).set({ updated_at: now }).where('id', 'in', holders.slice(start, start + ROWS_PER_STATEMENT)).execute();
    }
    const unlink = this.templates.get(`unlink target ${link.table}`, (slot) => this.db.deleteFrom(link.table).where(link.targetColumn, '=', slot(0)));
    await unlink.execute(this.db, [targetId]);
    if (holders.length > 0) this.countChange(resource, 0, 0);
  }

  /** Brings a soft-deleted entry back; throws UniqueConflict when a live entry now holds its
   * values of a rule among live entries. */
  async restore(resource: CompiledResource, existing: Entry, now: string): Promise<Entry> {
    const deletion = resource.deletion;
    if (deletion.mode !== 'soft') throw new Error(`${resource.name} is not soft-deleted`);
    const flag = resource.fields[deletion.flagField]!;
    // Restored, the entry takes part in the rules among live entries again: look first, and
    // let the unique index catch what races past the look.
    const taken: UniqueRule[] = [];
    for (const rule of resource.unique) {
      if (rule.amongLive && (await this.unique.isTaken(resource, rule, [existing], existing.id))) taken.push(rule);
    }
    if (taken.length > 0) throw new UniqueConflict(taken);
    const query = this.templates.get(`restore ${resource.table}`, (slot) =>
      this.db
        .updateTable(resource.table)
        .set({ [flag.column]: 0, [deletion.liveColumn]: 1, updated_at: slot(0) })
        .where('id', '=', slot(1)),
    );
    try {
      await query.execute(this.db, [now, existing.id]);
    } catch (error) {
      if (this.failureOf(error) === 'unique') throw new UniqueConflict(resource.unique.filter((rule) => rule.amongLive));
      throw error;
    }
    await markLinkOwner(this.db, this.templates, resource, existing.id, 0);
    this.countChange(resource, 0, 1);
    return { ...existing, [deletion.flagField]: 0, updated_at: now };
  }

  /** Notes a change for the change log (contract section 13), handed to the tail by finish(). */
  recordChange(change: PendingChange): void {
    if (this.author === undefined) throw new Error('this transaction records no changes');
    this.changes.push(serializeChange(change, this.author));
  }

  /** Hands what the work left pending to the transaction's tail, as the work's last step (a
   * write refused or rolled back never gets here, and adds nothing). The receipt tells the id
   * of the write's last change record once the tail is written. */
  finish(): ChangeReceipt {
    const receipt = this.tail.add(this.countChanges, this.changes);
    this.countChanges.clear();
    this.changes.length = 0;
    return receipt;
  }

  /** The entries of `referencing` whose set holds `targetId`, as responses show them, locked
   * (with their links) until the transaction ends: what a delete of the target is about to
   * change (unlinkTarget), and the before of their change records. */
  async entriesLinkedTo(referencing: ReferencingField & { link: LinkTable }, targetId: number): Promise<Entry[]> {
    const { resource, link } = referencing;
    const locked = this.capabilities.rowLocks;
    const query = this.templates.get(`linked to ${resource.table} ${link.table} ${locked}`, (slot) => {
      const select = this.db
        .selectFrom(resource.table)
        .select(this.selections.all(resource))
        .where('id', 'in', this.db.selectFrom(link.table).select(link.ownerColumn).where(link.targetColumn, '=', slot(0)))
        .orderBy('id');
      return locked ? select.forUpdate() : select;
    });
    const rows = (await query.execute(this.db, [targetId])).rows as Row[];
    return rows.map((row) => decodeEntry(resource, row));
  }

  /** Marks an entry deleted and takes it out of the live uniqueness rules. */
  async softDelete(resource: CompiledResource, id: number, now: string): Promise<void> {
    const deletion = resource.deletion;
    if (deletion.mode !== 'soft') throw new Error(`${resource.name} is not soft-deleted`);
    const flag = resource.fields[deletion.flagField]!;
    const query = this.templates.get(`soft delete ${resource.table}`, (slot) =>
      this.db
        .updateTable(resource.table)
        .set({ [flag.column]: 1, [deletion.liveColumn]: null, updated_at: slot(0) })
        .where('id', '=', slot(1)),
    );
    await query.execute(this.db, [now, id]);
    await markLinkOwner(this.db, this.templates, resource, id, 1);
    this.countChange(resource, 0, -1);
  }

  /** What the entries pointed at are, in the order of `references`: each looked up once per
   * transaction (the entries of a bulk write often point at the same few: one tag, one
   * client), and those not yet known in one statement (reference-states.ts). */
  async referenceStates(references: readonly { readonly resource: CompiledResource; readonly id: number }[]): Promise<ReferenceState[]> {
    const wanted = new Map<CompiledResource, number[]>();
    for (const { resource, id } of references) {
      if (this.knownReferences.has(referenceKey(resource, id))) continue;
      const ids = wanted.get(resource);
      if (ids === undefined) wanted.set(resource, [id]);
      else if (!ids.includes(id)) ids.push(id);
    }
    await lookUpReferenceStates(this.db, this.templates, wanted, this.knownReferences);
    return references.map(({ resource, id }) => this.knownReferences.get(referenceKey(resource, id))!);
  }

  /** Ids of the entries of `resource` whose `field` points at `id`, at most `max`. */
  async idsReferencing(resource: CompiledResource, field: string, id: number, max: number): Promise<number[]> {
    const column = resource.fields[field]!.column;
    const query = this.templates.get(`referencing ${resource.table} ${column}`, (slot) =>
      this.db.selectFrom(resource.table).select('id').where(column, '=', slot(0)).orderBy('id').limit(slot(1)),
    );
    const rows = (await query.execute(this.db, [id, max])).rows as { id: unknown }[];
    return rows.map((row) => Number(row.id));
  }

  /** The plain value of a stored secret of an entry. */
  async storedSecret(resource: CompiledResource, id: number, name: string): Promise<string | undefined> {
    const field = resource.fields[name];
    if (field === undefined || !field.writeOnly) throw new Error(`${resource.name}.${name} is not a secret`);
    const row = (await this.db.selectFrom(resource.table).select(field.column).where('id', '=', id).executeTakeFirst()) as Row | undefined;
    const sealed = row?.[field.column];
    return typeof sealed === 'string' ? this.secrets.open(sealed, secretContext(resource, field.column)) : undefined;
  }

  /** The row of a new entry: its values' columns, `columns`, the timestamps, and live. */
  private newRow(resource: CompiledResource, values: Record<string, unknown>, now: string, columns: Row = {}): Row {
    const row: Row = { ...encodeValues(resource, values, this.secrets), ...columns, created_at: now, updated_at: now };
    if (resource.deletion.mode === 'soft') row[resource.deletion.liveColumn] = 1;
    return row;
  }

  private countChange(resource: CompiledResource, total: number, live: number): void {
    addCountChange(this.countChanges, resource, total, live);
  }

  /** Inserts `row` unless its unique values are taken (no row then); see
   * DatabaseCapabilities.insertSkipsConflicts, which implies RETURNING. */
  private async insertUnlessTaken(resource: CompiledResource, row: Row): Promise<Entry | undefined> {
    const columns = Object.keys(row);
    const query = this.templates.get(`insert unless taken ${resource.table} ${columns.join(',')}`, (slot) =>
      this.db
        .insertInto(resource.table)
        .values(Object.fromEntries(columns.map((column, index) => [column, slot(index)])))
        .onConflict((conflict) => conflict.doNothing())
        .returning(resource.storedColumns),
    );
    const stored = (await query.execute(this.db, Object.values(row))).rows[0] as Row | undefined;
    return stored === undefined ? undefined : decodeEntry(resource, stored);
  }

  /** Runs an insert or update template over `row`'s columns; the stored entry comes back
   * through RETURNING where the dialect has it, else by reading it again. */
  private async writeRow(resource: CompiledResource, statement: 'insert' | 'update', row: Row, id: number | undefined): Promise<Entry> {
    const columns = Object.keys(row);
    const returning = statement === 'insert' ? this.capabilities.insertReturning : this.capabilities.returning;
    const query = this.templates.get(`${statement} ${resource.table} ${columns.join(',')} ${returning}`, (slot) => {
      const slots = Object.fromEntries(columns.map((column, index) => [column, slot(index)]));
      const write: any =
        statement === 'insert'
          ? this.db.insertInto(resource.table).values(slots)
          : this.db.updateTable(resource.table).set(slots).where('id', '=', slot(columns.length));
      return returning ? write.returning(resource.storedColumns) : write;
    });
    const result = await query.execute(this.db, id === undefined ? Object.values(row) : [...Object.values(row), id]);
    if (returning) return decodeEntry(resource, result.rows[0] as Row);
    const entry = await this.lockForWrite(resource, id ?? Number(result.insertId));
    if (entry === undefined) throw new Error(`${resource.name} ${id ?? result.insertId} vanished while written`);
    return entry;
  }
}
