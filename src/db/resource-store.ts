// Storage for every resource, driven by the registry: one code path for all tables. Columns
// and tables come from the registry, never from a request, and values are always bound.
import { sql, type Kysely } from 'kysely';
import type { ListQuery } from '../pipeline/list-query.js';
import type { ResourceDefinition, UniqueRule } from '../registry/resource-definition.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { DatabaseHandle } from './connect.js';
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
  constructor(
    private readonly handle: DatabaseHandle,
    private readonly secrets: SecretBox,
  ) {}

  get db(): Executor {
    return this.handle.db;
  }

  transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    return this.handle.db.transaction().execute(work);
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
    let query = (tx as AnyDb).selectFrom(resource.table).select(this.readableColumns(resource)).where('id', '=', id);
    if (lock && this.handle.capabilities.rowLocks) query = query.forUpdate();
    const row = await query.executeTakeFirst();
    return row === undefined ? undefined : this.decode(resource, row);
  }

  async list(tx: Executor, resource: ResourceDefinition, list: ListQuery): Promise<{ items: Entry[]; total: number }> {
    let query = (tx as AnyDb).selectFrom(resource.table);
    const hideDeleted = resource.deletion.mode === 'soft' && !list.includeDeleted;
    if (hideDeleted && resource.deletion.mode === 'soft') {
      const flag = resource.fields[resource.deletion.flagField];
      if (flag !== undefined) query = query.where(flag.column, '=', 0);
    }
    for (const filter of list.filters) query = query.where(filter.column, '=', filter.value);
    if (list.search !== undefined && list.search.columns.length > 0) {
      // `!` escapes LIKE wildcards: unlike a backslash, it means the same in every dialect's literals.
      const pattern = `%${list.search.text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
      const columns = list.search.columns;
      query = query.where((eb: any) => eb.or(columns.map((column) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '!'`)));
    }
    let page = query.select(this.readableColumns(resource));
    for (const key of list.sort) page = page.orderBy(key.column, key.descending ? 'desc' : 'asc');
    const rows = await page.limit(list.limit).offset(list.offset).execute();
    const items = rows.map((row: Record<string, unknown>) => this.decode(resource, row));

    const unfiltered = list.filters.length === 0 && list.search === undefined;
    const total = unfiltered
      ? await this.count(tx, resource, hideDeleted ? 'live' : 'total')
      : Number((await query.select((eb: any) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow() as { total: unknown }).total);
    return { items, total };
  }

  private async count(tx: Executor, resource: ResourceDefinition, which: 'live' | 'total'): Promise<number> {
    const row = await tx.selectFrom('resource_counts').select(['total', 'live']).where('table_name', '=', resource.table).executeTakeFirstOrThrow();
    return Number(row[which]);
  }

  /** Keeps resource_counts in step with an insert (+1) or a delete (-1), in the same transaction. */
  private async adjustCount(tx: Executor, resource: ResourceDefinition, total: number, live: number): Promise<void> {
    await tx
      .updateTable('resource_counts')
      .set((eb) => ({ total: eb('total', '+', total), live: eb('live', '+', live) }))
      .where('table_name', '=', resource.table)
      .execute();
  }

  async insert(tx: Executor, resource: ResourceDefinition, values: Record<string, unknown>, now: string): Promise<number> {
    const row: Record<string, unknown> = { ...this.encode(resource, values), created_at: now, updated_at: now };
    if (resource.deletion.mode === 'soft') row[resource.deletion.liveColumn] = 1;
    const insert = (tx as AnyDb).insertInto(resource.table).values(row);
    let id: number;
    if (this.handle.capabilities.returning) {
      id = Number((await insert.returning('id').executeTakeFirstOrThrow()).id);
    } else {
      id = Number((await insert.executeTakeFirstOrThrow()).insertId);
    }
    await this.adjustCount(tx, resource, 1, 1);
    return id;
  }

  async update(tx: Executor, resource: ResourceDefinition, id: number, values: Record<string, unknown>, now: string): Promise<void> {
    const row = { ...this.encode(resource, values), updated_at: now };
    await (tx as AnyDb).updateTable(resource.table).set(row).where('id', '=', id).execute();
  }

  /** Removes a live entry for good. */
  async remove(tx: Executor, resource: ResourceDefinition, id: number): Promise<void> {
    await (tx as AnyDb).deleteFrom(resource.table).where('id', '=', id).execute();
    await this.adjustCount(tx, resource, -1, -1);
  }

  /** Marks an entry deleted and takes it out of the live uniqueness rules. */
  async softDelete(tx: Executor, resource: ResourceDefinition, id: number, now: string): Promise<void> {
    if (resource.deletion.mode !== 'soft') throw new Error(`${resource.name} is not soft-deleted`);
    const flag = resource.fields[resource.deletion.flagField];
    if (flag === undefined) throw new Error(`${resource.name} has no field ${resource.deletion.flagField}`);
    await (tx as AnyDb)
      .updateTable(resource.table)
      .set({ [flag.column]: 1, [resource.deletion.liveColumn]: null, updated_at: now })
      .where('id', '=', id)
      .execute();
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
    let query = (tx as AnyDb).selectFrom(resource.table).select('id');
    for (const name of rule.fields) {
      const field = resource.fields[name];
      if (field === undefined) throw new Error(`${resource.name} has no field ${name}`);
      query = query.where(field.column, '=', field.type.toColumn(values[name]));
    }
    if (rule.amongLive && resource.deletion.mode === 'soft') query = query.where(resource.deletion.liveColumn, '=', 1);
    if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
    return (await query.limit(1).executeTakeFirst()) !== undefined;
  }

  async referenceState(tx: Executor, resource: ResourceDefinition, id: number): Promise<ReferenceState> {
    const columns = resource.deletion.mode === 'soft' ? ['id', resource.deletion.liveColumn] : ['id'];
    const row = await (tx as AnyDb).selectFrom(resource.table).select(columns).where('id', '=', id).executeTakeFirst();
    if (row === undefined) return 'missing';
    if (resource.deletion.mode === 'soft' && row[resource.deletion.liveColumn] === null) return 'deleted';
    return 'live';
  }

  /** Ids of the entries of `resource` whose `field` points at `id`. */
  async idsReferencing(tx: Executor, resource: ResourceDefinition, field: string, id: number, max: number): Promise<number[]> {
    const column = resource.fields[field]?.column;
    if (column === undefined) throw new Error(`${resource.name} has no field ${field}`);
    const rows = await (tx as AnyDb)
      .selectFrom(resource.table)
      .select('id')
      .where(column, '=', id)
      .orderBy('id')
      .limit(max)
      .execute();
    return rows.map((row: { id: unknown }) => Number(row.id));
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
