// MariaDB (and MySQL) through mysql2: a pool per instance, row locks, no RETURNING, binary
// collation so that uniqueness is exact as on the other backends.
import { CompiledQuery, MysqlDialect, sql } from 'kysely';
import { createPool, type Pool, type PoolConnection } from 'mysql2';
import { ConfigError } from '../../errors/config-error.js';
import type { Ddl } from '../migrations/ddl.js';
import { PENDING_COLUMNS } from '../database-schema.js';
import { entryTableWithReferences, withTimestamps } from './entry-table.js';
import type { ConnectOptions, DatabaseCapabilities, DatabaseDialect, DatabaseFailure, OpenedDatabase, ReadSnapshot, SingleCreateStatement } from './database-dialect.js';
import { describeServer, parseServerUrl, serverFailureOf, serverStartupFailureOf } from './server-url.js';

function run(connection: PoolConnection, statement: string): Promise<void> {
  return new Promise((done, fail) => connection.query(statement, (error) => (error ? fail(error) : done())));
}

/** Rows a snapshot's read holds before the connection is paused (back-pressure). */
const STREAM_BUFFER_ROWS = 2000;

/** A snapshot on a connection of the pool: a consistent-snapshot transaction at REPEATABLE
 * READ. Each read is one statement whose rows are streamed, the connection paused while the
 * reader is behind. The connection is destroyed at the end rather than given back: its
 * statement time limit is lifted (a read paused by a slow reader may last long), and a read
 * left half-way cannot be taken up by the next user of the pool. */
async function openReadSnapshot(pool: Pool): Promise<ReadSnapshot> {
  const connection = await new Promise<PoolConnection>((done, fail) => pool.getConnection((error, got) => (error ? fail(error) : done(got))));
  try {
    await run(connection, 'SET SESSION max_statement_time = 0');
    await run(connection, 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await run(connection, 'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
  } catch (error) {
    connection.destroy();
    throw error;
  }
  let closed = false;
  return {
    async *batches(query, size) {
      const rows = connection.query({ sql: query.sql, values: [...query.parameters], rowsAsArray: true }).stream({ highWaterMark: STREAM_BUFFER_ROWS });
      let batch: unknown[][] = [];
      for await (const row of rows) {
        batch.push(row as unknown[]);
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    },
    async close() {
      if (closed) return;
      closed = true;
      connection.destroy();
    },
  };
}

function open(url: string, options: ConnectOptions): OpenedDatabase {
  const parsed = parseServerUrl(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (database === '') throw new ConfigError('DATABASE_URL must name a database, e.g. mysql://user@host:3306/config');
  const pool = createPool({
    host: parsed.hostname,
    port: parsed.port === '' ? 3306 : Number(parsed.port),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database,
    connectionLimit: options.poolSize,
    connectTimeout: options.connectTimeoutMs,
    charset: 'utf8mb4',
    timezone: 'Z',
    supportBigNumbers: true,
    enableKeepAlive: true,
  });
  pool.on('connection', (connection) => {
    // MariaDB's statement time limit; MySQL refuses the variable, which is harmless here.
    connection.query(`SET SESSION max_statement_time = ${options.queryTimeoutMs / 1000}`, () => undefined);
    // READ_ONLY=true: every session refuses writes, so the server vouches that none happen.
    if (options.readOnly) connection.query('SET SESSION TRANSACTION READ ONLY', () => undefined);
  });
  // mysql2 publishes no pool figures; these queues have held them since its first release.
  const queues = pool as unknown as Record<'_allConnections' | '_freeConnections' | '_connectionQueue', { length: number }>;
  return {
    dialect: new MysqlDialect({ pool }),
    poolStatistics: () => ({
      max: options.poolSize,
      open: queues._allConnections.length,
      idle: queues._freeConnections.length,
      waiting: queues._connectionQueue.length,
    }),
    openReadSnapshot: () => openReadSnapshot(pool),
  };
}

const FAILURES: Readonly<Record<string, DatabaseFailure>> = {
  ER_DUP_ENTRY: 'unique',
  ER_NO_REFERENCED_ROW_2: 'foreign-key',
  ER_ROW_IS_REFERENCED_2: 'foreign-key',
  ER_NO_REFERENCED_ROW: 'foreign-key',
  ER_ROW_IS_REFERENCED: 'foreign-key',
  // Deadlocks and lock waits (Galera certification conflicts among them) are transient: the
  // caller should try again, as after an outage.
  ER_LOCK_DEADLOCK: 'unavailable',
  ER_LOCK_WAIT_TIMEOUT: 'unavailable',
  PROTOCOL_CONNECTION_LOST: 'unavailable',
  PROTOCOL_SEQUENCE_TIMEOUT: 'unavailable',
  ER_CON_COUNT_ERROR: 'unavailable',
  ER_STATEMENT_TIMEOUT: 'unavailable',
  ER_SERVER_SHUTDOWN: 'unavailable',
  // The database does not exist (any more).
  ER_BAD_DB_ERROR: 'unavailable',
  ER_RECORD_FILE_FULL: 'full',
  ER_DISK_FULL: 'full',
  // read_only or innodb_read_only servers, read-only transactions, and a user without the
  // privilege to write: either way the database refuses this service's writes.
  ER_OPTION_PREVENTS_STATEMENT: 'read-only',
  ER_READ_ONLY_MODE: 'read-only',
  ER_INNODB_READ_ONLY: 'read-only',
  ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION: 'read-only',
  ER_TABLEACCESS_DENIED_ERROR: 'read-only',
};

// Binary collation: uniqueness and equality are exact, as on SQLite and PostgreSQL.
const TABLE_OPTIONS = sql`engine = InnoDB default charset = utf8mb4 collate = utf8mb4_bin`;

// mysql2 reports a command on a connection that broke mid-transaction (its ROLLBACK) without a code.
const failureOf = serverFailureOf(FAILURES, /Can't add new command when connection is in closed state/i);

const PENDING = PENDING_COLUMNS.join(', ');

/** A change sequencer run (DialectQueries.numberChanges) as one compound statement: the steps
 * of ChangeSequencer's own run, in the same order and transaction (READ COMMITTED, the state
 * row locked first; the committed records' seqs read once, as a JSON array, and exactly those
 * moved and deleted), sent in one round trip instead of nine. Any error rolls the run back
 * before it is raised, so that no connection goes back to the pool inside a transaction. */
function numberChanges(batch: number) {
  const seqs = sql.raw(`json_table(v_seqs, '$[*]' columns (seq bigint path '$')) j`);
  return sql<unknown>`begin not atomic
  declare v_last bigint;
  declare v_seqs longtext;
  declare v_moved int default 0;
  declare exit handler for sqlexception begin rollback; resignal; end;
  set transaction isolation level read committed;
  start transaction;
  select last_id into v_last from change_log_state where id = 1 for update;
  select json_arrayagg(seq), count(*) into v_seqs, v_moved from (select seq from change_log_pending order by seq limit ${batch}) b;
  if v_moved > 0 then
    insert into change_log (id, ${sql.raw(PENDING)})
      select v_last + row_number() over (order by p.seq), ${sql.raw(PENDING_COLUMNS.map((column) => `p.${column}`).join(', '))}
      from ${seqs} join change_log_pending p on p.seq = j.seq;
    delete from change_log_pending where seq in (select j.seq from ${seqs});
    if row_count() <> v_moved then
      signal sqlstate '45000' set message_text = 'the change sequencer moved and deleted different numbers of records';
    end if;
    update change_log_state set last_id = v_last + v_moved where id = 1;
  end if;
  commit;
  select v_last + v_moved as last_id, v_moved as moved;
end`;
}

/** DialectQueries.singleCreate: one compound statement. ER_DUP_ENTRY (1062, a unique value
 * taken) rolls it back and ends it without a row; any other error rolls it back and is raised. */
function singleCreate(table: string, columns: readonly string[], shards: number): SingleCreateStatement {
  const id = (name: string) => `\`${name.replaceAll('`', '``')}\``;
  const counts = 'set total = total + ?, live = live + ?, changes = changes + 1 where table_name = ?';
  const text = `begin not atomic
  declare v_id bigint;
  declare exit handler for 1062 rollback;
  declare exit handler for sqlexception begin rollback; resignal; end;
  start transaction;
  insert into ${id(table)} (${columns.map(id).join(', ')}) values (${columns.map(() => '?').join(', ')});
  set v_id = last_insert_id();
  update resource_count_shards ${counts} and shard = connection_id() % ${Math.trunc(shards)};
  if row_count() = 0 then
    update resource_counts ${counts};
  end if;
  insert into change_log_pending (${PENDING}) values (?, ?, ?, v_id, ?, ?, null, concat(?, v_id, ?), ?);
  commit;
  select v_id as id;
end`;
  return {
    sql: text,
    parameters: ({ row, table: name, total, live, record }) => [
      ...row,
      total, live, name,
      total, live, name,
      record.at, record.action, record.resource, record.actor, record.requestId, record.afterHead, record.afterTail, record.secretsChanged,
    ],
  };
}

const capabilities: DatabaseCapabilities = { returning: false, insertReturning: true, updateReturning: false, rowLocks: true, failedStatementEndsTransaction: false, insertSkipsConflicts: false, modifyingWith: false, nullsSortFirst: true, foreignKeysIndexed: true, numbersChangesAfterCommit: true, runsOnEventLoop: false };

const createEntryTable: Ddl['createEntryTable'] = (db, name, columns) =>
    withTimestamps(columns(db.schema.createTable(name).addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())))
      .modifyEnd(TABLE_OPTIONS);

const ddl: Ddl = {
  createEntryTable,
  createEntryTableWithReferences: entryTableWithReferences(createEntryTable, capabilities.foreignKeysIndexed),
  createLinkTable: (db, name, columns) => columns(db.schema.createTable(name)).modifyEnd(TABLE_OPTIONS),
  createQueueTable: (db, name, columns) =>
    columns(db.schema.createTable(name).addColumn('seq', 'bigint', (c) => c.primaryKey().autoIncrement())).modifyEnd(TABLE_OPTIONS),
  // AUTO_INCREMENT continues after the largest id.
  continueIdsAfterSeeds: async () => undefined,
  dropIndex: async (db, table, name) => {
    await db.schema.dropIndex(name).on(table).execute();
  },
  // InnoDB's FULLTEXT indexes words, not substrings: `q` stays a scan here.
  dropSearchIndex: async () => undefined,
  createSearchIndex: async () => undefined,
  trimSearchIndex: async () => undefined,
  queueSearchIndexWrites: async () => undefined,
  writeSearchIndexDirectly: async () => undefined,
  // NULL already sorts first here (and MariaDB has no NULLS FIRST).
  nullsFirst: (column) => sql.ref(column),
};

export const mariadbDialect: DatabaseDialect = {
  schemes: ['mysql:', 'mariadb:'],
  capabilities,
  describe: (url) => describeServer('mariadb', parseServerUrl(url)),
  open,
  privateToProcess: () => false,
  failureOf,
  startupFailureOf: serverStartupFailureOf(
    {
      ER_BAD_DB_ERROR: 'database-missing',
      ER_ACCESS_DENIED_ERROR: 'access-denied',
      ER_ACCESS_DENIED_NO_PASSWORD_ERROR: 'access-denied',
      ER_DBACCESS_DENIED_ERROR: 'access-denied',
    },
    failureOf,
  ),
  ddl,
  queries: {
    claimRows: (select) => select.forUpdate().skipLocked(),
    singleCreate,
    numberChanges: async (db, batch) => {
      const { rows } = await numberChanges(batch).execute(db);
      // The compound statement answers its last SELECT's rows, then its own OK packet.
      const first = rows[0] as unknown;
      const result = (Array.isArray(first) ? first[0] : first) as { last_id?: unknown; moved?: unknown } | undefined;
      return { moved: Number(result?.moved ?? 0), lastId: Number(result?.last_id ?? 0) };
    },
    countShard: (shards) => sql<number>`connection_id() % ${sql.lit(shards)}`,
    joinedIds: (column) => sql`group_concat(${column})`,
    searchIndexMatch: () => undefined,
    // The tables' utf8mb4_bin collation sorts by code point already.
    binaryOrder: (column) => sql.ref(column),
    // MariaDB weighs the condition by its index statistics.
    notIndexed: (column) => sql.ref(column),
    // InnoDB keeps persistent statistics and recomputes them after 10% of a table changed;
    // ANALYZE TABLE recomputes them now, from sampled pages.
    refreshStatistics: async (db, tables) => {
      await sql`analyze table ${sql.join(tables.map((table) => sql.table(table)))}`.execute(db);
    },
    explain: (query) => CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
    sortsAllRows: (plan) => plan.some((row) => String(row.Extra ?? '').includes('Using filesort')),
    readsTable: (plan, table) => plan.some((row) => row.table === table),
    // Access type ALL: every row of the table is read.
    scansWholeTable: (plan, table) => plan.some((row) => row.table === table && row.type === 'ALL'),
  },
};
