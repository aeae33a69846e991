// Storage for every resource, driven by the registry: one code path for all tables. Columns
// and tables come from the registry, never from a request, and values are always bound.
import { sql, type Kysely } from 'kysely';
import type { ListQuery } from '../pipeline/list-query.js';
import { CommitGroup } from './commit-group.js';
import { PreparedQueries, type SlotMaker } from './prepared-query.js';
import type { ResourceDefinition, UniqueRule } from '../registry/resource-definition.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { DatabaseCapabilities, DatabaseHandle } from './connect.js';
import type { Database } from './database-schema.js';

/** An entry as the API shows it: id, the readable fields, then the timestamps. */
export type Entry = Record<string, unknown> & { id: number };

/** The database, or a transaction on it. */
export type Executor = Kysely<Database>;

// Generic code over tables named at run time: the registry, not the compiler, vouches for them.
type AnyDb = Kysely<any>;

export type ReferenceState = 'live' | 'deleted' | 'missing';

function secretContext(resource: ResourceDefinition, column: string): string {
  return `${resource.table}.${column}`;
}

/** Every write-only (sealed) column of these resources, with the context it is sealed in. */
function* secretColumns(resources: readonly ResourceDefinition[]): Generator<{ resource: ResourceDefinition; column: string; context: string }> {
  for (const resource of resources) {
    for (const field of Object.values(resource.fields)) {
      if (field.writeOnly) yield { resource, column: field.column, context: secretContext(resource, field.column) };
    }
  }
}

export class ResourceStore {
  private readonly queries = new PreparedQueries();
  private readonly commitGroup: CommitGroup | undefined;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly secrets: SecretBox,
  ) {
    if (handle.capabilities.groupCommit) this.commitGroup = new CommitGroup(handle.db);
  }

  get db(): Executor {
    return this.handle.db;
  }

  get capabilities(): DatabaseCapabilities {
    return this.handle.capabilities;
  }

  transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    return this.commitGroup === undefined ? this.handle.db.transaction().execute(work) : this.commitGroup.run(work);
  }

  private readableColumns(resource: ResourceDefinition): string[] {
    const columns = Object.values(resource.fields)
      .filter((field) => !field.writeOnly)
      .map((field) => field.column);
    return ['id', ...columns, 'created_at', 'updated_at'];
  }

  private decode(resource: ResourceDefinition, row: Record<string, unknown>): Entry {
    const entry: Entry = { id: Number(row.id) };
    for (const [name, field] of Object.entries(resource.fields)) {
      if (!field.writeOnly) entry[name] = field.type.fromColumn(row[field.column]);
    }
    entry.created_at = row.created_at;
    entry.updated_at = row.updated_at;
    return entry;
  }

  /** Field values (API names, canonical values) to a row; secrets are sealed here. */
  private encode(resource: ResourceDefinition, values: Record<string, unknown>): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(values)) {
      const field = resource.fields[name];
      if (field === undefined) continue;
      row[field.column] = field.writeOnly
        ? this.secrets.seal(String(value), secretContext(resource, field.column))
        : field.type.toColumn(value);
    }
    return row;
  }

  /** `lock`: hold the row until the transaction ends, so that concurrent writers queue. */
  async findById(tx: Executor, resource: ResourceDefinition, id: number, lock = false): Promise<Entry | undefined> {
    const locked = lock && this.handle.capabilities.rowLocks;
    const query = this.queries.get(`byId ${resource.table} ${locked}`, (slot) => {
      const select = (tx as AnyDb).selectFrom(resource.table).select(this.readableColumns(resource)).where('id', '=', slot(0));
      return locked ? select.forUpdate() : select;
    });
    const row = (await query.execute(tx, [id])).rows[0];
    return row === undefined ? undefined : this.decode(resource, row);
  }

  async list(tx: Executor, resource: ResourceDefinition, list: ListQuery): Promise<{ items: Entry[]; total: number }> {
    const hideDeleted = resource.deletion.mode === 'soft' && !list.includeDeleted;
    const flagColumn = resource.deletion.mode === 'soft' ? resource.fields[resource.deletion.flagField]?.column : undefined;
    const search = list.search !== undefined && list.search.columns.length > 0 ? list.search : undefined;
    // Slots: the filter values, then the search pattern, then limit and offset.
    const values: unknown[] = list.filters.map((filter) => filter.value);
    // `!` escapes LIKE wildcards: unlike a backslash, it means the same in every dialect's literals.
    if (search !== undefined) values.push(`%${search.text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`);
    const matching = (slot: SlotMaker) => {
      let query = (tx as AnyDb).selectFrom(resource.table);
      if (hideDeleted && flagColumn !== undefined) query = query.where(flagColumn, '=', 0);
      list.filters.forEach((filter, index) => {
        query = query.where(filter.column, '=', slot(index));
      });
      if (search !== undefined) {
        const pattern = slot(list.filters.length);
        query = query.where((eb: any) => eb.or(search.columns.map((column) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '!'`)));
      }
      return query;
    };
    const where = `${hideDeleted} ${list.filters.map((filter) => filter.column).join(',')} ${search?.columns.join(',') ?? '-'}`;
    const sort = list.sort.map((key) => `${key.column}${key.descending ? '-' : '+'}`).join(',');
    const page = this.queries.get(`page ${resource.table} ${where} ${sort}`, (slot) => {
      let query = matching(slot).select(this.readableColumns(resource));
      for (const key of list.sort) query = query.orderBy(key.column, key.descending ? 'desc' : 'asc');
      return query.limit(slot(values.length)).offset(slot(values.length + 1));
    });
    const rows = (await page.execute(tx, [...values, list.limit, list.offset])).rows;
    const items = rows.map((row: Record<string, unknown>) => this.decode(resource, row));

    let total: number;
    if (list.filters.length === 0 && search === undefined) {
      total = await this.count(tx, resource, hideDeleted ? 'live' : 'total');
    } else {
      const count = this.queries.get(`count ${resource.table} ${where}`, (slot) =>
        matching(slot).select((eb: any) => eb.fn.countAll().as('total')),
      );
      total = Number(((await count.execute(tx, values)).rows[0] as { total: unknown } | undefined)?.total ?? 0);
    }
    return { items, total };
  }

  private async count(tx: Executor, resource: ResourceDefinition, which: 'live' | 'total'): Promise<number> {
    const query = this.queries.get('counts', (slot) =>
      tx.selectFrom('resource_counts').select(['total', 'live']).where('table_name', '=', slot(0)),
    );
    const row = (await query.execute(tx, [resource.table])).rows[0];
    if (row === undefined) throw new Error(`resource_counts has no row for ${resource.table}`);
    return Number(row[which]);
  }

  /** Keeps resource_counts in step with an insert (+1) or a delete (-1), in the same transaction. */
  private async adjustCount(tx: Executor, resource: ResourceDefinition, total: number, live: number): Promise<void> {
    const query = this.queries.get('adjust counts', (slot) =>
      tx
        .updateTable('resource_counts')
        .set((eb) => ({ total: eb('total', '+', slot(0)), live: eb('live', '+', slot(1)) }))
        .where('table_name', '=', slot(2)),
    );
    await query.execute(tx, [total, live, resource.table]);
  }

  /** Runs an insert or update shape built over `row`'s columns; the stored entry comes back
   * through RETURNING where the dialect has it, else by reading it again. */
  private async writeRow(
    tx: Executor,
    resource: ResourceDefinition,
    kind: 'insert' | 'update',
    row: Record<string, unknown>,
    id: number | undefined,
  ): Promise<Entry> {
    const columns = Object.keys(row);
    const returning = this.handle.capabilities.returning;
    const query = this.queries.get(`${kind} ${resource.table} ${columns.join(',')}`, (slot) => {
      const slots = Object.fromEntries(columns.map((column, index) => [column, slot(index)]));
      const write: any =
        kind === 'insert'
          ? (tx as AnyDb).insertInto(resource.table).values(slots)
          : (tx as AnyDb).updateTable(resource.table).set(slots).where('id', '=', slot(columns.length));
      return returning ? write.returning(this.readableColumns(resource)) : write;
    });
    const result = await query.execute(tx, id === undefined ? Object.values(row) : [...Object.values(row), id]);
    if (returning) return this.decode(resource, result.rows[0] as Record<string, unknown>);
    const entry = await this.findById(tx, resource, id ?? Number(result.insertId));
    if (entry === undefined) throw new Error(`${resource.name} ${id ?? result.insertId} vanished while written`);
    return entry;
  }

  async insert(tx: Executor, resource: ResourceDefinition, values: Record<string, unknown>, now: string): Promise<Entry> {
    const row: Record<string, unknown> = { ...this.encode(resource, values), created_at: now, updated_at: now };
    if (resource.deletion.mode === 'soft') row[resource.deletion.liveColumn] = 1;
    const entry = await this.writeRow(tx, resource, 'insert', row, undefined);
    await this.adjustCount(tx, resource, 1, 1);
    return entry;
  }

  async update(tx: Executor, resource: ResourceDefinition, id: number, values: Record<string, unknown>, now: string): Promise<Entry> {
    return this.writeRow(tx, resource, 'update', { ...this.encode(resource, values), updated_at: now }, id);
  }

  /** Removes a live entry for good. */
  async remove(tx: Executor, resource: ResourceDefinition, id: number): Promise<void> {
    const query = this.queries.get(`delete ${resource.table}`, (slot) => (tx as AnyDb).deleteFrom(resource.table).where('id', '=', slot(0)));
    await query.execute(tx, [id]);
    await this.adjustCount(tx, resource, -1, -1);
  }

  /** Marks an entry deleted and takes it out of the live uniqueness rules. */
  async softDelete(tx: Executor, resource: ResourceDefinition, id: number, now: string): Promise<void> {
    const deletion = resource.deletion;
    if (deletion.mode !== 'soft') throw new Error(`${resource.name} is not soft-deleted`);
    const flag = resource.fields[deletion.flagField];
    if (flag === undefined) throw new Error(`${resource.name} has no field ${deletion.flagField}`);
    const query = this.queries.get(`soft delete ${resource.table}`, (slot) =>
      (tx as AnyDb)
        .updateTable(resource.table)
        .set({ [flag.column]: 1, [deletion.liveColumn]: null, updated_at: slot(0) })
        .where('id', '=', slot(1)),
    );
    await query.execute(tx, [now, id]);
    await this.adjustCount(tx, resource, 0, -1);
  }

  /** Whether another entry already holds these values of a unique rule. */
  async isTaken(
    tx: Executor,
    resource: ResourceDefinition,
    rule: UniqueRule,
    values: Record<string, unknown>,
    exceptId: number | undefined,
  ): Promise<boolean> {
    const fields = rule.fields.map((name) => {
      const field = resource.fields[name];
      if (field === undefined) throw new Error(`${resource.name} has no field ${name}`);
      return field;
    });
    const amongLive = rule.amongLive && resource.deletion.mode === 'soft' ? resource.deletion.liveColumn : undefined;
    const query = this.queries.get(`taken ${resource.table} ${rule.fields.join(',')} ${amongLive ?? '-'} ${exceptId !== undefined}`, (slot) => {
      let select = (tx as AnyDb).selectFrom(resource.table).select('id');
      fields.forEach((field, index) => {
        select = select.where(field.column, '=', slot(index));
      });
      if (amongLive !== undefined) select = select.where(amongLive, '=', 1);
      if (exceptId !== undefined) select = select.where('id', '<>', slot(fields.length));
      return select.limit(1);
    });
    const slots = rule.fields.map((name, index) => fields[index]!.type.toColumn(values[name]));
    if (exceptId !== undefined) slots.push(exceptId);
    return (await query.execute(tx, slots)).rows.length > 0;
  }

  async referenceState(tx: Executor, resource: ResourceDefinition, id: number): Promise<ReferenceState> {
    const columns = resource.deletion.mode === 'soft' ? ['id', resource.deletion.liveColumn] : ['id'];
    const query = this.queries.get(`reference ${resource.table}`, (slot) =>
      (tx as AnyDb).selectFrom(resource.table).select(columns).where('id', '=', slot(0)),
    );
    const row = (await query.execute(tx, [id])).rows[0] as Record<string, unknown> | undefined;
    if (row === undefined) return 'missing';
    if (resource.deletion.mode === 'soft' && row[resource.deletion.liveColumn] === null) return 'deleted';
    return 'live';
  }

  /** Ids of the entries of `resource` whose `field` points at `id`. */
  async idsReferencing(tx: Executor, resource: ResourceDefinition, field: string, id: number, max: number): Promise<number[]> {
    const column = resource.fields[field]?.column;
    if (column === undefined) throw new Error(`${resource.name} has no field ${field}`);
    const query = this.queries.get(`referencing ${resource.table} ${column}`, (slot) =>
      (tx as AnyDb).selectFrom(resource.table).select('id').where(column, '=', slot(0)).orderBy('id').limit(slot(1)),
    );
    const rows = (await query.execute(tx, [id, max])).rows as { id: unknown }[];
    return rows.map((row) => Number(row.id));
  }

  /**
   * Opens one stored secret of each kind, so that a wrong SECRET_KEY (or a lost key file)
   * stops the start-up instead of failing later on the first write that needs the key.
   */
  async secretsReadable(resources: readonly ResourceDefinition[]): Promise<boolean> {
    for (const { resource, column, context } of secretColumns(resources)) {
      const row = await (this.db as AnyDb).selectFrom(resource.table).select(column).limit(1).executeTakeFirst();
      const sealed = row?.[column];
      if (typeof sealed !== 'string') continue;
      try {
        this.secrets.open(sealed, context);
      } catch {
        return false;
      }
    }
    return true;
  }

  /**
   * Re-seals every stored secret, sealed so far by `previous`, with this store's box, in one
   * transaction: either every secret moves to the new key or none does.
   */
  async resealSecrets(resources: readonly ResourceDefinition[], previous: SecretBox): Promise<number> {
    return this.transaction(async (tx) => {
      let count = 0;
      for (const { resource, column, context } of secretColumns(resources)) {
        const rows = await (tx as AnyDb).selectFrom(resource.table).select(['id', column]).execute();
        for (const row of rows as Record<string, unknown>[]) {
          const sealed = row[column];
          if (typeof sealed !== 'string') continue;
          const resealed = this.secrets.seal(previous.open(sealed, context), context);
          await (tx as AnyDb).updateTable(resource.table).set({ [column]: resealed }).where('id', '=', row.id).execute();
          count += 1;
        }
      }
      return count;
    });
  }

  async storedSecret(tx: Executor, resource: ResourceDefinition, id: number, name: string): Promise<string | undefined> {
    const field = resource.fields[name];
    if (field === undefined || !field.writeOnly) throw new Error(`${resource.name}.${name} is not a secret`);
    const row = await (tx as AnyDb).selectFrom(resource.table).select(field.column).where('id', '=', id).executeTakeFirst();
    const sealed = row?.[field.column];
    return typeof sealed === 'string' ? this.secrets.open(sealed, secretContext(resource, field.column)) : undefined;
  }
}
