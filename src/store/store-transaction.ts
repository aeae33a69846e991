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
import { changedValues, decodeEntry, encodeValues, secretContext, writeLinks, type EntrySelections, type Entry, type Row } from './entry-rows.js';
import type { QueryTemplates } from './query-templates.js';
import type { StoreContext } from './store-context.js';
import { serializeChange, type Author, type PendingChange, type SerializedChange } from './change-log.js';
import { readChanges } from './resource-counts.js';
import { addCountChange, type ChangeReceipt, type CountChange, type WriteTail } from './write-tail.js';
import { UniqueConflict, UniqueRules } from './unique-rules.js';
import { lookUpReferenceStates, referenceKey, type ReferenceState } from './reference-states.js';

/** The transaction with the registry's tables (named at run time: EntryTables). */
type EntryTransaction = Transaction<Database & EntryTables>;

export type { ReferenceState } from './reference-states.js';

/** A reference a write sets, to be checked in its transaction. */
export interface ReferenceCheck {
  readonly field: string;
  /** The resource pointed at. */
  readonly resource: CompiledResource;
  readonly id: number;
  readonly mustBeLive: boolean;
}

/** Ids a write adds to or takes out of a set (PATCH's add_tags, remove_tags). */
export interface LinkChange {
  readonly field: string;
  readonly add: readonly number[];
  readonly remove: readonly number[];
}

/** A create or an update as planned (the write plan is one): plain data, which writeEntry
 * checks and stores. */
export interface WriteStep {
  readonly action: 'create' | 'update';
  readonly resource: CompiledResource;
  /** The entry to update; undefined for a create. */
  readonly id: number | undefined;
  /** The values the body sets, in canonical form. */
  readonly values: Readonly<Record<string, unknown>>;
  /** The fields the body sent (the resource's rule reads them). */
  readonly sent: readonly string[];
  readonly linkChanges: readonly LinkChange[];
  readonly references: readonly ReferenceCheck[];
}

/** A request's precondition (If-Match), checked against the entry as locked: throws if it
 * fails. Given by the pipeline, whose entity tags these are. */
export type Precondition = (current: Entry) => void;


export class StoreTransaction {
  /** The transaction, with the registry's tables (the other steps' statements run on it too). */
  readonly db: EntryTransaction;
  /** Changes of resource_counts of every table changed, handed to the transaction's tail
   * when the work is done (a bulk write of a thousand entries, or a commit group of many
   * writes, then updates each count row once); each moves the table's change counter, the
   * version of its lists. */
  private readonly countChanges = new Map<CompiledResource, CountChange>();
  private readonly knownReferences = new Map<string, ReferenceState>();
  /** The change log's records of this write, handed to the transaction's tail by finish(). */
  private readonly changes: SerializedChange[] = [];
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

  /** A create or an update (the write step), checked and stored: any refusal throws, and
   * nothing is written. An update that changes no field writes nothing: `updated_at` and the
   * entity tag stay. */
  async writeEntry(step: WriteStep, precondition?: Precondition): Promise<Entry> {
    const { resource } = step;
    const existing = step.id === undefined ? undefined : await this.lockExisting(resource, step.id, precondition);
    const values = await this.checkedValues(step, existing);
    if (existing !== undefined && values === undefined) return existing;
    const now = new Date().toISOString();
    let entry: Entry;
    try {
      entry = existing === undefined ? await this.insert(resource, values!, now) : await this.update(resource, existing, values!, now);
    } catch (error) {
      throw error instanceof UniqueConflict ? error.problem() : error;
    }
    this.recordWrite(step, existing, entry, values!);
    return entry;
  }

  /** The entry `id`, locked for the rest of the transaction, once `precondition` holds for it; 404 if there is none. */
  async lockExisting(resource: CompiledResource, id: number, precondition: Precondition | undefined): Promise<Entry> {
    const existing = await this.lockForWrite(resource, id);
    if (existing === undefined) throw entryNotFound(resource.name, id);
    precondition?.(existing);
    return existing;
  }

  /** The values a write stores, once the resource's rule and the references allow them;
   * undefined for an update that changes no field. */
  async checkedValues(step: WriteStep, existing: Entry | undefined): Promise<Record<string, unknown> | undefined> {
    const { resource } = step;
    const candidate: Record<string, unknown> = { ...existing, ...step.values };
    for (const change of step.linkChanges) {
      const held = (candidate[change.field] as number[] | undefined) ?? [];
      candidate[change.field] = [...new Set([...held, ...change.add])].filter((id) => !change.remove.includes(id)).sort((a, b) => a - b);
    }
    const storedSecret = (name: string) => (step.id === undefined ? Promise.resolve(undefined) : this.storedSecret(resource, step.id, name));
    const problems = await ruleProblems(step, candidate, storedSecret);
    problems.push(...(await this.referenceProblems(step)));
    if (problems.length > 0) throw validationFailed(problems);
    return changedValues(resource, step.action, step.values, candidate, existing, storedSecret);
  }

  private async referenceProblems(step: WriteStep): Promise<FieldProblem[]> {
    const problems: FieldProblem[] = [];
    if (step.references.length === 0) return problems;
    const states = await this.referenceStates(step.references);
    step.references.forEach((check, index) => {
      const state = states[index];
      const params = { resource: check.resource.name, id: check.id };
      if (state === 'missing') problems.push(fieldProblem(check.field, 'field.referenceMissing', params));
      else if (state === 'deleted' && check.mustBeLive) problems.push(fieldProblem(check.field, 'field.referenceDeleted', params));
    });
    return problems;
  }

  /** Records a create or an update as the change it is. */
  recordWrite(step: WriteStep, existing: Entry | undefined, entry: Entry, values: Record<string, unknown>): void {
    const { resource } = step;
    this.recordChange({ action: step.action, resource, entryId: entry.id, before: existing ?? null, after: entry, secretsChanged: secretsChangedBy(resource, values) });
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

  /** The plain value of a stored secret of an entry. */
  async storedSecret(resource: CompiledResource, id: number, name: string): Promise<string | undefined> {
    const field = resource.fields[name];
    if (field === undefined || !field.writeOnly) throw new Error(`${resource.name}.${name} is not a secret`);
    const row = (await this.db.selectFrom(resource.table).select(field.column).where('id', '=', id).executeTakeFirst()) as Row | undefined;
    const sealed = row?.[field.column];
    return typeof sealed === 'string' ? this.secrets.open(sealed, secretContext(resource, field.column)) : undefined;
  }

  /** The row of a new entry: its values' columns, `columns`, the timestamps, and live. */
  newRow(resource: CompiledResource, values: Record<string, unknown>, now: string, columns: Row = {}): Row {
    const row: Row = { ...encodeValues(resource, values, this.secrets), ...columns, created_at: now, updated_at: now };
    if (resource.deletion.mode === 'soft') row[resource.deletion.liveColumn] = 1;
    return row;
  }

  /** Notes entries added or made live (negative: removed) in `resource`'s table. */
  countChange(resource: CompiledResource, total: number, live: number): void {
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

/** The resource's own rule, on the entry as it would be stored (it may set fields in it). */
function ruleProblems(step: WriteStep, candidate: Record<string, unknown>, storedSecret: (name: string) => Promise<string | undefined>): Promise<FieldProblem[]> | FieldProblem[] {
  const rule = step.resource.rule;
  if (rule === undefined) return [];
  return rule(candidate, { sent: new Set(step.sent), storedSecret });
}

/** The secret fields a write sets. */
export function secretsChangedBy(resource: CompiledResource, values: Record<string, unknown>): string[] {
  return Object.keys(values).filter((name) => resource.fields[name]?.writeOnly === true);
}

/** A create's values once the resource's rule allows them, for a create run without a
 * transaction (ResourceStore.createAlone): one that sets no reference and no set. */
export async function newEntryValues(step: WriteStep): Promise<Record<string, unknown>> {
  const candidate: Record<string, unknown> = { ...step.values };
  const problems = await ruleProblems(step, candidate, () => Promise.resolve(undefined));
  if (problems.length > 0) throw validationFailed(problems);
  return (await changedValues(step.resource, step.action, step.values, candidate, undefined, () => Promise.resolve(undefined)))!;
}
