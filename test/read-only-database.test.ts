// A database that refuses writes, made for real on each backend: on PostgreSQL a database
// whose sessions are read-only (as on a hot standby), on MariaDB a user granted SELECT only
// (on SQLite, a database file of another user: test/process/read-only-sqlite-file.test.ts). The
// service must refuse to start on it, with one clear line and a non-zero exit, unless
// READ_ONLY=true, where it serves every read and answers every write 503 READ_ONLY. On
// PostgreSQL the database also turns read-only under a running service (a failover to a
// standby): writes are 503 READ_ONLY, /readyz says so, and both recover by themselves.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { assertAllStored } from './support/entries.js';
import { assertCausesLogged } from './support/log-lines.js';
import { SECRET_KEY, TOKEN_KEY, assertRefusedToStart, assertServesReadsOnly, scratchDir, seed } from './support/read-only-database.js';
import { startServer, type TestServer } from './support/server.js';
import { BACKEND, MARIADB_ADMIN_URL, POSTGRES_ADMIN_URL, createTestDatabase, type TestDatabase } from './support/test-database.js';
import { until } from './support/until.js';

describe('a database that refuses writes', () => {
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
