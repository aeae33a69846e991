// A start that cannot use its database stops with one line on stderr that says what is wrong
// and what to check — no stack trace, no log line — and a non-zero exit: the database server
// cannot be reached, the database does not exist, the credentials are refused, the file cannot
// be opened, or the schema was made by a newer version. On the backend TEST_DATABASE names.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { connectDatabase } from '../../src/db/connect.js';
import { DEFAULT_REGISTRY } from '../../src/registry/registry.js';
import { prepareDatabase } from '../../src/store/prepare-database.js';
import { freePort } from '../support/free-port.js';
import { runToExit } from '../support/server.js';
import { BACKEND, createTestDatabase, MARIADB_ADMIN_URL, POSTGRES_ADMIN_URL } from '../support/test-database.js';

const SERVER_ADMIN_URL = BACKEND === 'postgres' ? POSTGRES_ADMIN_URL : MARIADB_ADMIN_URL;
const CONNECT = { sqliteSynchronous: 'FULL', poolSize: 2, connectTimeoutMs: 3000, queryTimeoutMs: 10_000, readOnly: false } as const;

/** Runs the service to its end with this DATABASE_URL, in a throw-away data folder. */
function startWith(databaseUrl: string | ((dir: string) => string)): { status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'config-api-startup-'));
  try {
    return runToExit(dir, { DATABASE_URL: typeof databaseUrl === 'string' ? databaseUrl : databaseUrl(dir) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Exit 1, nothing but one line on stderr that names the problem and what to check. */
function assertOneClearLine(run: { status: number | null; stdout: string; stderr: string }, what: RegExp, check: RegExp): void {
  assert.equal(run.status, 1, `exit status ${run.status}: ${run.stderr}`);
  const lines = run.stderr.split('\n').filter((line) => line !== '');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${run.stderr}`);
  assert.match(lines[0]!, /^config-api: cannot start: /);
  assert.match(lines[0]!, what);
  assert.match(lines[0]!, check);
  assert.doesNotMatch(`${run.stdout}${run.stderr}`, /\n\s+at |Error:/, 'no stack trace');
  assert.doesNotMatch(run.stdout, /Server listening/);
}

/** The admin URL with another user, password, port or database. */
function serverUrl(change: { username?: string; password?: string; port?: number; database?: string }): string {
  const url = new URL(SERVER_ADMIN_URL);
  if (change.username !== undefined) url.username = change.username;
  if (change.password !== undefined) url.password = change.password;
  if (change.port !== undefined) url.port = String(change.port);
  if (change.database !== undefined) url.pathname = `/${change.database}`;
  return url.toString();
}

describe(`start-up failures on ${BACKEND}`, { timeout: 120_000 }, () => {
  if (BACKEND === 'sqlite') {
    test('a database file that cannot be created', () => {
      const run = startWith((dir) => {
        writeFileSync(join(dir, 'a-file'), '');
        return `sqlite:${join(dir, 'a-file', 'config.db')}`;
      });
      assertOneClearLine(run, /the database file cannot be opened or created/, /check that the path of DATABASE_URL/);
    });

    test('a file that is not a SQLite database', () => {
      const run = startWith((dir) => {
        writeFileSync(join(dir, 'notes.db'), 'not a database, but long enough for SQLite to read its header'.repeat(4));
        return `sqlite:${join(dir, 'notes.db')}`;
      });
      assertOneClearLine(run, /the file is not a SQLite database/, /check the path of DATABASE_URL/);
    });
  } else {
    test('a database server that cannot be reached', async () => {
      const run = startWith(serverUrl({ port: await freePort() }));
      assertOneClearLine(run, /the database server cannot be reached \(connect ECONNREFUSED/, /check that it is running and that DATABASE_URL names its host and port/);
    });

    test('a database that does not exist', () => {
      const run = startWith(serverUrl({ database: `cfgtest_missing_${process.pid}` }));
      assertOneClearLine(run, /the database does not exist/, /create it .* or correct the database name in DATABASE_URL/);
    });

    test('a user the database server does not know', () => {
      const run = startWith(serverUrl({ username: `nobody_${process.pid}`, password: 'wrong' }));
      assertOneClearLine(run, /the database server refused the user or password/, /check the user and password in DATABASE_URL/);
    });

    // PostgreSQL here trusts loopback connections, so only a user it does not know is refused.
    if (BACKEND === 'mariadb') {
      test('a wrong password', () => {
        const run = startWith(serverUrl({ password: 'certainly-not-the-password' }));
        assertOneClearLine(run, /the database server refused the user or password/, /check the user and password in DATABASE_URL/);
      });
    }
  }

  test('a port already in use: one line naming the port and PORT, before the database is opened', async () => {
    const taken = createServer();
    await new Promise<void>((listening) => taken.listen({ port: 0, host: '127.0.0.1' }, listening));
    const port = (taken.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), 'config-api-startup-'));
    try {
      const run = runToExit(dir, { PORT: String(port) });
      assertOneClearLine(run, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`), /PORT/);
      assert.ok(!existsSync(join(dir, 'config.db')), 'the database was not created');
    } finally {
      taken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a schema made by a newer version of the service', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-api-startup-'));
    const database = await createTestDatabase(dir);
    try {
      const handle = connectDatabase(database.url, CONNECT);
      try {
        await prepareDatabase(handle, DEFAULT_REGISTRY.resources);
        await sql`insert into schema_migrations (name, timestamp) values (${'9999-from-a-newer-version'}, ${'2099-01-01T00:00:00.000Z'})`.execute(handle.db);
      } finally {
        await handle.db.destroy();
      }
      const run = runToExit(dir, { DATABASE_URL: database.url });
      assertOneClearLine(run, /the database schema is newer than this version of the service \(applied migrations unknown here: 9999-from-a-newer-version\)/, /run the version that applied them/);
    } finally {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
