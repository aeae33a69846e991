// PostgreSQL through node-postgres: a pool per instance, row locks, RETURNING, and a
// transaction that a refused statement aborts as a whole.
import { CompiledQuery, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Ddl } from '../migrations/ddl.js';
import { entryTableWithReferences, withTimestamps } from './entry-table.js';
import type { ConnectOptions, DatabaseCapabilities, DatabaseDialect, DatabaseFailure, OpenedDatabase, ReadSnapshot } from './database-dialect.js';
import { describeServer, parseServerUrl, serverFailureOf, serverStartupFailureOf } from './server-url.js';
import { clientPreparingWrites, StatementNames } from './prepared-writes.js';

/** The channel on which a commit that wrote change records is signalled. */
const CHANGE_CHANNEL = 'pmacontrol_changes';

/** A snapshot on a client of the pool: REPEATABLE READ sees the database as of its first
 * statement. Each read is a cursor of the transaction, fetched a batch at a time: the sort is
 * made once (a keyset walk ordered under COLLATE "C" could not use the default-collation index,
 * and would sort the table again for every batch). */
async function openReadSnapshot(pool: pg.Pool): Promise<ReadSnapshot> {
  const client = await pool.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  let cursors = 0;
  let closed = false;
  return {
    async *batches(query, size) {
      cursors += 1;
      const name = `snapshot_rows_${cursors}`;
      await client.query({ text: `declare ${name} no scroll cursor for ${query.sql}`, values: [...query.parameters] });
      for (;;) {
        const { rows } = await client.query({ text: `fetch forward ${Number(size)} from ${name}`, values: [], rowMode: 'array' });
        if (rows.length > 0) yield rows as unknown[][];
        if (rows.length < size) break;
      }
      await client.query(`close ${name}`);
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        // Ends the transaction and its cursors, read to the end or not.
        await client.query('commit');
        client.release();
      } catch (error) {
        // A connection that failed is not given back to the pool.
        client.release(error as Error);
      }
    },
  };
}

function open(url: string, options: ConnectOptions): OpenedDatabase {
  const pool = new pg.Pool({
    connectionString: url,
    // Write statements prepared once per connection (prepared-writes.ts).
    Client: clientPreparingWrites(new StatementNames()),
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: options.queryTimeoutMs,
    idleTimeoutMillis: 30_000,
    // READ_ONLY=true: every session refuses writes, so the server vouches that none happen.
    ...(options.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
  });
  // A connection dropped by a restarting server must not take the process down: the pool
  // reports it for idle clients, the client itself for one in use (its query fails on its
  // own, and becomes a 503). The pool replaces lost clients on next use.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return {
    dialect: new PostgresDialect({ pool }),
    poolStatistics: () => ({ max: options.poolSize, open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    openReadSnapshot: () => openReadSnapshot(pool),
    changeSignal: {
      notify: CompiledQuery.raw(`select pg_notify('${CHANGE_CHANNEL}', '')`),
      // A connection of its own, outside the pool: LISTEN holds its session. If it drops,
      // the change feed's poll still finds every change, only later.
      async listen(onSignal) {
        const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: options.connectTimeoutMs });
        client.on('error', () => undefined);
        client.on('notification', () => onSignal());
        await client.connect();
        await client.query(`listen ${CHANGE_CHANNEL}`);
        return async () => {
          await client.end();
        };
      },
    },
  };
}

const FAILURES: Readonly<Record<string, DatabaseFailure>> = {
  '23505': 'unique',
  '23503': 'foreign-key',
  // Serialization failures and deadlocks are transient: the caller should try again, as
  // after an outage. So are a cancelled statement (timeout) and a server shutting down.
  '40001': 'unavailable',
  '40P01': 'unavailable',
  '57014': 'unavailable',
  '57P01': 'unavailable',
  '57P02': 'unavailable',
  '57P03': 'unavailable',
  '08000': 'unavailable',
  '08001': 'unavailable',
  '08003': 'unavailable',
  '08006': 'unavailable',
  // The database does not exist (any more), or the server has too many connections.
  '3D000': 'unavailable',
  '57P04': 'unavailable',
  '53300': 'unavailable',
  '53100': 'full',
  // A read-only transaction (a hot standby, default_transaction_read_only), or a user
  // without the privilege to write: either way the database refuses this service's writes.
  '25006': 'read-only',
  '42501': 'read-only',
};

// node-postgres reports a lost or unobtainable connection without a code.
// "not queryable": a client whose connection broke mid-transaction, asked for its ROLLBACK.
const UNAVAILABLE_MESSAGE = /timeout exceeded when trying to connect|Connection terminated|Query read timeout|Pool is closed|connection is closed|not queryable/i;

const failureOf = serverFailureOf(FAILURES, UNAVAILABLE_MESSAGE);

const capabilities: DatabaseCapabilities = { returning: true, insertReturning: true, updateReturning: true, rowLocks: true, failedStatementEndsTransaction: true, insertSkipsConflicts: true, modifyingWith: true, nullsSortFirst: false, foreignKeysIndexed: false, numbersChangesAfterCommit: true, runsOnEventLoop: false };

const createEntryTable: Ddl['createEntryTable'] = (db, name, columns) => withTimestamps(columns(db.schema.createTable(name).addColumn('id', 'serial', (c) => c.primaryKey())));

const ddl: Ddl = {
  createEntryTable,
  createEntryTableWithReferences: entryTableWithReferences(createEntryTable, capabilities.foreignKeysIndexed),
  createLinkTable: (db, name, columns) => columns(db.schema.createTable(name)),
  createQueueTable: (db, name, columns) => columns(db.schema.createTable(name).addColumn('seq', 'bigserial', (c) => c.primaryKey())),
  // Explicit ids do not move a PostgreSQL sequence.
  continueIdsAfterSeeds: async (db, table) => {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${sql.table(table)}))`.execute(db);
  },
  dropIndex: async (db, _table, name) => {
    await db.schema.dropIndex(name).execute();
  },
  dropSearchIndex: async (db, _table, name, columns) => {
    for (const column of columns) await sql`drop index ${sql.id(`${name}_${column}`)}`.execute(db);
  },
  // pg_trgm is a trusted extension: the database's owner may create it. Without fastupdate,
  // a write updates the index at once: no pending list that every search must read (and
  // that makes the planner shun the index until a vacuum).
  createSearchIndex: async (db, table, name, columns) => {
    await sql`create extension if not exists pg_trgm`.execute(db);
    for (const column of columns) {
      await sql`create index ${sql.id(`${name}_${column}`)} on ${sql.table(table)} using gin (lower(${sql.ref(column)}) gin_trgm_ops) with (fastupdate = off)`.execute(db);
    }
  },
  // A GIN trigram index holds nothing but what the search reads.
  trimSearchIndex: async () => undefined,
  queueSearchIndexWrites: async () => undefined,
  writeSearchIndexDirectly: async () => undefined,
  nullsFirst: (column) => sql`${sql.ref(column)} nulls first`,
};

export const postgresDialect: DatabaseDialect = {
  schemes: ['postgres:', 'postgresql:'],
  capabilities,
  describe: (url) => describeServer('postgres', parseServerUrl(url)),
  open,
  privateToProcess: () => false,
  failureOf,
  // 28000: the role does not exist (or pg_hba.conf has no line for it); 28P01: wrong password.
  startupFailureOf: serverStartupFailureOf({ '3D000': 'database-missing', '28000': 'access-denied', '28P01': 'access-denied' }, failureOf),
  ddl,
  queries: {
    claimRows: (select) => select.forUpdate().skipLocked(),
    // Still atomic and in order; only the wait for the WAL's flush is skipped (for the
    // webhooks' leases and results, which a crash makes again).
    lazyCommit: sql`set local synchronous_commit = off`,
    // A bitmap scan of the webhook's due deliveries and a sort of them all is the plan any
    // statistics older than the backlog give; with no sort the index gives them in order.
    orderedClaim: sql`set local enable_sort = off`,
    // One statement, one transaction. The queue is read under the condition of the state row
    // (an InitPlan, run first): the lock is taken before any record is deleted, so two runs
    // never wait for each other's rows while holding the lock (a deadlock). The snapshot is
    // taken before the lock is granted, which changes nothing: READ COMMITTED re-reads the locked row's latest last_id,
    // and a record another run moved meanwhile is skipped by the DELETE (deleted already), so
    // exactly the records deleted here are numbered, with ids after the latest last_id, under
    // the lock until the commit. Records committed after the snapshot wait for the next run.
    numberChanges: async (db, batch) => {
      const { rows } = await sql<{ last_id: string; moved: string }>`
        with state as (select last_id from change_log_state where id = 1 for update),
        batch as (select seq from change_log_pending where (select last_id from state) is not null order by seq limit ${batch}),
        moved as (delete from change_log_pending p using batch b where p.seq = b.seq returning p.*),
        numbered as (
          insert into change_log (id, at, action, resource, entry_id, actor, request_id, before_json, after_json, secrets_changed_json)
          select (select last_id from state) + row_number() over (order by seq), at, action, resource, entry_id, actor, request_id, before_json, after_json, secrets_changed_json
          from moved
          returning id)
        update change_log_state set last_id = (select max(id) from numbered)
        where id = 1 and exists (select 1 from numbered)
        returning last_id, (select count(*) from numbered) as moved, pg_notify(${CHANGE_CHANNEL}, '') as signal`.execute(db);
      const row = rows[0];
      return row === undefined ? { moved: 0, lastId: 0 } : { moved: Number(row.moved), lastId: Number(row.last_id) };
    },
    countShard: (shards) => sql<number>`pg_backend_pid() % ${sql.lit(shards)}`,
    joinedIds: (column) => sql`string_agg(cast(${column} as text), ',')`,
    searchIndexMatch: () => undefined,
    // The database's collation may sort by language rules (en_US): "C" sorts by code point.
    binaryOrder: (column) => sql`${sql.ref(column)} collate "C"`,
    // PostgreSQL weighs the condition by its statistics (an expression would have none).
    notIndexed: (column) => sql.ref(column),
    // Autovacuum analyses too, but only after enough changes; ANALYZE reads a sample.
    refreshStatistics: async (db, tables) => {
      await sql`analyze ${sql.join(tables.map((table) => sql.table(table)))}`.execute(db);
    },
    explain: (query) => CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
    // An Incremental Sort sorts only ties of the keys read in order.
    sortsAllRows: (plan) => plan.some((row) => /^\s*(->\s*)?Sort\b/.test(String(row['QUERY PLAN']))),
    // Seq Scan, Index (Only) Scan, Bitmap Heap Scan: each names the table it reads.
    readsTable: (plan, table) => plan.some((row) => new RegExp(` on ${table}\\b`).test(String(row['QUERY PLAN']))),
    scansWholeTable: (plan, table) => plan.some((row) => new RegExp(`Seq Scan on ${table}\\b`).test(String(row['QUERY PLAN']))),
  },
};
