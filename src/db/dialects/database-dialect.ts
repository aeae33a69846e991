// The one interface behind which each database's differences live (one module per dialect,
// chosen once from DATABASE_URL by connect.ts). Nothing outside src/db/dialects asks which
// database it runs on: it reads these capabilities, or calls what the dialect provides.
import type { CompiledQuery, Dialect, Expression, Kysely, RawBuilder, SelectQueryBuilder, SqlBool, Transaction } from 'kysely';
import type { Ddl } from '../migrations/ddl.js';
import type { Database } from '../database-schema.js';

export interface DatabaseCapabilities {
  /** INSERT … RETURNING gives the new row; otherwise the driver's insert id does. */
  readonly returning: boolean;
  /** A single-row INSERT … RETURNING gives the new row (where `returning` is true, and in
   * MariaDB 10.5+, which has it for INSERT but not for UPDATE): a create then reads its row
   * back in the same round trip instead of a SELECT after it. */
  readonly insertReturning: boolean;
  /** UPDATE … RETURNING costs about what the update alone does. Not in SQLite, which runs
   * RETURNING like a trigger, in a statement savepoint: an FTS5 table written earlier in the
   * transaction (the servers' search index) flushes its pending terms at that savepoint,
   * inside the statement, journalling every page it writes, which costs far more than the same
   * flush at the write's own savepoint release plus a SELECT of the value (docs/decisions.md,
   * "Writes are committed in groups on SQLite"). MariaDB has no UPDATE … RETURNING. */
  readonly updateReturning: boolean;
  /** SELECT … FOR UPDATE exists and is needed: concurrent transactions could otherwise both
   * read an entry before either writes it. SQLite has neither the syntax nor the need: its
   * one connection runs transactions one at a time. */
  readonly rowLocks: boolean;
  /** A statement refused by a constraint aborts the whole transaction (PostgreSQL); SQLite and
   * MariaDB undo the statement alone and the transaction goes on. Where it goes on, writes rely
   * on the unique indexes to find conflicts rather than looking first. */
  readonly failedStatementEndsTransaction: boolean;
  /** A create inserts with ON CONFLICT DO NOTHING … RETURNING and looks at the unique rules
   * only when no row came back: the transaction stays usable without a look before every
   * create (PostgreSQL, where a refused statement would end it; a round trip fewer per
   * create). Where a refused statement undoes itself alone, the plain insert is as cheap. */
  readonly insertSkipsConflicts: boolean;
  /** A WITH clause may hold an UPDATE whose work the main statement's rows can see
   * (PostgreSQL): a single write's count share and change record then go in one statement,
   * a round trip fewer (WriteTail). */
  readonly modifyingWith: boolean;
  /** NULL sorts before every value, ascending (SQLite, MariaDB); elsewhere (PostgreSQL) the
   * store says NULLS FIRST / NULLS LAST, so that lists sort alike on every backend. */
  readonly nullsSortFirst: boolean;
  /** A foreign key gets an index on its column from the database itself (InnoDB), so the
   * DDL helpers make none of their own; SQLite and PostgreSQL index only what they are told. */
  readonly foreignKeysIndexed: boolean;
  /** Writers run side by side (PostgreSQL, MariaDB): a write stores its change records without
   * an id, and a short sequencer transaction numbers the committed ones after the commit
   * (src/store/change-sequencer.ts), so that no writer waits for another's commit. Where writes
   * run one at a time anyway (SQLite), the write numbers its records itself. */
  readonly numbersChangesAfterCommit: boolean;
  /** The database's statements run on the service's own event loop (SQLite, embedded and
   * synchronous): time spent in them is time the API's requests wait. Over a connection
   * (PostgreSQL, MariaDB) the loop only waits for the answer. */
  readonly runsOnEventLoop: boolean;
}

/** What a driver error means for the API. `full`: the database's disk has no room left;
 * `read-only`: the database refuses writes (a read-only file or folder, a standby, a grant
 * without write privileges); `unavailable`: out of reach, gone, or a transient refusal. */
export type DatabaseFailure = 'unique' | 'foreign-key' | 'unavailable' | 'full' | 'read-only' | 'other';

/** The failures that say the database cannot store writes, while they last. */
export type StorageFault = Extract<DatabaseFailure, 'full' | 'read-only'>;

/** Why the database cannot be used at start-up, in words for the operator: what is wrong
 * ("the database does not exist") and what to check ("… the database name in DATABASE_URL"). */
export interface StartupFailure {
  readonly what: string;
  readonly check: string;
}

export interface PoolStatistics {
  /** Connections the pool may open. */
  readonly max: number;
  /** Connections open now, busy or idle. */
  readonly open: number;
  readonly idle: number;
  /** Queries waiting for a connection. */
  readonly waiting: number;
}

export interface ConnectOptions {
  sqliteSynchronous: 'FULL' | 'NORMAL';
  /** Open the database so that it refuses every write (READ_ONLY=true): the database itself,
   * not only the service, then guarantees that nothing is written. */
  readOnly: boolean;
  /** Connections a server-backed pool opens at most. */
  poolSize: number;
  /** How long to wait for a connection before answering 503. */
  connectTimeoutMs: number;
  /** How long one statement may run before it is abandoned. */
  queryTimeoutMs: number;
  /** Where work the database does in the background says what went wrong (SQLite's WAL
   * checkpoints, sqlite-wal-checkpointer.ts); unset, it says nothing (the CLIs). */
  warn?: BackgroundWarning;
}

/** Says what went wrong in work nobody waits for: a message and its details, for a log line. */
export type BackgroundWarning = (message: string, details: Record<string, unknown>) => void;

/** A database's own way to tell other connections that a transaction committed changes
 * (PostgreSQL LISTEN/NOTIFY): the change feed wakes at once instead of at its next poll. */
export interface ChangeSignal {
  /** Run in the writing transaction: the signal goes out when, and only if, it commits. */
  readonly notify: CompiledQuery;
  /** Calls `onSignal` on every signal, until the returned function is called. */
  listen(onSignal: () => void): Promise<() => Promise<void>>;
}

/** A read-only transaction that sees the database as it was when it began, whatever commits
 * meanwhile (the configuration export: one consistent document however long it streams). */
export interface ReadSnapshot {
  /** The rows of one read, in its order, `size` at a time, each as the array of its values in
   * the order selected. The next batch is read only when asked for, so that a slow reader holds
   * a batch, not the answer; the read is sorted once, not once per batch. */
  batches(query: CompiledQuery, size: number): AsyncGenerator<unknown[][]>;
  /** Ends the transaction and gives the connection back (after a failure too); once. */
  close(): Promise<void>;
}

/** What the writes of one transaction leave to its end, written once, just before the COMMIT:
 * the store's WriteTail (count rows, change records). A work that has a tail resolves to its
 * result and its part (TailedResult: plain data the work made); the runner hands the parts of
 * the transaction's works to the tail at once, so that in a commit group (SQLite) the group
 * writes each count row and the change log once. A work refused or rolled back to its
 * savepoint leaves no part; if writing them fails, the whole transaction fails and no write of
 * it is acknowledged. */
export interface TransactionTail<Part = unknown> {
  write(tx: Transaction<Database>, parts: readonly Part[]): Promise<void>;
}

/** What a work that has a tail resolves to: its result, and what it leaves to the tail. */
export interface TailedResult<T, Part = unknown> {
  readonly value: T;
  readonly part: Part;
}

/** A work as a transaction runner sees it: a TailedResult when it came with a tail. */
export type GroupedWork = (tx: Transaction<Database>) => Promise<unknown>;

/** Runs a work in a transaction: committed if it resolves, rolled back if it throws; with a
 * tail, the work's part written by it before the COMMIT and the work's value resolved
 * (DatabaseHandle.transaction). */
export type TransactionRunner = (work: GroupedWork, durable: boolean | undefined, tail: TransactionTail | undefined) => Promise<unknown>;

/** A database opened by a dialect, before Kysely is put on top. */
export interface OpenedDatabase {
  readonly dialect: Dialect;
  readonly poolStatistics?: () => PoolStatistics;
  /** A value that changes whenever another connection commits, read synchronously where an
   * embedded database tells it without a round trip (SQLite's data_version). */
  readonly changeMarker?: () => unknown;
  /** The dialect's own way to run transactions on Kysely's handle `db`, where it has one
   * (SQLite: commit groups, sqlite-commit-group.ts); elsewhere each runs alone in Kysely's. */
  readonly transactions?: (db: Kysely<Database>) => TransactionRunner;
  /** Runs a read statement at once, synchronously, where an embedded database can (no
   * transaction holds its one connection): its first row's values in the order selected, or
   * null when it has none; undefined when it cannot now. */
  readonly readRowNow?: (sql: string, parameters: readonly unknown[]) => unknown[] | null | undefined;
  /** The same for every row of a read: each row's values in the order selected. */
  readonly readRowsNow?: (sql: string, parameters: readonly unknown[]) => unknown[][] | undefined;
  readonly changeSignal?: ChangeSignal;
  /** Begins a ReadSnapshot on a connection of its own, which it holds until closed. */
  openReadSnapshot(): Promise<ReadSnapshot>;
  /** The folder of a database file this process writes (SQLite), whose disk's free space
   * the service watches; undefined elsewhere. */
  readonly dataFolder?: string;
}

/** What a single create writes (DialectQueries.singleCreate). */
export interface SingleCreateValues {
  /** The values of the row's columns, in the order of the statement's `columns`. */
  readonly row: readonly unknown[];
  readonly table: string;
  /** What the create adds to the table's total and live counts. */
  readonly total: number;
  readonly live: number;
  /** The pending change record's at, action, resource, actor, request id and secrets changed;
   * its after is `afterHead`, the new row's id, `afterTail`; its before is null. */
  readonly record: { readonly at: string; readonly action: string; readonly resource: string; readonly actor: string; readonly requestId: string; readonly afterHead: string; readonly afterTail: string; readonly secretsChanged: string };
}

/** A single create's statement: its text, and its parameters in the order of its placeholders. */
export interface SingleCreateStatement {
  readonly sql: string;
  parameters(values: SingleCreateValues): unknown[];
}

/** SQL that each dialect spells its own way, for the store. */
export interface DialectQueries {
  /** A select of rows to claim (webhook deliveries): locked, skipping the rows another
   * transaction holds locked (FOR UPDATE SKIP LOCKED), so that instances claiming at once
   * never wait on each other nor take the same row. SQLite runs one transaction at a time:
   * the select is left as it is. */
  claimRows<DB, TB extends keyof DB, O>(select: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** The first statement of a transaction whose commit need not wait for the disk (`durable:
   * false`: losing it in a power cut is harmless), where the server lets one transaction say
   * so (PostgreSQL's synchronous_commit); undefined where it cannot or groups commits itself. */
  readonly lazyCommit?: RawBuilder<unknown>;
  /** A statement run before claimRows' selects in their transaction, where the planner must be
   * told to read the claim's index in order rather than sort what it finds: PostgreSQL, whose
   * statistics of a table that just grew (a backlog of deliveries written in seconds) make it
   * collect and sort a webhook's whole backlog to take its first few rows. */
  readonly orderedClaim?: RawBuilder<unknown>;
  /** A single create (src/store/single-create.ts) as one statement sent once, where the dialect
   * has a block of statements with variables and handlers (MariaDB's BEGIN NOT ATOMIC): in one
   * transaction, the row into `table` (its `columns`), its count share (of `shards`, the
   * connection's, as countShard) or else the table's own count row, and its pending change
   * record; then, after the commit, a row of the new row's `id`. A unique value taken rolls it
   * back and gives no row. Undefined elsewhere (PostgreSQL's is a WITH clause). */
  readonly singleCreate?: (table: string, columns: readonly string[], shards: number) => SingleCreateStatement;
  /** A change sequencer run in one statement (src/store/change-sequencer.ts), where the dialect
   * can: it locks change_log_state's row, moves up to `batch` committed records of
   * change_log_pending to change_log with the next ids, moves last_id and signals the commit
   * (ChangeSignal), as a single autocommitted statement: one round trip instead of eight.
   * Resolves to how many it moved and the last id given (0 when none). Undefined elsewhere:
   * the sequencer runs the same steps statement by statement. */
  readonly numberChanges?: (db: Kysely<Database>, batch: number) => Promise<{ moved: number; lastId: number }>;
  /** The share of the count rows (resource_count_shards) that a write on this connection adds
   * to, from 0 to `shards` - 1: a number of the connection, so that writers side by side
   * rarely share a row lock. Undefined where writes run one at a time (SQLite): they add to
   * the table's resource_counts row. */
  countShard(shards: number): RawBuilder<number> | undefined;
  /** The values of an integer column, joined by commas (an aggregate; order unspecified). */
  joinedIds(column: Expression<unknown>): RawBuilder<string | null>;
  /** Where the search index `index` (Ddl.createSearchIndex) must be named in the query for a
   * search of `text`: the condition on the table's id, and the value of its one slot.
   * Undefined where the index serves `lower(column) LIKE` by itself (PostgreSQL), where
   * there is none (MariaDB), or where `text` is too short for trigrams (a plain scan then). */
  searchIndexMatch(index: string, text: string): { readonly condition: (value: unknown) => RawBuilder<SqlBool>; readonly value: unknown } | undefined;
  /** A text column as a sort key that orders by code point (UTF-8 byte order) whatever the
   * database's collation, so that every backend sorts text alike (the configuration export). */
  binaryOrder(column: string): Expression<unknown>;
  /** A column in a condition that must not be served by an index: one true of nearly every
   * row, which a planner that misjudges it would look up and then sort all it found. */
  notIndexed(column: string): Expression<unknown>;
  /** Brings the query planner's statistics of `tables` up to date, from a sample (cheap at a
   * million rows): without them a planner may read a whole table where an index would do. */
  refreshStatistics(db: Kysely<Database>, tables: readonly string[]): Promise<void>;
  /** The statement that shows how `query` would be run (its plan, one row per step). */
  explain(query: CompiledQuery): CompiledQuery;
  /** Whether a plan of `explain` reads every row of `table` (rather than through an index). */
  scansWholeTable(plan: readonly Record<string, unknown>[], table: string): boolean;
  /** Whether a plan of `explain` reads `table` at all (its rows, or an index of its own). */
  readsTable(plan: readonly Record<string, unknown>[], table: string): boolean;
  /** Whether a plan of `explain` sorts every matching row (rather than reading them in order). */
  sortsAllRows(plan: readonly Record<string, unknown>[]): boolean;
}

export interface DatabaseDialect {
  /** URL schemes of DATABASE_URL, with their colon: `sqlite:`. */
  readonly schemes: readonly string[];
  readonly capabilities: DatabaseCapabilities;
  /** A short, credential-free description of the database of this URL, for logs and messages. */
  describe(url: string): string;
  open(url: string, options: ConnectOptions): OpenedDatabase;
  /** Whether the database of this URL is private to the process that opens it (so cluster
   * workers could not share it). */
  privateToProcess(url: string): boolean;
  /** The meaning of a driver error of this database, or undefined if it is not one of its own. */
  failureOf(error: unknown): DatabaseFailure | undefined;
  /** Why a database could not be opened or reached at start-up, if the error says so (the
   * server cannot be reached, the database does not exist, the credentials are refused). */
  startupFailureOf(error: unknown): StartupFailure | undefined;
  /** For migrations. */
  readonly ddl: Ddl;
  readonly queries: DialectQueries;
}
