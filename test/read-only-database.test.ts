// A database that refuses writes, made for real on each backend: on SQLite a database file
// that belongs to another user (the service runs as `nobody`), on PostgreSQL a database whose
// sessions are read-only (as on a hot standby), on MariaDB a user granted SELECT only. The
// service must refuse to start on it, with one clear line and a non-zero exit, unless
// READ_ONLY=true, where it serves every read and answers every write 503 READ_ONLY. On
// PostgreSQL the database also turns read-only under a running service (a failover to a
// standby): writes are 503 READ_ONLY, /readyz says so, and both recover by themselves.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { assertAllStored } from './support/entries.js';
import { assertCausesLogged } from './support/log-lines.js';
import { NEEDS_ROOT, NOBODY } from './support/root.js';
import { runToExit, startServer, type RunAs, type TestServer } from './support/server.js';
import { BACKEND, MARIADB_ADMIN_URL, POSTGRES_ADMIN_URL, createTestDatabase, type TestDatabase } from './support/test-database.js';
import { until } from './support/until.js';

const SECRET_KEY = randomBytes(32).toString('hex');
// Given as variables, like SECRET_KEY: the key files the first start makes are root's.
const TOKEN_KEY = randomBytes(32).toString('hex');

function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), 'config-api-readonly-'));
}

/** Some tags, written while the database still accepts writes. */
async function seed(server: TestServer): Promise<Map<number, Record<string, unknown>>> {
  const acknowledged = new Map<number, Record<string, unknown>>();
  for (const name of ['before-1', 'before-2', 'before-3']) {
    const body = { name, color: '#102030' };
    const reply = await server.request('POST', '/en/api/config/tags', { body });
    assert.equal(reply.status, 201, reply.text);
    acknowledged.set(reply.body.id, body);
  }
  return acknowledged;
}

function assertRefusedToStart(databaseUrl: string, dataDir: string, user?: RunAs): void {
  const run = runToExit(dataDir, { DATABASE_URL: databaseUrl, SECRET_KEY, TOKEN_KEY }, user);
  assert.equal(run.status, 1, `${run.stdout}\n${run.stderr}`);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line: ${run.stderr}`);
  assert.match(lines[0]!, /^config-api: cannot start: .* refuses writes .*set READ_ONLY=true to serve reads only$/);
}

/** READ_ONLY=true: every read is served, every write is 503 READ_ONLY, and it is ready. */
async function assertServesReadsOnly(server: TestServer, acknowledged: ReadonlyMap<number, Record<string, unknown>>): Promise<void> {
  await assertAllStored(server, 'tags', acknowledged);
  const [id] = acknowledged.keys();
  for (const [method, path, body] of [
    ['POST', '/fr/api/config/tags', { name: 'refused' }],
    ['PATCH', `/en/api/config/tags/${id}`, { color: '#000000' }],
    ['DELETE', `/en/api/config/tags/${id}`, undefined],
  ] as const) {
    const reply = await server.request(method, path, body === undefined ? {} : { body });
    assert.equal(reply.status, 503, `${method}: ${reply.text}`);
    assert.equal(reply.body.code, 'READ_ONLY');
    assert.match(reply.body.detail, /READ_ONLY=true/);
  }
  await assertCausesLogged(server.logs, [SECRET_KEY, TOKEN_KEY], 3);
  const ready = await server.request('GET', '/readyz');
  assert.equal(ready.status, 200, ready.text);
  assert.deepEqual(ready.body, { status: 'ready', readOnly: true });
  await assertAllStored(server, 'tags', acknowledged);
}

describe('a database that refuses writes', () => {
  test('SQLite: a database file of another user stops the start, unless READ_ONLY=true, which serves reads and refuses writes', {
    skip: BACKEND !== 'sqlite' ? 'this backend is made read-only its own way, below' : NEEDS_ROOT,
  }, async () => {
    const dir = scratchDir();
    const database = await createTestDatabase(dir);
    let server: TestServer | undefined;
    try {
      server = await startServer({ database, dataDir: dir, env: { SECRET_KEY, TOKEN_KEY } });
      const acknowledged = await seed(server);
      assert.equal(await server.stop(), 0);
      // The file stays root's and read-only to others. In a folder where the user nobody may not
      // create files, SQLite cannot even read it (WAL needs its -shm file): said plainly.
      chmodSync(database.file!, 0o644);
      chmodSync(dir, 0o755);
      const unreadable = runToExit(dir, { DATABASE_URL: database.url, SECRET_KEY, TOKEN_KEY, READ_ONLY: 'true' }, NOBODY);
      assert.equal(unreadable.status, 1);
      assert.match(unreadable.stderr, /^config-api: cannot start: SQLite cannot use .*: this user may not create files in its folder, .*\n$/);
      // In a shared folder, as /tmp, it can read the file, but not write it.
      chmodSync(dir, 0o1777);
      const before = createHash('sha256').update(readFileSync(database.file!)).digest('hex');

      assertRefusedToStart(database.url, dir, NOBODY);
      server = await startServer({ database, dataDir: dir, env: { SECRET_KEY, TOKEN_KEY, READ_ONLY: 'true' }, user: NOBODY, process: true });
      await assertServesReadsOnly(server, acknowledged);
      assert.equal(await server.stop(), 0);
      server = undefined;
      assert.equal(createHash('sha256').update(readFileSync(database.file!)).digest('hex'), before, 'not a byte written');
    } finally {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('PostgreSQL: read-only sessions stop the start, unless READ_ONLY=true; turning read-only while serving gives 503 READ_ONLY, then recovers', {
    skip: BACKEND !== 'postgres' ? 'this backend is made read-only its own way' : false,
  }, async () => {
    const dir = scratchDir();
    const database = await createTestDatabase(dir);
    const name = new URL(database.url).pathname.slice(1);
    let server: TestServer | undefined;
    try {
      server = await startServer({ database, dataDir: dir, env: { SECRET_KEY, TOKEN_KEY } });
      const acknowledged = await seed(server);

      // As a failover to a standby does: the sessions open from now on are read-only.
      await postgresReadOnly(name, true);
      await until('a write refused with READ_ONLY', async () => {
        const reply = await server!.request('POST', '/en/api/config/tags', { body: { name: `during-${randomBytes(4).toString('hex')}` } });
        if (reply.status === 201) acknowledged.set(reply.body.id, { name: reply.body.item.name });
        else assert.equal(reply.status, 503, reply.text);
        return reply.body?.code === 'READ_ONLY';
      });
      const ready = await server.request('GET', '/readyz');
      assert.equal(ready.status, 503, ready.text);
      assert.equal(ready.body.fault, 'READ_ONLY');
      await assertCausesLogged(server.logs, [SECRET_KEY, TOKEN_KEY]);
      await assertAllStored(server, 'tags', acknowledged);

      await postgresReadOnly(name, false);
      await until('/readyz ready again', async () => (await server!.request('GET', '/readyz')).status === 200);
      const after = await server.request('POST', '/en/api/config/tags', { body: { name: 'after' } });
      assert.equal(after.status, 201, after.text);
      acknowledged.set(after.body.id, { name: 'after' });
      assert.equal(await server.stop(), 0);
      server = undefined;

      await postgresReadOnly(name, true);
      assertRefusedToStart(database.url, dir);
      server = await startServer({ database, dataDir: dir, env: { SECRET_KEY, TOKEN_KEY, READ_ONLY: 'true' } });
      await assertServesReadsOnly(server, acknowledged);
    } finally {
      await server?.stop();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('MariaDB: a user without write privileges stops the start, unless READ_ONLY=true, which serves reads and refuses writes', {
    skip: BACKEND !== 'mariadb' ? 'this backend is made read-only its own way' : false,
  }, async () => {
    const dir = scratchDir();
    const database = await createTestDatabase(dir);
    const user = `cfgro_${randomBytes(4).toString('hex')}`;
    let server: TestServer | undefined;
    try {
      server = await startServer({ database, dataDir: dir, env: { SECRET_KEY, TOKEN_KEY } });
      const acknowledged = await seed(server);
      assert.equal(await server.stop(), 0);
      server = undefined;

      const readOnlyUrl = await mariadbReader(database, user);
      assertRefusedToStart(readOnlyUrl, dir);
      server = await startServer({ database: { ...database, url: readOnlyUrl }, dataDir: dir, env: { SECRET_KEY, TOKEN_KEY, READ_ONLY: 'true' } });
      await assertServesReadsOnly(server, acknowledged);
    } finally {
      await server?.stop();
      await mariadbAdmin((connection) => connection.query(`DROP USER IF EXISTS '${user}'@'127.0.0.1'`));
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Makes the sessions of one test database read-only (or writable again), and ends the open
 * ones so that the service's pool reconnects under the new setting. */
async function postgresReadOnly(name: string, readOnly: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(`ALTER DATABASE ${name} ${readOnly ? 'SET default_transaction_read_only = on' : 'RESET default_transaction_read_only'}`);
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
  } finally {
    await client.end();
  }
}

async function mariadbAdmin<T>(work: (connection: mysql.Connection) => Promise<T>): Promise<T> {
  const connection = await mysql.createConnection({ uri: MARIADB_ADMIN_URL });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

/** A user that may only read the test database; its DATABASE_URL. */
async function mariadbReader(database: TestDatabase, user: string): Promise<string> {
  const url = new URL(database.url);
  const name = url.pathname.slice(1);
  const password = randomBytes(12).toString('hex');
  await mariadbAdmin(async (connection) => {
    await connection.query(`CREATE USER '${user}'@'127.0.0.1' IDENTIFIED BY '${password}'`);
    await connection.query(`GRANT SELECT ON \`${name}\`.* TO '${user}'@'127.0.0.1'`);
  });
  url.username = user;
  url.password = password;
  return url.toString();
}
