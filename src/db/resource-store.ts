// Storage for every resource, driven by the registry: one code path for all tables. Columns
// and tables come from the registry, never from a request, and values are always bound.
import type { Kysely } from 'kysely';
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

export interface ListWindow {
  limit: number;
  offset: number;
  includeDeleted: boolean;
}

export type ReferenceState = 'live' | 'deleted' | 'missing';

function secretContext(resource: ResourceDefinition, column: string): string {
  return `${resource.table}.${column}`;
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

  async findById(tx: Executor, resource: ResourceDefinition, id: number): Promise<Entry | undefined> {
    const row = await (tx as AnyDb)
      .selectFrom(resource.table)
      .select(this.readableColumns(resource))
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : this.decode(resource, row);
  }

  async list(tx: Executor, resource: ResourceDefinition, window: ListWindow): Promise<{ items: Entry[]; total: number }> {
    let query = (tx as AnyDb).selectFrom(resource.table);
    if (resource.deletion.mode === 'soft' && !window.includeDeleted) {
      const flag = resource.fields[resource.deletion.flagField];
      if (flag !== undefined) query = query.where(flag.column, '=', 0);
    }
    const rows = await query
      .select(this.readableColumns(resource))
      .orderBy('id', 'desc')
      .limit(window.limit)
      .offset(window.offset)
      .execute();
    const counted = await query.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow();
    return { items: rows.map((row: Record<string, unknown>) => this.decode(resource, row)), total: Number(counted.total) };
  }

  async insert(tx: Executor, resource: ResourceDefinition, values: Record<string, unknown>, now: string): Promise<number> {
    const row: Record<string, unknown> = { ...this.encode(resource, values), created_at: now, updated_at: now };
    if (resource.deletion.mode === 'soft') row[resource.deletion.liveColumn] = 1;
    const insert = (tx as AnyDb).insertInto(resource.table).values(row);
    if (this.handle.capabilities.returning) {
      const inserted = await insert.returning('id').executeTakeFirstOrThrow();
      return Number(inserted.id);
    }
    const result = await insert.executeTakeFirstOrThrow();
    return Number(result.insertId);
  }

  async update(tx: Executor, resource: ResourceDefinition, id: number, values: Record<string, unknown>, now: string): Promise<void> {
    const row = { ...this.encode(resource, values), updated_at: now };
    await (tx as AnyDb).updateTable(resource.table).set(row).where('id', '=', id).execute();
  }

  async remove(tx: Executor, resource: ResourceDefinition, id: number): Promise<void> {
    await (tx as AnyDb).deleteFrom(resource.table).where('id', '=', id).execute();
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
    for (const resource of resources) {
      for (const field of Object.values(resource.fields)) {
        if (!field.writeOnly) continue;
        const row = await (this.db as AnyDb).selectFrom(resource.table).select(field.column).limit(1).executeTakeFirst();
        const sealed = row?.[field.column];
        if (typeof sealed !== 'string') continue;
        try {
          this.secrets.open(sealed, secretContext(resource, field.column));
        } catch {
          return false;
        }
      }
    }
    return true;
  }

  async storedSecret(tx: Executor, resource: ResourceDefinition, id: number, name: string): Promise<string | undefined> {
    const field = resource.fields[name];
    if (field === undefined || !field.writeOnly) throw new Error(`${resource.name}.${name} is not a secret`);
    const row = await (tx as AnyDb).selectFrom(resource.table).select(field.column).where('id', '=', id).executeTakeFirst();
    const sealed = row?.[field.column];
    return typeof sealed === 'string' ? this.secrets.open(sealed, secretContext(resource, field.column)) : undefined;
  }
}
