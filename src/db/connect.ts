// Turns DATABASE_URL into a Kysely instance. Everything that differs between backends is
// decided here, once, and the rest of the code sees only Kysely and the capabilities.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, type Dialect } from 'kysely';
import { createPool as createMysqlPool } from 'mysql2';
import pg from 'pg';
import { ConfigError } from '../config.js';
import type { Database } from './database-schema.js';

export interface DatabaseCapabilities {
  /** INSERT … RETURNING gives the new id; otherwise the driver's insert id does. */
  readonly returning: boolean;
}

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly capabilities: DatabaseCapabilities;
  /** A short, credential-free description for logs. */
  readonly description: string;
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
}

function sqlitePath(url: string): string {
  const rest = url.slice('sqlite:'.length);
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '') throw new ConfigError('DATABASE_URL sqlite: needs a file path or :memory:');
  return path;
}

function sqlite(url: string, options: ConnectOptions): Backend {
  const path = sqlitePath(url);
  const inMemory = path === ':memory:';
  if (!inMemory) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const database = new SqliteDatabase(path);
  if (!inMemory) database.pragma('journal_mode = WAL');
  database.pragma(`synchronous = ${options.sqliteSynchronous}`);
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  return { dialect: new SqliteDialect({ database }), description: inMemory ? 'sqlite (in memory)' : `sqlite (${path})` };
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
  // An idle connection dropped by a restarting server must not take the process down; the
  // pool replaces it on next use.
  pool.on('error', () => undefined);
  return { dialect: new PostgresDialect({ pool }), description: describeServer('postgres', parsed) };
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
  return { dialect: new MysqlDialect({ pool }), description: describeServer('mariadb', parsed) };
}

const BACKENDS: Record<string, (url: string, options: ConnectOptions) => Backend> = {
  'sqlite:': sqlite,
  'postgres:': postgres,
  'postgresql:': postgres,
  'mysql:': mysql,
  'mariadb:': mysql,
};

export function connectDatabase(url: string, options: ConnectOptions): DatabaseHandle {
  const scheme = `${url.split(':', 1)[0]?.toLowerCase()}:`;
  const backend = BACKENDS[scheme];
  if (backend === undefined) {
    throw new ConfigError(`DATABASE_URL scheme "${scheme}" is not supported; use sqlite:, postgres:, postgresql:, mysql: or mariadb:`);
  }
  const { dialect, description } = backend(url, options);
  const db = new Kysely<Database>({ dialect });
  return { db, capabilities: { returning: db.getExecutor().adapter.supportsReturning }, description };
}
