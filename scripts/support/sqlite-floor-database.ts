// What the bench's floors that write the service's SQLite file share: the file opened with the
// service's settings, the service's insert of a server row, and the writes of one event-loop
// turn committed together with the search queue moved before the COMMIT, as the service's
// commit groups do (src/db/dialects/sqlite-commit-group.ts, sqlite-search-queue.ts).
import SqliteDatabase from 'better-sqlite3';

/** The statements that move the servers' search queue (migration 0014) into the index. */
export const SEARCH_QUEUE_MOVE = [
  'insert into servers_search(servers_search, rowid, ip, hostname) select command, row_id, ip, hostname from servers_search_queue order by seq',
  'delete from servers_search_queue',
] as const;

export const INSERT_SERVER = `insert into servers (ip, port, hostname, ssl, ssh, is_proxy, is_vip, is_monitored, is_deleted, live, created_at, updated_at)
   values (?, ?, ?, 0, 0, 0, 0, 1, 0, 1, ?, ?) returning *`;

/** The file at `file`, as the service opens it (src/db/dialects/sqlite.ts): the floor pays no more than it does. */
export function openFloorDatabase(file: string): SqliteDatabase.Database {
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('busy_timeout = 5000');
  database.pragma('temp_store = memory');
  return database;
}

/** A write function whose writes of one event-loop turn share one transaction; `committed` gets
 * the rows of each committed group. */
export function groupedWrites(database: SqliteDatabase.Database, committed: (rows: unknown[]) => void = () => undefined): (run: () => unknown) => Promise<unknown> {
  const queueExists = database.prepare(`select 1 from sqlite_master where name = 'servers_search_queue'`).get() !== undefined;
  const moveQueue = queueExists ? SEARCH_QUEUE_MOVE.map((text) => database.prepare(text)) : [];
  let queued: { run: () => unknown; done: (row: unknown) => void; fail: (error: unknown) => void }[] = [];
  const commit = (): void => {
    const group = queued;
    queued = [];
    const rows: unknown[] = [];
    try {
      database.transaction(() => {
        group.forEach((item) => rows.push(item.run()));
        for (const statement of moveQueue) statement.run();
      })();
    } catch (error) {
      group.forEach((item) => item.fail(error));
      return;
    }
    group.forEach((item, i) => item.done(rows[i]));
    committed(rows);
  };
  return (run) =>
    new Promise((done, fail) => {
      if (queued.length === 0) setImmediate(commit);
      queued.push({ run, done, fail });
    });
}
