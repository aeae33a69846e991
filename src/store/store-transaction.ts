// The writes of one transaction, driven by the registry; its unique rules are enforced by
// unique-rules.ts. A create or an update is handed over as one step (writeEntry), the plan's
// plain data, and checked here, in the transaction, from that data: the entry locked, the
// request's precondition, the resource's rule, the references, uniqueness, whether anything
// changes; then written, with its change record. The pipeline asks nothing in between. The
// other steps, which run their own statements on this transaction's parts: a delete and a
// restore (entry-removal.ts), a bulk create (bulk-create.ts).
import type { Transaction } from 'kysely';
import type { DatabaseCapabilities, DatabaseFailure } from '../db/connect.js';
import type { Database, EntryTables } from '../db/database-schema.js';
import { entryNotFound, fieldProblem, validationFailed, type FieldProblem } from '../errors/api-error.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { changedValues, decodeEntry, referenceStates, rowChange, secretContext, type EntryChange, type ReferenceState, type EntrySelections, type Entry, type Row, type RowChange } from './entry-rows.js';
import type { QueryTemplates } from './query-templates.js';
import type { StoreContext } from './store-context.js';
import { serializeChange, type Author, type PendingChange, type SerializedChange } from './change-log.js';
import { readChanges } from './resource-counts.js';
import type { CountChange } from './write-tail.js';
import type { WriteStep } from './write-step.js';
import { refuseUnlessIfMatchHolds } from './entity-tag.js';
import { UniqueConflict, type UniqueRules } from './unique-rules.js';

/** The transaction with the registry's tables (named at run time: EntryTables). */
type EntryTransaction = Transaction<Database & EntryTables>;


export class StoreTransaction {
  /** The transaction, with the registry's tables (the other steps' statements run on it too). */
  readonly db: EntryTransaction;
  /** Changes of resource_counts, which the store gives the transaction's tail, as the work's
   * part, once the work is done (a write refused or rolled back never gets there, and leaves
   * nothing); the tail sums them by table, so that a bulk write of a thousand entries, or a
   * commit group of many writes, updates each count row once. Each moves the table's change
   * counter, the version of its lists. */
  readonly countChanges: CountChange[] = [];
  /** The change log's records of the work, given to the tail the same way. */
  readonly changes: SerializedChange[] = [];
  private readonly knownReferences = new Map<string, ReferenceState>();
  readonly unique: UniqueRules;

  // Copied from the store's context once: the write path reads them at every statement. Read
  // by the delete and restore steps (entry-removal.ts) and the bulk create (bulk-create.ts)
  // too, which run their own statements.
  readonly capabilities: DatabaseCapabilities;
  readonly failureOf: (error: unknown) => DatabaseFailure;
  readonly templates: QueryTemplates;
  readonly selections: EntrySelections;
  private readonly secrets: SecretBox;

  constructor(
    readonly tx: Transaction<Database>,
    context: StoreContext,
    /** Who makes the changes; undefined for work that records none (a token's creation). */
    private readonly author: Author | undefined,
  ) {
    this.db = tx.withTables<EntryTables>();
    this.capabilities = context.handle.capabilities;
    this.failureOf = context.handle.failureOf;
    this.templates = context.templates;
    this.selections = context.selections;
    this.secrets = context.secrets;
    this.unique = context.unique;
  }

  /** A create or an update (the write step), checked and stored: any refusal throws, and
   * nothing is written. An update that changes no field writes nothing: `updated_at` and the
   * entity tag stay. */
  async writeEntry(step: WriteStep): Promise<Entry> {
    const { resource } = step;
    const existing = step.id === undefined ? undefined : await this.lockExisting(resource, step.id, step.ifMatch);
    const change = await this.checkedChange(step, existing);
    if (existing !== undefined && change === undefined) return existing;
    const now = new Date().toISOString();
    let entry: Entry;
    try {
      entry = existing === undefined ? await this.insertChange(resource, change!, now) : await this.updateChange(resource, existing, change!, now);
    } catch (error) {
      throw error instanceof UniqueConflict ? error.problem() : error;
    }
    this.recordWrite(step, existing, entry, change!.values);
    return entry;
  }

  /** The entry `id`, locked for the rest of the transaction, once the request's If-Match holds
   * for it (412 if not); 404 if there is none. */
  async lockExisting(resource: CompiledResource, id: number, ifMatch: string | undefined): Promise<Entry> {
    const existing = await this.lockForWrite(resource, id);
    if (existing === undefined) throw entryNotFound(resource.name, id);
    refuseUnlessIfMatchHolds(ifMatch, existing);
    return existing;
  }

  /** What a write stores, once the resource's rule and the references allow it; undefined for
   * an update that changes no field. */
  async checkedChange(step: WriteStep, existing: Entry | undefined): Promise<EntryChange | undefined> {
    const { resource, references } = step;
    const candidate: Record<string, unknown> = { ...existing, ...step.values };
    const setProblems: FieldProblem[] = [];
    for (const change of step.linkChanges) {
      const held = (candidate[change.field] as number[] | undefined) ?? [];
      const set = [...new Set([...held, ...change.add])].filter((id) => !change.remove.includes(id)).sort((a, b) => a - b);
      // add_tags may only grow the set within the rule the set itself keeps (at most 100).
      const type = resource.fields[change.field]!.type;
      if (!type.check(set)) setProblems.push({ field: change.field, message: type.expectation });
      candidate[change.field] = set;
    }
    const storedSecret = (name: string) => (step.id === undefined ? Promise.resolve(undefined) : this.storedSecret(resource, step.id, name));
    const problems = resource.rule === undefined ? [] : await resource.rule(candidate, { sent: new Set(step.sent), storedSecret });
    problems.unshift(...setProblems);
    // What the write would store, and the states of the entries it points at: both of the entry
    // rows (entry-rows.ts), asked together; a refusal below discards the first.
    const values = await changedValues(resource, step.action, step.values, candidate, existing, storedSecret);
    const change = values === undefined ? undefined : rowChange(resource, values, existing, this.secrets);
    const states = references.length === 0 ? [] : await referenceStates(this.db, this.templates, references, this.knownReferences);
    references.forEach((check, index) => {
      const state = states[index];
      const params = { resource: check.resource.name, id: check.id };
      if (state === 'missing') problems.push(fieldProblem(check.field, 'field.referenceMissing', params));
      else if (state === 'deleted' && check.mustBeLive) problems.push(fieldProblem(check.field, 'field.referenceDeleted', params));
    });
    if (problems.length > 0) throw validationFailed(problems);
    return change;
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
  insert(resource: CompiledResource, values: Record<string, unknown>, now: string, columns: Row = {}): Promise<Entry> {
    return this.insertChange(resource, rowChange(resource, values, undefined, this.secrets), now, columns);
  }

  /** Stores new values of `existing`; throws UniqueConflict when they are taken. */
  update(resource: CompiledResource, existing: Entry, values: Record<string, unknown>, now: string): Promise<Entry> {
    return this.updateChange(resource, existing, rowChange(resource, values, existing, this.secrets), now);
  }

  async insertChange(resource: CompiledResource, change: EntryChange, now: string, columns: Row = {}): Promise<Entry> {
    const newRow = { ...change, row: this.newRow(resource, change.row, now, columns) };
    const entry = await this.unique.enforceCreate(this.db, resource, change.values, (skipConflicts) => this.writeRows(resource, skipConflicts ? 'insert unless taken' : 'insert', newRow));
    this.countChange(resource, 1, 1);
    return entry;
  }

  private async updateChange(resource: CompiledResource, existing: Entry, change: EntryChange, now: string): Promise<Entry> {
    const candidate = { ...existing, ...change.values };
    const write = { ...change, row: { ...change.row, updated_at: now } };
    const entry = await this.unique.enforce(this.db, resource, candidate, existing, async () => (await this.writeRows(resource, 'update', write, existing.id))!);
    this.countChange(resource, 0, 0);
    return entry;
  }

  /** Records a create or an update as the change it is. */
  recordWrite(step: WriteStep, existing: Entry | undefined, entry: Entry, values: Record<string, unknown>): void {
    this.recordChange({ action: step.action, resource: step.resource, entryId: entry.id, before: existing ?? null, after: entry, secretsChanged: secretsChangedBy(step.resource, values) });
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

  /** Notes a change for the change log (contract section 13). */
  recordChange(change: PendingChange): void {
    if (this.author === undefined) throw new Error('this transaction records no changes');
    this.changes.push(serializeChange(change, this.author));
  }

  /** The plain value of a stored secret of an entry. */
  async storedSecret(resource: CompiledResource, id: number, name: string): Promise<string | undefined> {
    const field = resource.fields[name];
    if (field === undefined || !field.writeOnly) throw new Error(`${resource.name}.${name} is not a secret`);
    const row = (await this.db.selectFrom(resource.table).select(field.column).where('id', '=', id).executeTakeFirst()) as Row | undefined;
    const sealed = row?.[field.column];
    return typeof sealed === 'string' ? this.secrets.open(sealed, secretContext(resource, field.column)) : undefined;
  }

  /** The row of a new entry: its values' columns (`encoded`), `columns`, the timestamps, and live. */
  newRow(resource: CompiledResource, encoded: Row, now: string, columns: Row = {}): Row {
    const row: Row = { ...encoded, ...columns, created_at: now, updated_at: now };
    if (resource.deletion.mode === 'soft') row[resource.deletion.liveColumn] = 1;
    return row;
  }

  /** Notes entries added or made live (negative: removed) in `resource`'s table. */
  countChange(resource: CompiledResource, total: number, live: number): void {
    this.countChanges.push({ resource, total, live });
  }

  /** Writes an entry's own row, then the link rows of its sets; the stored entry comes back
   * through RETURNING where the dialect has it, else by reading it again. Undefined when an
   * insert unless taken skipped the row (DatabaseCapabilities.insertSkipsConflicts, which
   * implies RETURNING). */
  private async writeRows(resource: CompiledResource, statement: 'insert' | 'insert unless taken' | 'update', change: RowChange, id?: number): Promise<Entry | undefined> {
    const { row, links } = change;
    const columns = Object.keys(row);
    const returning = statement === 'update' ? this.capabilities.returning : statement === 'insert' ? this.capabilities.insertReturning : true;
    const query = this.templates.get(`${statement} ${resource.table} ${columns.join(',')} ${returning}`, (slot) => {
      const slots = Object.fromEntries(columns.map((column, index) => [column, slot(index)]));
      const write: any =
        statement === 'update'
          ? this.db.updateTable(resource.table).set(slots).where('id', '=', slot(columns.length))
          : statement === 'insert'
            ? this.db.insertInto(resource.table).values(slots)
            : this.db.insertInto(resource.table).values(slots).onConflict((conflict) => conflict.doNothing());
      return returning ? write.returning(resource.storedColumns) : write;
    });
    const result = await query.execute(this.db, id === undefined ? Object.values(row) : [...Object.values(row), id]);
    const stored = result.rows[0] as Row | undefined;
    if (statement === 'insert unless taken' && stored === undefined) return undefined;
    const owner = id ?? Number(returning ? stored!.id : result.insertId);
    for (const { link, added, removed } of links) {
      if (removed.length > 0) await this.db.deleteFrom(link.table).where(link.ownerColumn, '=', owner).where(link.targetColumn, 'in', [...removed]).execute();
      if (added.length === 0) continue;
      // A template per number of ids added (at most a set's bound): a bulk create of 1,000
      // servers with one tag each compiled this insert 1,000 times otherwise.
      const flagged = link.ownerDeletedColumn;
      const width = flagged === undefined ? 2 : 3;
      const insert = this.templates.get(`link ${link.table} ${added.length}`, (slot) =>
        this.db.insertInto(link.table).values(
          added.map((_, index) => ({
            [link.ownerColumn]: slot(index * width),
            [link.targetColumn]: slot(index * width + 1),
            ...(flagged === undefined ? {} : { [flagged]: slot(index * width + 2) }),
          })),
        ),
      );
      await insert.execute(this.db, added.flatMap((target) => (flagged === undefined ? [owner, target] : [owner, target, change.ownerDeleted])));
    }
    const entry = returning ? decodeEntry(resource, stored!) : await this.lockForWrite(resource, owner);
    if (entry === undefined) throw new Error(`${resource.name} ${owner} vanished while written`);
    for (const { name, ids } of links) entry[name] = [...ids];
    return entry;
  }
}

/** The secret fields a write sets. */
export function secretsChangedBy(resource: CompiledResource, values: Record<string, unknown>): string[] {
  return Object.keys(values).filter((name) => resource.fields[name]?.writeOnly === true);
}
