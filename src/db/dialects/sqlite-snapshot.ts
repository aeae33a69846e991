// SQLite's ReadSnapshot (database-dialect.ts). A read transaction on a connection of its own,
// read-only: in WAL mode it sees the database as of its first read while the service's one
// connection goes on committing writes beside it. On the service's own connection the export
// would hold it, and every write would wait, for as long as the answer streams. A database in
// memory has no file another connection could open: its snapshot is a copy of it, taken
// between two transactions of the service's connection.
import SqliteDatabase from 'better-sqlite3';
import type { ReadSnapshot } from './database-dialect.js';

/** The snapshot connection's page cache, in KiB. */
const SNAPSHOT_CACHE_KIB = 2048;

function nextTurn(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

/** The rows of `statement`, `size` at a time, read as they are asked for. */
function* batchesOf(statement: SqliteDatabase.Statement, parameters: readonly unknown[], size: number): Generator<unknown[][]> {
  let batch: unknown[][] = [];
  for (const row of statement.iterate(...parameters) as IterableIterator<unknown[]>) {
    batch.push(row);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function snapshotOn(connection: SqliteDatabase.Database): ReadSnapshot {
  try {
    // A deferred transaction takes its snapshot at its first read: made here, at once.
    connection.exec('begin');
    connection.prepare('select count(*) from sqlite_master').get();
  } catch (error) {
    connection.close();
    throw error;
  }
  let closed = false;
  return {
    async *batches(query, size) {
      // Each batch is read synchronously; between batches the event loop runs (the caller
      // waits for the socket), so that a million rows never hold it in one stretch.
      for (const batch of batchesOf(connection.prepare(query.sql).raw(true), query.parameters, size)) yield batch;
    },
    async close() {
      if (closed) return;
      closed = true;
      // Closing ends the read transaction; an iterator left half-way goes with it.
      connection.close();
    },
  };
}

/** A snapshot of the database file at `path`, on a read-only connection of its own. */
export async function fileSnapshot(path: string, busyTimeoutMs: number): Promise<ReadSnapshot> {
  const connection = new SqliteDatabase(path, { readonly: true, fileMustExist: true });
  connection.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // A snapshot reads each page about once, in order: a page cache of its own as large as the
  // service's (16 MB, better-sqlite3's default) only adds to resident memory while it streams.
  connection.pragma(`cache_size = -${SNAPSHOT_CACHE_KIB}`);
  return snapshotOn(connection);
}

/** A snapshot of a database in memory: a copy of it, made when none of its transactions is
 * open (an open one's writes are not committed, and may yet be rolled back). */
export async function memorySnapshot(database: SqliteDatabase.Database): Promise<ReadSnapshot> {
  while (database.inTransaction) await nextTurn();
  return snapshotOn(new SqliteDatabase(database.serialize()));
}
