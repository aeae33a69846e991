// SQLite through better-sqlite3: the embedded default. One connection, transactions one at a
// time (BEGIN IMMEDIATE, so that processes sharing the file queue rather than fail), WAL,
// commits grouped (see CommitGroup), and a change marker for the entry cache.
import { closeSync, existsSync, mkdirSync, openSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, sql, type Kysely, type SqliteDialectConfig, type SqlBool } from 'kysely';
import { ConfigError } from '../../errors/config-error.js';
import { CommitGroup, searchQueueMover } from './sqlite-commit-group.js';
import { ImmediateSqliteDialect } from './sqlite-kysely-dialect.js';
import { runStatement, statementCache } from './sqlite-statements.js';
import { WalCheckpointer } from './sqlite-wal-checkpointer.js';
import type { Ddl } from '../migrations/ddl.js';
import { entryTableWithReferences, withTimestamps } from './entry-table.js';
import { queueSearchWrites, writeSearchDirectly } from './sqlite-search-queue.js';
import { fileSnapshot, memorySnapshot } from './sqlite-snapshot.js';
import type { ConnectOptions, DatabaseCapabilities, DatabaseDialect, DatabaseFailure, OpenedDatabase, StartupFailure } from './database-dialect.js';

function sqlitePath(url: string): string {
  const rest = url.slice('sqlite:'.length);
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '') throw new ConfigError('DATABASE_URL sqlite: needs a file path or :memory:');
  return path;
}

const SQLITE_BUSY_TIMEOUT_MS = 5000;

/** Switching a file to WAL takes an exclusive lock, and SQLite refuses it at once (SQLITE_BUSY,
 * without its busy handler) while another process starting on the same new file holds a lock:
 * try again for as long as the busy timeout. */
function enterWalMode(database: SqliteDatabase.Database): void {
  const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      database.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw error;
      // Startup is synchronous here; a short blocking pause is what the busy handler does too.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.random() * 40);
    }
  }
}

/**
 * Makes the database file, if there is none yet, readable by its owner alone (0600, as the key
 * files): it holds every entry, secrets encrypted but all the rest in clear. SQLite gives the
 * -wal and -shm files it makes (at open, and again whenever it starts a new WAL) the mode of
 * the database file, so they are 0600 too. An existing file keeps the mode it has: the
 * operator's to choose.
 */
function createOwnerOnly(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    // Another process starting on the same new file made it first, or it was there already.
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
  }
}

/** The first statements fail when this user may not write where SQLite must: said plainly. */
function unusable(path: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_READONLY_DIRECTORY') {
    return new ConfigError(`SQLite cannot use ${path}: this user may not create files in its folder, where SQLite keeps the -wal and -shm files it needs even to read; let it, or move the database`);
  }
  if (typeof code === 'string' && code.startsWith('SQLITE_READONLY')) {
    return new ConfigError(`SQLite cannot use ${path}: the file is read-only for this user, and is not yet in WAL mode, which the service must switch it to; make it writable once`);
  }
  // On a disk with no room left SQLite cannot even create its -shm and -wal files, and
  // reports it as an I/O error: the free space tells the two apart.
  if (typeof code === 'string' && /^SQLITE_(FULL|IOERR)/.test(code) && freeBytes(dirname(path)) < ROOM_TO_OPEN_BYTES) {
    return new ConfigError(`SQLite cannot use ${path}: its disk is full (${code}), and it needs room even to open the database; free space and start again`);
  }
  return error;
}

/** Below this much free space, an I/O error at open is the full disk's. */
const ROOM_TO_OPEN_BYTES = 1024 * 1024;

function freeBytes(folder: string): number {
  try {
    const stats = statfsSync(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return Infinity;
  }
}

function open(url: string, options: ConnectOptions): OpenedDatabase {
  const path = sqlitePath(url);
  const inMemory = path === ':memory:';
  if (options.readOnly && inMemory) throw new ConfigError('READ_ONLY=true needs a database with data; sqlite::memory: starts empty');
  if (options.readOnly && !existsSync(path)) throw new ConfigError(`READ_ONLY=true needs an existing database; there is none at ${path}`);
  // A file this service writes: made if missing, in WAL mode, its WAL checkpointed by a worker.
  const writtenFile = !inMemory && !options.readOnly;
  if (writtenFile) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    createOwnerOnly(path);
  }
  // Read-only, SQLite refuses every write itself. It still needs the -shm file beside the
  // database (WAL): in a folder where it cannot be created, even reads fail (docs/operations.md, Faults).
  const database = new SqliteDatabase(path, { readonly: options.readOnly });
  try {
    // First: another process starting on the same file may hold a lock for a moment.
    database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    if (writtenFile) enterWalMode(database);
    database.pragma(`synchronous = ${options.sqliteSynchronous}`);
    // Where SQLite keeps a savepoint's journal (and its temporary tables and sorts): every write
    // of a commit group runs in a savepoint, and the original pages a server create touches (its
    // row, a dozen indexes, the search queue) outgrow the in-memory part of that journal, so
    // with files each write created, wrote and truncated a temporary file. The sorts the
    // service runs here are bounded by a LIMIT; the export's, which are not, run on a
    // connection of its own (docs/decisions.md, "q through a search index").
    database.pragma('temp_store = memory');
  } catch (error) {
    database.close();
    throw unusable(path, error);
  }
  database.pragma('foreign_keys = ON');
  // ANALYZE (run by refreshStatistics) reads a sample of each index rather than all of it.
  database.pragma('analysis_limit = 1000');
  const dataVersion = database.prepare('pragma data_version').pluck();
  // SQLite's lower() folds ASCII only; list search must fold 'É' like PostgreSQL and MariaDB do.
  database.function('lower', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
  // Not for a read-only database (it writes nothing) nor one in memory (it has no WAL).
  const checkpointer = writtenFile ? new WalCheckpointer(database, path, options.sqliteSynchronous, options.warn ?? (() => undefined)) : undefined;
  const prepare = statementCache(database);
  const moveSearchQueues = searchQueueMover(database);
  // What a writer outside the service left queued (a script writing the file), indexed now
  // rather than at the next write.
  if (!options.readOnly) database.transaction(moveSearchQueues)();
  // The row as an array of its values: better-sqlite3 builds an object row property by
  // property through V8's slow path, a large part of a GET by id's miss (the measurements:
  // docs/decisions.md, "GET by id is served from memory on SQLite"). Statements of their own:
  // raw mode is a statement's state, and the same SQL runs in object mode in write transactions.
  const prepareRaw = statementCache(database, true);
  const dialect = new ImmediateSqliteDialect({
    database: {
      close: () => {
        checkpointer?.stop();
        database.close();
      },
      prepare,
    } as SqliteDialectConfig['database'],
  });
  return {
    dialect,
    // On the raw handle, past Kysely's connection queue (a cache hit then needs no await): the
    // statement runs synchronously, so never in the middle of another one.
    changeMarker: () => dataVersion.get(),
    // Reads the same way: Kysely holds the one connection for a whole transaction, across
    // awaits, so a read may run at once exactly when no transaction is open (it would see the
    // open one's uncommitted writes); it then sees what a queued read would have seen.
    readRowNow: (sql, parameters) => (database.inTransaction ? undefined : ((prepareRaw(sql).get(parameters) as unknown[] | undefined) ?? null)),
    // Batches of the monitoring answers' walks: arrays, not an object per row (entry-walk.ts).
    readRowsNow: (sql, parameters) => (database.inTransaction ? undefined : (prepareRaw(sql).all(parameters) as unknown[][])),
    // Writes that arrive together share a transaction, whose statements go straight to the
    // connection (sqlite-commit-group.ts).
    transactions: (db) => {
      const group = new CommitGroup(db, dialect, (query) => runStatement(prepare(query.sql), query.parameters), options.sqliteSynchronous, moveSearchQueues);
      return group.run.bind(group);
    },
    openReadSnapshot: () => (inMemory ? memorySnapshot(database) : fileSnapshot(path, SQLITE_BUSY_TIMEOUT_MS)),
    ...(writtenFile ? { dataFolder: dirname(path) } : {}),
  };
}

const FAILURES: Readonly<Record<string, DatabaseFailure>> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign-key',
  SQLITE_BUSY: 'unavailable',
  SQLITE_CANTOPEN: 'unavailable',
  // ENOSPC while writing the database or its WAL (a quota or a file-size limit shows as an
  // I/O error instead: SQLite tells only ENOSPC apart).
  SQLITE_FULL: 'full',
  // The file was deleted or renamed under the open database: it is gone, not read-only.
  SQLITE_READONLY_DBMOVED: 'unavailable',
};

const CANNOT_OPEN: StartupFailure = {
  what: 'the database file cannot be opened or created',
  check: 'check that the path of DATABASE_URL is a file (or a place for one) that this user may read and write',
};

// Open fails on the file system first (creating the folder), then in SQLite itself.
const STARTUP_FAILURES: Readonly<Record<string, StartupFailure>> = {
  EACCES: CANNOT_OPEN,
  EPERM: CANNOT_OPEN,
  EEXIST: CANNOT_OPEN,
  ENOTDIR: CANNOT_OPEN,
  EROFS: CANNOT_OPEN,
  SQLITE_CANTOPEN: CANNOT_OPEN,
  SQLITE_READONLY: CANNOT_OPEN,
  SQLITE_PERM: CANNOT_OPEN,
  SQLITE_NOTADB: { what: 'the file is not a SQLite database', check: 'check the path of DATABASE_URL' },
};

async function dropSearchTable(db: Kysely<any>, name: string): Promise<void> {
  for (const suffix of ['insert', 'delete', 'update']) await sql.raw(`drop trigger ${name}_${suffix}`).execute(db);
  await sql.raw(`drop table ${name}`).execute(db);
}

/** An FTS5 trigram table over `columns` of `table`, kept in step by triggers; `options` are
 * added to the table's (createSearchIndex's statements must stay as they were). */
async function createSearchTable(db: Kysely<any>, table: string, name: string, columns: readonly string[], options: string): Promise<void> {
  // External content: the text stays in `table`; the FTS table holds only the trigram index.
  const list = columns.join(', ');
  const values = (row: string) => columns.map((column) => `${row}.${column}`).join(', ');
  await sql.raw(`create virtual table ${name} using fts5(${list}, content='${table}', content_rowid='id', tokenize='trigram'${options})`).execute(db);
  await sql.raw(`create trigger ${name}_insert after insert on ${table} begin insert into ${name}(rowid, ${list}) values (new.id, ${values('new')}); end`).execute(db);
  const remove = `insert into ${name}(${name}, rowid, ${list}) values ('delete', old.id, ${values('old')});`;
  await sql.raw(`create trigger ${name}_delete after delete on ${table} begin ${remove} end`).execute(db);
  await sql.raw(`create trigger ${name}_update after update of ${list} on ${table} begin ${remove} insert into ${name}(rowid, ${list}) values (new.id, ${values('new')}); end`).execute(db);
  await sql.raw(`insert into ${name}(${name}) values ('rebuild')`).execute(db);
}

const capabilities: DatabaseCapabilities = { returning: true, insertReturning: true, updateReturning: false, rowLocks: false, failedStatementEndsTransaction: false, insertSkipsConflicts: false, modifyingWith: false, nullsSortFirst: true, foreignKeysIndexed: false, numbersChangesAfterCommit: false, runsOnEventLoop: true };

const createEntryTable: Ddl['createEntryTable'] = (db, name, columns) => withTimestamps(columns(db.schema.createTable(name).addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())));

const ddl: Ddl = {
  createEntryTable,
  createEntryTableWithReferences: entryTableWithReferences(createEntryTable, capabilities.foreignKeysIndexed),
  createLinkTable: (db, name, columns) => columns(db.schema.createTable(name)),
  // SQLite's 64-bit rowid; AUTOINCREMENT never gives a number again.
  createQueueTable: (db, name, columns) => columns(db.schema.createTable(name).addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())),
  // AUTOINCREMENT continues after the largest id ever used.
  continueIdsAfterSeeds: async () => undefined,
  dropIndex: async (db, _table, name) => {
    await db.schema.dropIndex(name).execute();
  },
  dropSearchIndex: async (db, _table, name) => dropSearchTable(db, name),
  createSearchIndex: async (db, table, name, columns) => createSearchTable(db, table, name, columns, ''),
  trimSearchIndex: async (db, table, name, columns) => {
    await dropSearchTable(db, name);
    await createSearchTable(db, table, name, columns, ', columnsize=0');
  },
  queueSearchIndexWrites: queueSearchWrites,
  writeSearchIndexDirectly: writeSearchDirectly,
  // NULL already sorts first here.
  nullsFirst: (column) => sql.ref(column),
};

export const sqliteDialect: DatabaseDialect = {
  schemes: ['sqlite:'],
  capabilities,
  describe: (url) => {
    const path = sqlitePath(url);
    return path === ':memory:' ? 'sqlite (in memory)' : `sqlite (${path})`;
  },
  open,
  privateToProcess: (url) => sqlitePath(url) === ':memory:',
  failureOf: (error) => {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== 'string') return undefined;
    const failure = FAILURES[code];
    if (failure !== undefined) return failure;
    // SQLITE_READONLY and its variants: a read-only file, folder or connection.
    if (code.startsWith('SQLITE_READONLY')) return 'read-only';
    return code.startsWith('SQLITE_IOERR') ? 'unavailable' : undefined;
  },
  startupFailureOf: (error) => {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== 'string') return undefined;
    // SQLITE_READONLY_DIRECTORY and the like: the extended codes of the ones above.
    return STARTUP_FAILURES[code] ?? STARTUP_FAILURES[code.replace(/_[A-Z]+$/, '')];
  },
  ddl,
  queries: {
    claimRows: (select) => select,
    // One writer at a time: the table's own count row is never waited for.
    countShard: () => undefined,
    joinedIds: (column) => sql`group_concat(${column})`,
    // SQLite's own collation, BINARY, compares UTF-8 bytes: code point order.
    binaryOrder: (column) => sql.ref(column),
    // SQLite takes an equality on an indexed column over reading the sort's index in order,
    // whatever its statistics say; a unary plus keeps the index out of it.
    notIndexed: (column) => sql`+${sql.ref(column)}`,
    // The trigram index narrows to rows holding the text in some column (folding case); the
    // LIKE the store keeps decides, so results are those of the plain scan. Under three
    // characters there is no trigram to look up.
    searchIndexMatch: (index, text) =>
      [...text].length < 3
        ? undefined
        : { condition: (value) => sql<SqlBool>`id in (select rowid from ${sql.table(index)} where ${sql.table(index)} match ${value})`, value: `"${text.replace(/"/g, '""')}"` },
    // All tables (0x10000), analysing those never analysed or grown or shrunk 25-fold since;
    // analysis_limit (set at open) makes each a sample, cheap however large the table.
    refreshStatistics: async (db) => {
      await sql`pragma optimize = 0x10002`.execute(db);
    },
    explain: (query) => CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    // "USE TEMP B-TREE FOR RIGHT PART OF ORDER BY" sorts only ties of the first key.
    sortsAllRows: (plan) => plan.some((row) => String(row.detail) === 'USE TEMP B-TREE FOR ORDER BY'),
    // "SCAN servers" walks the table; "SCAN servers USING INDEX …" walks an index in order
    // (a sort read in index order, stopped at the page's end); SEARCH looks up.
    readsTable: (plan, table) => plan.some((row) => new RegExp(`^(SCAN|SEARCH) ${table}\\b`).test(String(row.detail))),
    scansWholeTable: (plan, table) => plan.some((row) => new RegExp(`^SCAN ${table}\\b(?!.*USING (COVERING )?INDEX)`).test(String(row.detail))),
  },
};
