// Storage for every resource, driven by the registry: one code path for all tables. Columns
// and tables come from the registry, never from a request, and values are always bound.
// Reads run on the database; writes run in a StoreTransaction (store-transaction.ts), and
// their outcome tells whether the database can store writes (storage-health.ts).
import type { RawBuilder, Transaction } from 'kysely';
import type { Database, EntryDatabase, EntryTables } from '../db/database-schema.js';
import type { DatabaseHandle, DatabaseFailure, StorageFault, TailedResult } from '../db/connect.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { ChangeLog, type Author } from './change-log.js';
import { ChangeSequencer } from './change-sequencer.js';
import { EntrySelections, decodeEntry, decodeEntryValues, type Entry, type Row } from './entry-rows.js';
import type { Registry } from '../registry/registry.js';
import { ConfigurationSnapshot } from './configuration-snapshot.js';
import { sharedValues, valuesNamingOthers, walkEntries, walkValues, type WalkSources } from './entry-walk.js';
import { listTotal, type ListQuery, type ListTotal } from './list-query.js';
import { listStatements } from './list-statements.js';
import { QueryTemplates } from './query-templates.js';
import { COUNT_SHARDS, probeWrite, readChanges, readCount } from './resource-counts.js';
import { StorageHealth, storageFaultOf, type DiskSpace, type DiskWatch } from './storage-health.js';
import type { StoreContext } from './store-context.js';
import { SingleCreate, type PointedAt } from './single-create.js';
import { StoreTransaction } from './store-transaction.js';
import { UniqueRules } from './unique-rules.js';
import { WriteTail, type ChangeReceipt, type TailPart } from './write-tail.js';

export interface ListPage {
  readonly items: Entry[];
  /** The sort keys' column values of the last entry, when another page follows. */
  readonly nextAfter: unknown[] | undefined;
  readonly total: number;
  readonly totalExact: boolean;
}

/** What a store is made of: one object, named parts. */
export interface StoreSettings {
  readonly handle: DatabaseHandle;
  readonly secrets: SecretBox;
  /** The resources it stores; the first one's count row serves to try a write. */
  readonly resources: readonly CompiledResource[];
  /** Filtered lists count their matches exactly up to this many (see `list`); 1,000 unless said. */
  readonly exactTotalMax?: number;
  /** Free space on the database's disk (SQLite): writes are refused below its flood stage. */
  readonly disk?: DiskWatch;
}

export class ResourceStore {
  private readonly templates = new QueryTemplates();
  private readonly selections: EntrySelections;
  private readonly health: StorageHealth;
  private readonly probe: () => Promise<void>;
  /** The change log's records, for the endpoints that read them. */
  readonly changeLog: ChangeLog;
  /** Told the id of the last change record of each committed transaction that wrote some. */
  private readonly committedListeners: ((lastId: number) => void)[] = [];
  /** Numbers change records after their commit, where writers run side by side. */
  private readonly sequencer: ChangeSequencer | undefined;
  /** The count share a write adds to (resource-counts.ts), where counts are shared. */
  private readonly countShard: RawBuilder<number> | undefined;
  /** Writes what the writes of a transaction leave to its end (write-tail.ts): every store on a
   * handle writes it the same way, so one serves the stores of a commit group. */
  private readonly tail: WriteTail;
  /** Creates in one statement, where the dialect can (single-create.ts). */
  private readonly singleCreate: SingleCreate | undefined;

  private readonly handle: DatabaseHandle;
  /** The handle's database, seen with the registry's tables (withTables only adds types). */
  private readonly entryDb: EntryDatabase;
  /** Filtered lists count their matches exactly up to this many (see `list`). */
  private readonly exactTotalMax: number;
  /** Free space on the database's disk (SQLite): writes are refused below its flood stage. */
  private readonly disk: DiskWatch | undefined;
  /** What its transactions share with it. */
  private readonly context: StoreContext;

  constructor(settings: StoreSettings) {
    const { handle, resources } = settings;
    this.handle = handle;
    this.entryDb = handle.db.withTables<EntryTables>();
    this.exactTotalMax = settings.exactTotalMax ?? 1_000;
    this.disk = settings.disk;
    this.selections = new EntrySelections(handle.queries);
    this.context = { handle, templates: this.templates, selections: this.selections, unique: new UniqueRules(handle.capabilities, handle.failureOf, this.templates), secrets: settings.secrets };
    const probed = resources[0];
    if (probed === undefined) throw new Error('a store needs at least one resource');
    this.probe = () => probeWrite(handle, probed);
    this.health = new StorageHealth(handle.failureOf, this.probe);
    this.changeLog = new ChangeLog(handle.db, this.templates);
    this.countShard = handle.queries.countShard(COUNT_SHARDS);
    this.tail = new WriteTail(this.templates, handle.capabilities, handle.changeSignal?.notify, this.countShard);
    this.singleCreate = SingleCreate.possible(this.context, this.countShard) ? new SingleCreate(this.context, this.countShard) : undefined;
    this.sequencer = handle.capabilities.numbersChangesAfterCommit
      ? new ChangeSequencer(handle.db, handle.changeSignal?.notify, (lastId) => this.changesCommitted(lastId), handle.queries.numberChanges)
      : undefined;
  }

  private changesCommitted(lastId: number): void {
    for (const listener of this.committedListeners) listener(lastId);
  }

  /** Numbers the change records that wait for their ids (a writer killed after its commit, a
   * sequencer run that failed), where writes leave them to the sequencer; rejects if it fails. */
  async sweepChanges(): Promise<void> {
    await this.sequencer?.sweep();
  }

  /** Calls `listener` after every commit that wrote change records (the change feed). */
  onChangesCommitted(listener: (lastId: number) => void): void {
    this.committedListeners.push(listener);
  }

  /** Runs `work` in one transaction: committed if it resolves, rolled back if it throws.
   * `author`: who makes the changes the work records (StoreTransaction.recordChange). */
  async transaction<T>(work: (tx: StoreTransaction) => Promise<T>, author?: Author): Promise<T> {
    // Before anything is written, so that a refusal changes nothing.
    this.disk?.refuseWriteIfFlooded();
    try {
      // Tells the id of the work's last change record once the tail has written it.
      const receipt: ChangeReceipt = { lastChange: undefined, pending: false };
      const write = async (tx: Transaction<Database>): Promise<TailedResult<T, TailPart>> => {
        const storeTx = new StoreTransaction(tx, this.context, author);
        const value = await work(storeTx);
        // What the work leaves to the tail, once it is done (a refused work leaves nothing).
        return { value, part: { counts: storeTx.countChanges, changes: storeTx.changes, receipt } };
      };
      const result = await this.handle.transaction(write, undefined, this.tail);
      this.health.succeeded();
      if (receipt.lastChange !== undefined) this.changesCommitted(receipt.lastChange);
      // The write is acknowledged once its records have ids, so that a read of the change
      // log after the answer finds them. If numbering fails now, the write stays committed
      // (and answered), and its records stay in the queue for the next sweep (sweepChanges).
      if (receipt.pending) await this.sequencer?.number().catch(() => undefined);
      return result;
    } catch (error) {
      this.health.failed(error);
      throw error;
    }
  }

  /** Whether creates may be tried in one statement (createAlone). */
  get createsAlone(): boolean {
    return this.singleCreate !== undefined;
  }

  /** Whether those may point at other entries (references, sets). */
  get createsAlonePointing(): boolean {
    return this.singleCreate?.checksReferences === true;
  }

  /** A create of an entry in one autocommitted statement, with its count and change record
   * (single-create.ts); undefined when it cannot be done so and nothing was written: run it
   * with `transaction` then. Acknowledged, like a transaction, once its record has its id. */
  async createAlone(
    resource: CompiledResource,
    values: Record<string, unknown>,
    now: string,
    author: Author,
    secretsChanged: readonly string[],
    pointedAt: readonly PointedAt[],
  ): Promise<Entry | undefined> {
    if (this.singleCreate === undefined) return undefined;
    this.disk?.refuseWriteIfFlooded();
    let entry: Entry | undefined;
    try {
      entry = await this.singleCreate.create(resource, values, now, author, secretsChanged, pointedAt);
    } catch (error) {
      this.health.failed(error);
      throw error;
    }
    this.health.succeeded();
    if (entry !== undefined) await this.sequencer?.number().catch(() => undefined);
    return entry;
  }

  /** What a driver error means. */
  failureOf(error: unknown): DatabaseFailure {
    return this.handle.failureOf(error);
  }

  /** Free space on the database's disk as last read (at most a second ago; a stale figure is
   * read again in the background, so that readiness never waits for the disk behind heavy
   * work); undefined where it is not watched (PostgreSQL, MariaDB, READ_ONLY, thresholds off). */
  diskSpace(): DiskSpace | undefined {
    return this.disk?.current();
  }

  /** Whether writes can be stored now: undefined, or the fault that stops them (docs/operations.md, Faults). */
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

  async read(resource: CompiledResource, id: number): Promise<Entry | undefined> {
    const db = this.entryDb;
    const query = this.templates.get(`byId ${resource.table} false`, (slot) =>
      db.selectFrom(resource.table).select(this.selections.all(resource)).where('id', '=', slot(0)),
    );
    const values = query.rowNow(this.handle.readRowNow, [id]);
    if (values !== undefined) return values === null ? undefined : decodeEntryValues(resource, values);
    const row = (await query.execute(db, [id])).rows[0] as Row | undefined;
    return row === undefined ? undefined : decodeEntry(resource, row);
  }

  /**
   * A page and its total. An unfiltered total is read from resource_counts; a filtered one is
   * exact while it is cheap (docs/decisions.md, "Totals"):
   * - a page that ends the list (offset or none, no cursor) and is not empty tells its total;
   * - otherwise the matches are counted, but only up to `exactTotalMax + 1` of them; past
   *   that, or when this page already reaches past the cap, `total` is a lower bound (the cap,
   *   or the entries up to the end of this page if more) and `totalExact` is false.
   */
  async list(resource: CompiledResource, list: ListQuery, total: ListTotal = listTotal(resource, list)): Promise<ListPage> {
    const db = this.entryDb;
    const statements = listStatements(db, this.templates, this.selections, resource, list, total, this.exactTotalMax + 1, this.handle.capabilities, this.handle.queries);
    const rows = (await statements.page.execute(db, statements.pageValues)).rows as Row[];
    // The page asked for one row more: there is a next page, which starts after the last shown.
    const more = rows.length > list.limit;
    if (more) rows.pop();
    const items = rows.map((row) => decodeEntry(resource, row));
    const last = rows[rows.length - 1];
    const nextAfter = more && last !== undefined ? list.sort.map((key) => last[key.column] ?? null) : undefined;
    if (total.kind === 'kept') {
      return { items, nextAfter, total: await readCount(this.handle.db, this.templates, resource, total.of, this.countShard !== undefined), totalExact: true };
    }
    const seen = list.offset + items.length;
    // The last page, reached without a cursor: every match is before its end.
    if (!more && list.after === undefined && items.length > 0) return { items, nextAfter, total: seen, totalExact: true };
    // More than the cap match (this page and the one entry after it): no count can be exact.
    const atLeast = seen + (more ? 1 : 0);
    if (list.after === undefined && atLeast > this.exactTotalMax) return { items, nextAfter, total: Math.max(this.exactTotalMax, seen), totalExact: false };
    const counted = Number((await statements.count!.execute(db, statements.countValues)).rows[0]?.total ?? 0);
    if (counted <= this.exactTotalMax) return { items, nextAfter, total: counted, totalExact: true };
    return { items, nextAfter, total: Math.max(this.exactTotalMax, seen), totalExact: false };
  }

  /** Every entry `list` matches, ascending by id, `batch` at a time (entry-walk.ts). */
  walk(resource: CompiledResource, list: ListQuery, batch: number): AsyncGenerator<Entry[]> {
    return walkEntries(this.walkSources(), resource, list, batch);
  }

  /** The same, each entry as `[id, ...fields]` in column form (entry-walk.ts). */
  walkValues(resource: CompiledResource, list: ListQuery, batch: number, fields: readonly string[]): AsyncGenerator<unknown[][]> {
    return walkValues(this.walkSources(), resource, list, batch, fields);
  }

  /** The values of `column` held by more than one live entry with the `filters`. */
  sharedValues(resource: CompiledResource, filters: ListQuery['filters'], column: string): Promise<Set<string>> {
    return sharedValues(this.walkSources(), resource, filters, column);
  }

  /** The values of `column` that read `<first>_<second>` of another live entry with the `filters`. */
  valuesNamingOthers(resource: CompiledResource, filters: ListQuery['filters'], column: string, first: string, second: string): Promise<Set<string>> {
    return valuesNamingOthers(this.walkSources(), resource, filters, column, first, second);
  }

  private walkSources(): WalkSources {
    return { db: this.entryDb, templates: this.templates, selections: this.selections, capabilities: this.handle.capabilities, queries: this.handle.queries, readRowsNow: this.handle.readRowsNow };
  }

  /** Begins a snapshot of the stored configuration (configuration-snapshot.ts); close it once read. */
  configurationSnapshot(registry: Registry): Promise<ConfigurationSnapshot> {
    return ConfigurationSnapshot.open(this.handle, registry);
  }

  /** The version of the lists of `resource`: moves with every committed change of its table. */
  listVersion(resource: CompiledResource): Promise<string> {
    return readChanges(this.handle.db, this.templates, resource, this.countShard !== undefined);
  }

  /** How the database would run the page query of `list` (or its count), whether it reads the
   * resource's table at all, or the whole of it (the planner test looks at the very statements
   * lists run). */
  async explainList(
    resource: CompiledResource,
    list: ListQuery,
    statement: 'page' | 'count' = 'page',
  ): Promise<{ plan: Record<string, unknown>[]; readsTable: boolean; wholeTable: boolean; sortsAll: boolean }> {
    const statements = listStatements(this.entryDb, this.templates, this.selections, resource, list, listTotal(resource, list), this.exactTotalMax + 1, this.handle.capabilities, this.handle.queries);
    if (statement === 'count' && statements.count === undefined) throw new Error('an unfiltered list has no count');
    const explain = this.handle.queries.explain(statement === 'count' ? statements.count!.with(statements.countValues) : statements.page.with(statements.pageValues));
    const plan = (await this.handle.db.executeQuery(explain)).rows as Record<string, unknown>[];
    const queries = this.handle.queries;
    return { plan, readsTable: queries.readsTable(plan, resource.table), wholeTable: queries.scansWholeTable(plan, resource.table), sortsAll: queries.sortsAllRows(plan) };
  }

  /** Brings the planner's statistics of every resource table up to date. */
  async refreshStatistics(resources: readonly CompiledResource[]): Promise<void> {
    await this.handle.queries.refreshStatistics(this.handle.db, resources.map((resource) => resource.table));
  }
}
