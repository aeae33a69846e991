// Storage for every resource, driven by the registry: one code path for all tables. Columns
// and tables come from the registry, never from a request, and values are always bound.
// Reads run on the database; writes run in a StoreTransaction (store-transaction.ts), and
// their outcome tells whether the database can store writes (storage-health.ts).
import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle, DatabaseFailure, StorageFault } from '../db/connect.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { EntrySelections, decodeEntry, type Entry, type Row } from './entry-rows.js';
import type { ListQuery } from './list-query.js';
import { QueryTemplates, type SlotMaker } from './query-templates.js';
import { probeWrite, readCount } from './resource-counts.js';
import { StorageHealth, storageFaultOf } from './storage-health.js';
import { StoreTransaction } from './store-transaction.js';

// Generic code over tables named at run time: the registry, not the compiler, vouches for them.
type AnyDb = Kysely<any>;

export class ResourceStore {
  private readonly templates = new QueryTemplates();
  private readonly selections: EntrySelections;
  private readonly health: StorageHealth;
  private readonly probe: () => Promise<void>;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly secrets: SecretBox,
    /** The resources it stores; the first one's count row serves to try a write. */
    resources: readonly ResourceDefinition[],
  ) {
    this.selections = new EntrySelections(handle.queries);
    const probed = resources[0];
    if (probed === undefined) throw new Error('a store needs at least one resource');
    this.probe = () => probeWrite(handle, probed);
    this.health = new StorageHealth(handle.failureOf, this.probe);
  }

  /** Runs `work` in one transaction: committed if it resolves, rolled back if it throws. */
  async transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    try {
      const result = await this.handle.transaction(async (tx) => {
        const storeTx = new StoreTransaction(tx, this.handle.capabilities, this.handle.failureOf, this.templates, this.selections, this.secrets);
        const outcome = await work(storeTx);
        await storeTx.finish();
        return outcome;
      });
      this.health.succeeded();
      return result;
    } catch (error) {
      this.health.failed(error);
      throw error;
    }
  }

  /** What a driver error means. */
  failureOf(error: unknown): DatabaseFailure {
    return this.handle.failureOf(error);
  }

  /** Whether writes can be stored now: undefined, or the fault that stops them (README, Faults). */
  storageFault(timeoutMs: number): Promise<StorageFault | undefined> {
    return this.health.check(timeoutMs);
  }

  /** At start-up: tries a write that changes nothing. Resolves to the storage fault it met
   * (kept for readiness), or undefined; any other failure is thrown. */
  async tryWrite(): Promise<StorageFault | undefined> {
    try {
      await this.probe();
      return undefined;
    } catch (error) {
      const fault = storageFaultOf(this.handle.failureOf, error);
      if (fault === undefined) throw error;
      this.health.failed(error);
      return fault;
    }
  }

  async read(resource: ResourceDefinition, id: number): Promise<Entry | undefined> {
    const db = this.handle.db as AnyDb;
    const query = this.templates.get(`byId ${resource.table} false`, (slot) =>
      db.selectFrom(resource.table).select(this.selections.all(resource)).where('id', '=', slot(0)),
    );
    const row = (await query.execute(db, [id])).rows[0] as Row | undefined;
    return row === undefined ? undefined : decodeEntry(resource, row);
  }

  async list(resource: ResourceDefinition, list: ListQuery): Promise<{ items: Entry[]; total: number }> {
    const db = this.handle.db as AnyDb;
    const hideDeleted = resource.deletion.mode === 'soft' && !list.includeDeleted;
    const flagColumn = resource.deletion.mode === 'soft' ? resource.fields[resource.deletion.flagField]?.column : undefined;
    const search = list.search !== undefined && list.search.columns.length > 0 ? list.search : undefined;
    // Slots: the filter values, the ids of the link filters, the search pattern, then limit and offset.
    const values: unknown[] = [...list.filters.map((filter) => filter.value), ...list.linkFilters.map((filter) => filter.id)];
    // `!` escapes LIKE wildcards: unlike a backslash, it means the same in every dialect's literals.
    if (search !== undefined) values.push(`%${search.text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`);
    const matching = (slot: SlotMaker) => {
      let query = db.selectFrom(resource.table);
      if (hideDeleted && flagColumn !== undefined) query = query.where(flagColumn, '=', 0);
      list.filters.forEach((filter, index) => {
        query = query.where(filter.column, '=', slot(index));
      });
      list.linkFilters.forEach(({ link }, index) => {
        const owners = db.selectFrom(link.table).select(link.ownerColumn).where(link.targetColumn, '=', slot(list.filters.length + index));
        query = query.where('id', 'in', owners);
      });
      if (search !== undefined) {
        const pattern = slot(list.filters.length + list.linkFilters.length);
        query = query.where((eb) => eb.or(search.columns.map((column) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '!'`)));
      }
      return query;
    };
    const linked = list.linkFilters.map((filter) => filter.link.table).join(',');
    const where = `${hideDeleted} ${list.filters.map((filter) => filter.column).join(',')} ${linked} ${search?.columns.join(',') ?? '-'}`;
    const sort = list.sort.map((key) => `${key.column}${key.descending ? '-' : '+'}`).join(',');
    const page = this.templates.get(`page ${resource.table} ${where} ${sort}`, (slot) => {
      let query = matching(slot).select(this.selections.all(resource));
      for (const key of list.sort) query = query.orderBy(key.column, key.descending ? 'desc' : 'asc');
      return query.limit(slot(values.length)).offset(slot(values.length + 1));
    });
    const rows = (await page.execute(db, [...values, list.limit, list.offset])).rows as Row[];
    const items = rows.map((row) => decodeEntry(resource, row));

    let total: number;
    if (list.filters.length === 0 && list.linkFilters.length === 0 && search === undefined) {
      total = await readCount(this.handle.db, this.templates, resource, hideDeleted ? 'live' : 'total');
    } else {
      const count = this.templates.get(`count ${resource.table} ${where}`, (slot) => matching(slot).select((eb) => eb.fn.countAll().as('total')));
      total = Number(((await count.execute(db, values)).rows[0] as { total: unknown } | undefined)?.total ?? 0);
    }
    return { items, total };
  }
}
