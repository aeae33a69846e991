// The floor of an apply's creates (bench:config): the same servers stored by the barest
// statements the service's tables allow, through Kysely on the service's own database: one
// transaction of multi-row INSERTs of 100 servers (every column the service writes, copied
// from a server the apply stored), then their tag links, 100 rows per INSERT too. No check,
// no change record, no count: what is left of an apply once everything but storing the rows
// is taken away. The transaction commits (a commit's wait for the disk is part of an apply's
// time too): the bench gives every round a database of its own.
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import { cpuMilliseconds } from './service-process.js';
import { SEARCH_QUEUE_MOVE } from './sqlite-floor-database.js';

const ROWS_PER_INSERT = 100;

export interface FloorServer {
  readonly ip: string;
  readonly hostname: string;
  /** Tag names, of stored tags. */
  readonly tags: readonly string[];
}

function connect(url: string): Kysely<any> {
  if (url.startsWith('sqlite:')) {
    const database = new Database(url.slice('sqlite:'.length));
    database.pragma('busy_timeout = 60000');
    return new Kysely({ dialect: new SqliteDialect({ database }) });
  }
  return new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
}

/** Milliseconds to store `servers`, on the database at `url`, which holds at
 * least one live server to copy the other columns from; and the CPU time it took (this
 * process's, and on PostgreSQL the server backend's). */
export async function bareInsertFloor(url: string, servers: readonly FloorServer[]): Promise<{ ms: number; cpuMs: number }> {
  const db = connect(url);
  try {
    const model = (await db.selectFrom('servers').selectAll().where('live', '=', 1).limit(1).executeTakeFirstOrThrow()) as Record<string, unknown>;
    delete model.id;
    const tagIds = new Map((await db.selectFrom('tags').select(['id', 'name']).execute()).map((row) => [row.name as string, Number(row.id)]));
    const now = new Date().toISOString();
    let result = { ms: 0, cpuMs: 0 };
    let backendCpu = (): number => 0;
    let started = 0;
    let cpuBefore = process.cpuUsage();
    // One connection, BEGIN IMMEDIATE on SQLite (the service's background writes would make a
    // deferred transaction fail when it starts writing).
    await db.connection().execute(async (connection) => {
      if (!url.startsWith('sqlite:')) {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection);
        const pid = Number(rows[0]!.pid);
        const before = cpuMilliseconds(pid);
        backendCpu = () => cpuMilliseconds(pid) - before;
      }
      cpuBefore = process.cpuUsage();
      started = performance.now();
      await sql.raw(url.startsWith('sqlite:') ? 'begin immediate' : 'begin').execute(connection);
      try {
        const ids: number[] = [];
        for (let start = 0; start < servers.length; start += ROWS_PER_INSERT) {
          const rows = servers.slice(start, start + ROWS_PER_INSERT).map((server) => ({ ...model, ip: server.ip, hostname: server.hostname, created_at: now, updated_at: now }));
          const stored = await connection.insertInto('servers').values(rows).returning('id').execute();
          ids.push(...stored.map((row) => Number(row.id)).sort((a, b) => a - b));
        }
        const links = servers.flatMap((server, index) => server.tags.map((tag) => ({ id_server: ids[index], id_tag: tagIds.get(tag), owner_deleted: 0 })));
        for (let start = 0; start < links.length; start += ROWS_PER_INSERT) await connection.insertInto('server_tags').values(links.slice(start, start + ROWS_PER_INSERT)).execute();
        // SQLite's search index, where its writes wait in a queue (migration 0014): moved into the
        // index before the COMMIT, as the service's transactions do.
        if (url.startsWith('sqlite:') && (await sql`select 1 from sqlite_master where name = 'servers_search_queue'`.execute(connection)).rows.length > 0) {
          for (const text of SEARCH_QUEUE_MOVE) await sql.raw(text).execute(connection);
        }
        await sql.raw('commit').execute(connection);
      } catch (error) {
        await sql.raw('rollback').execute(connection);
        throw error;
      }
      const own = process.cpuUsage(cpuBefore);
      result = { ms: performance.now() - started, cpuMs: (own.user + own.system) / 1000 + backendCpu() };
    });
    return result;
  } finally {
    await db.destroy();
  }
}
