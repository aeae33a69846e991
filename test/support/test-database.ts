// A fresh, empty database for one test server, on the backend named by TEST_DATABASE
// (sqlite, postgres or mariadb). Server-backed databases are created under a unique name
// through an admin URL and dropped afterwards.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { DEFAULT_REGISTRY } from '../../src/registry/registry.js';

export type Backend = 'sqlite' | 'postgres' | 'mariadb';

export const BACKEND: Backend = (() => {
  const name = process.env.TEST_DATABASE ?? 'sqlite';
  if (name !== 'sqlite' && name !== 'postgres' && name !== 'mariadb') throw new Error(`TEST_DATABASE=${name}: use sqlite, postgres or mariadb`);
  return name;
})();

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
export const MARIADB_ADMIN_URL = process.env.TEST_MARIADB_URL || 'mysql://root@127.0.0.1:3306/test';

export interface TestDatabase {
  readonly backend: Backend;
  /** DATABASE_URL for the service. */
  readonly url: string;
  /** The SQLite file, when the backend is SQLite. */
  readonly file?: string;
  /** Every byte or value the database holds, as text, to search for secrets. */
  dump(): Promise<string>;
  /** Every row of every table, as text: what a request that changes nothing leaves the same.
   * (SQLite's file bytes are not: its WAL is copied into the file in the background.) */
  rows(): Promise<string>;
  drop(): Promise<void>;
}

function withDatabase(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function postgresQuery<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function mariadbQuery<T>(url: string, work: (connection: mysql.Connection) => Promise<T>): Promise<T> {
  const connection = await mysql.createConnection({ uri: url, charset: 'utf8mb4' });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

/** The tables of every resource the registry describes, the link tables of their sets, those
 * of the API tokens, and the change log. */
const TABLES = [
  ...DEFAULT_REGISTRY.resources.flatMap((resource) => [
    resource.table,
    ...Object.values(resource.fields).flatMap((field) => (field.link === undefined ? [] : [field.link.table])),
  ]),
  'api_tokens',
  'api_token_state',
  'change_log',
];

/** Every table's rows, as one text. One query at a time: a pg client queues concurrent
 * queries, and pg 9 will refuse them. */
async function dumpTables(rowsOf: (table: string) => Promise<unknown>): Promise<string> {
  const parts: unknown[] = [];
  for (const table of TABLES) parts.push(await rowsOf(table));
  return JSON.stringify(parts);
}

/** `adminUrl`: the server to create it on, when not the shared one of TEST_DATABASE (a
 * private instance a test restarts: support/private-database-server.ts). */
export async function createTestDatabase(dataDir: string, adminUrl?: string): Promise<TestDatabase> {
  if (BACKEND === 'sqlite') {
    const file = join(dataDir, 'config.db');
    return {
      backend: BACKEND,
      url: `sqlite:${file}`,
      file,
      async dump() {
        return [file, `${file}-wal`]
          .filter((path) => existsSync(path))
          .map((path) => readFileSync(path).toString('latin1'))
          .join('\n');
      },
      async rows() {
        const reader = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
        try {
          // Every table, the search indexes' and SQLite's sequences too; not the planner's
          // statistics, which the service refreshes on its own, nor the webhook dispatcher's
          // position in the change log, which it moves after another request's commit.
          const tables = reader.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_stat%' and name <> 'webhook_state' order by name`).pluck().all() as string[];
          return JSON.stringify(tables.map((table) => [table, reader.prepare(`select * from "${table}"`).raw().all()]));
        } finally {
          reader.close();
        }
      },
      async drop() {},
    };
  }
  const name = `cfgtest_${process.pid}_${randomBytes(4).toString('hex')}`;
  if (BACKEND === 'postgres') {
    const admin = adminUrl ?? POSTGRES_ADMIN_URL;
    await postgresQuery(admin, (client) => client.query(`CREATE DATABASE ${name}`));
    const url = withDatabase(admin, name);
    const rows = () => postgresQuery(url, (client) => dumpTables(async (table) => (await client.query(`SELECT * FROM ${table}`)).rows));
    return {
      backend: BACKEND,
      url,
      // The rows are all this database holds that a test can read.
      dump: rows,
      rows,
      drop: () => postgresQuery(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
    };
  }
  const admin = adminUrl ?? MARIADB_ADMIN_URL;
  await mariadbQuery(admin, (connection) => connection.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`));
  const url = withDatabase(admin, name);
  const rows = () => mariadbQuery(url, (connection) => dumpTables(async (table) => (await connection.query(`SELECT * FROM ${table}`))[0]));
  return {
    backend: BACKEND,
    url,
    // The rows are all this database holds that a test can read.
    dump: rows,
    rows,
    drop: () => mariadbQuery(admin, (connection) => connection.query(`DROP DATABASE IF EXISTS ${name}`)).then(() => undefined),
  };
}
