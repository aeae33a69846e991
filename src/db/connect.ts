// Turns DATABASE_URL into a Kysely instance. Everything that differs between backends is
// decided here, once, and the rest of the code sees only Kysely and the capabilities.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  MysqlDialect,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';
import { createPool as createMysqlPool } from 'mysql2';
import pg from 'pg';
import { ConfigError } from '../config.js';
import { makeRoom } from './bounded-map.js';
import type { Database } from './database-schema.js';

export interface DatabaseCapabilities {
  /** INSERT … RETURNING gives the new id; otherwise the driver's insert id does. */
  readonly returning: boolean;
  /** SELECT … FOR UPDATE exists and is needed: concurrent transactions could otherwise both
   * read an entry before either writes it. SQLite has neither the syntax nor the need: its
   * one connection runs transactions one at a time. */
  readonly rowLocks: boolean;
  /** Write transactions run one at a time, each COMMIT waiting for an fsync: writes that
   * arrive together then share one transaction (CommitGroup). PostgreSQL and MariaDB run
   * transactions side by side and group commits themselves. */
  readonly groupCommit: boolean;
  /** A statement refused by a constraint is undone alone and the transaction goes on
   * (SQLite, MariaDB); PostgreSQL aborts the whole transaction instead. Where it goes on,
   * writes rely on the unique indexes to find conflicts rather than looking first. */
  readonly statementRollback: boolean;
}

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly capabilities: DatabaseCapabilities;
  /** A short, credential-free description for logs. */
  readonly description: string;
  /** Resolves once `select 1` has answered, rejects if it fails or takes over `timeoutMs`. */
  ping(timeoutMs: number): Promise<void>;
  /** The connection pool's figures now; undefined for embedded SQLite, which has no pool. */
  readonly poolStatistics: (() => PoolStatistics) | undefined;
  /** A value that changes whenever another connection commits, read synchronously where an
   * embedded database tells it without a round trip (SQLite's data_version); undefined where
   * it cannot (PostgreSQL, MariaDB). */
  readonly changeMarker: (() => unknown) | undefined;
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
  /** Connections a server-backed pool opens at most. */
  poolSize: number;
  /** How long to wait for a connection before answering 503. */
  connectTimeoutMs: number;
  /** How long one statement may run before it is abandoned. */
  queryTimeoutMs: number;
}

interface Backend {
  dialect: Dialect;
  description: string;
  rowLocks: boolean;
  statementRollback: boolean;
  poolStatistics?: () => PoolStatistics;
  /** See DatabaseHandle. */
  changeMarker?: () => unknown;
}

// A deferred BEGIN takes the write lock only at the first write: when another process (a
// cluster worker) committed since this transaction read, SQLite fails it with BUSY_SNAPSHOT
// at once instead of waiting. BEGIN IMMEDIATE takes the lock first and waits busy_timeout,
// so transactions of every process on one file run one at a time, as they do within one.
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

// SQLite runs DDL in transactions, though Kysely's adapter says otherwise. Saying so makes
// the migrator run in one BEGIN IMMEDIATE transaction, so that processes starting together
// on one file migrate it one after the other instead of each creating the same tables.
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

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

function sqlite(url: string, options: ConnectOptions): Backend {
  const path = sqlitePath(url);
  const inMemory = path === ':memory:';
  if (!inMemory) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const database = new SqliteDatabase(path);
  // First: another process starting on the same file may hold a lock for a moment.
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  if (!inMemory) enterWalMode(database);
  database.pragma(`synchronous = ${options.sqliteSynchronous}`);
  database.pragma('foreign_keys = ON');
  const dataVersion = database.prepare('pragma data_version').pluck();
  // SQLite's lower() folds ASCII only; list search must fold 'É' like PostgreSQL and MariaDB do.
  database.function('lower', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
  return {
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(database) }),
    description: inMemory ? 'sqlite (in memory)' : `sqlite (${path})`,
    rowLocks: false,
    statementRollback: true,
    // On the raw handle, past Kysely's connection queue (a cache hit then needs no await): the
    // statement runs synchronously, so never in the middle of another one.
    changeMarker: () => dataVersion.get(),
  };
}

// Kysely prepares every query anew; SQLite then parses and plans the same few statements
// thousands of times a second. Statements are reusable (Kysely runs them to completion
// before the next), so keep them, a bounded number, by their SQL text.
const STATEMENTS_KEPT = 512;

function withStatementCache(database: SqliteDatabase.Database): SqliteDialectConfig['database'] {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = database.prepare(sql);
        makeRoom(statements, STATEMENTS_KEPT);
        statements.set(sql, statement);
      }
      return statement;
    },
  } as SqliteDialectConfig['database'];
}

function parseServerUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new ConfigError('DATABASE_URL is not a valid URL');
  }
}

/** Where a server-backed database is, without the credentials. */
function describeServer(kind: string, url: URL): string {
  return `${kind} (${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname})`;
}

function postgres(url: string, options: ConnectOptions): Backend {
  const parsed = parseServerUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: options.queryTimeoutMs,
    idleTimeoutMillis: 30_000,
  });
  // A connection dropped by a restarting server must not take the process down: the pool
  // reports it for idle clients, the client itself for one in use (its query fails on its
  // own, and becomes a 503). The pool replaces lost clients on next use.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return {
    dialect: new PostgresDialect({ pool }),
    description: describeServer('postgres', parsed),
    rowLocks: true,
    statementRollback: false,
    poolStatistics: () => ({ max: options.poolSize, open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

function mysql(url: string, options: ConnectOptions): Backend {
  const parsed = parseServerUrl(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (database === '') throw new ConfigError('DATABASE_URL must name a database, e.g. mysql://user@host:3306/config');
  const pool = createMysqlPool({
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
  });
  // mysql2 publishes no pool figures; these queues have held them since its first release.
  const queues = pool as unknown as Record<'_allConnections' | '_freeConnections' | '_connectionQueue', { length: number }>;
  return {
    dialect: new MysqlDialect({ pool }),
    description: describeServer('mariadb', parsed),
    rowLocks: true,
    statementRollback: true,
    poolStatistics: () => ({
      max: options.poolSize,
      open: queues._allConnections.length,
      idle: queues._freeConnections.length,
      waiting: queues._connectionQueue.length,
    }),
  };
}

const BACKENDS: Record<string, (url: string, options: ConnectOptions) => Backend> = {
  'sqlite:': sqlite,
  'postgres:': postgres,
  'postgresql:': postgres,
  'mysql:': mysql,
  'mariadb:': mysql,
};

async function ping(db: Kysely<Database>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const answer = sql`select 1`.execute(db);
  // A pool that is still waiting for a connection keeps the query pending past the deadline;
  // its late failure must not become an unhandled rejection.
  answer.catch(() => undefined);
  const deadline = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export function connectDatabase(url: string, options: ConnectOptions): DatabaseHandle {
  const scheme = `${url.split(':', 1)[0]?.toLowerCase()}:`;
  const backend = BACKENDS[scheme];
  if (backend === undefined) {
    throw new ConfigError(`DATABASE_URL scheme "${scheme}" is not supported; use sqlite:, postgres:, postgresql:, mysql: or mariadb:`);
  }
  const { dialect, description, rowLocks, statementRollback, poolStatistics, changeMarker } = backend(url, options);
  const db = new Kysely<Database>({ dialect });
  const capabilities = {
    returning: db.getExecutor().adapter.supportsReturning,
    rowLocks,
    groupCommit: !rowLocks,
    statementRollback,
  };
  return {
    db,
    capabilities,
    description,
    ping: (timeoutMs) => ping(db, timeoutMs),
    poolStatistics,
    changeMarker,
  };
}
