// Turns DATABASE_URL into a Kysely instance. Everything that differs between backends is
// decided here, once, and exposed as capabilities.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
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
}

function sqlitePath(url: string): string {
  const rest = url.slice('sqlite:'.length);
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '') throw new ConfigError('DATABASE_URL sqlite: needs a file path or :memory:');
  return path;
}

function connectSqlite(url: string, options: ConnectOptions): DatabaseHandle {
  const path = sqlitePath(url);
  const inMemory = path === ':memory:';
  if (!inMemory) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const database = new SqliteDatabase(path);
  if (!inMemory) database.pragma('journal_mode = WAL');
  database.pragma(`synchronous = ${options.sqliteSynchronous}`);
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  return {
    db: new Kysely<Database>({ dialect: new SqliteDialect({ database }) }),
    capabilities: { returning: true },
    description: inMemory ? 'sqlite (in memory)' : `sqlite (${path})`,
  };
}

export function connectDatabase(url: string, options: ConnectOptions): DatabaseHandle {
  if (url.startsWith('sqlite:')) return connectSqlite(url, options);
  const scheme = url.split(':', 1)[0];
  throw new ConfigError(`DATABASE_URL scheme "${scheme}:" is not supported; use sqlite:`);
}
