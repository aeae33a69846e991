// SQLite's search index is written once per transaction (src/db/dialects/sqlite-search-queue.ts):
// the servers' triggers append to a queue that the commit group moves into the FTS5 table before
// its COMMIT. What `q` finds must be exactly what was committed, whatever a group held: creates,
// renames, deletes, a refused write between them. FTS5's own integrity check then compares the
// index with the table, which fails if a queued 'delete' carried other values than those indexed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { sqliteDialect } from '../src/db/dialects/sqlite.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { MIGRATIONS } from '../src/db/migrations/index.js';
import { build } from './support/app.js';
import { BACKEND } from './support/test-database.js';

const SERVERS = '/en/api/config/servers';
const dataDir = mkdtempSync(join(tmpdir(), 'config-api-search-queue-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

function fileOf(url: string): string {
  return url.replace(/^sqlite:/, '');
}

/** FTS5's integrity check of the index against the servers table; throws if they differ. */
function checkIndex(file: string): { queued: number } {
  const database = new SqliteDatabase(file);
  try {
    database.pragma('busy_timeout = 5000');
    database.prepare(`insert into servers_search(servers_search, rank) values ('integrity-check', 1)`).run();
    return { queued: database.prepare('select count(*) from servers_search_queue').pluck().get() as number };
  } finally {
    database.close();
  }
}

describe('the search index written once per transaction', { skip: BACKEND !== 'sqlite' && 'SQLite only: the other databases keep their search indexes themselves' }, () => {
  test('q finds what a group of creates, renames and deletes committed, a refused write among them', async (t) => {
    const { app, database } = await build(t);
    const post = (ip: string, hostname: string) => app.inject({ method: 'POST', url: SERVERS, payload: { ip, port: 3306, hostname } });
    const created = await Promise.all(Array.from({ length: 12 }, (_, n) => post(`10.70.0.${n}`, `alpha-${n}`)));
    assert.deepEqual(created.map((answer) => answer.statusCode), Array(12).fill(201));
    const ids = created.map((answer) => (answer.json() as { id: number }).id);
    // One group, as far as inject allows: renames, deletes, more creates and a refused duplicate.
    const answers = await Promise.all([
      ...ids.slice(0, 4).map((id, n) => app.inject({ method: 'PATCH', url: `${SERVERS}/${id}`, payload: { hostname: `beta-${n}` } })),
      ...ids.slice(4, 7).map((id) => app.inject({ method: 'DELETE', url: `${SERVERS}/${id}` })),
      post('10.70.1.1', 'alpha-new'),
      post('10.70.0.0', 'alpha-duplicate'),
      app.inject({ method: 'PATCH', url: `${SERVERS}/${ids[7]}`, payload: { ip: '10.70.2.7' } }),
    ]);
    assert.deepEqual(answers.map((answer) => answer.statusCode), [200, 200, 200, 200, 200, 200, 200, 201, 409, 200]);
    const found = async (q: string) => {
      const answer = await app.inject({ method: 'GET', url: `${SERVERS}?q=${encodeURIComponent(q)}&limit=100&sort=hostname` });
      assert.equal(answer.statusCode, 200, answer.body);
      return (answer.json() as { items: { hostname: string; ip: string }[] }).items.map((item) => `${item.hostname}@${item.ip}`);
    };
    assert.deepEqual(await found('alpha'), ['alpha-10@10.70.0.10', 'alpha-11@10.70.0.11', 'alpha-7@10.70.2.7', 'alpha-8@10.70.0.8', 'alpha-9@10.70.0.9', 'alpha-new@10.70.1.1']);
    assert.deepEqual(await found('beta'), ['beta-0@10.70.0.0', 'beta-1@10.70.0.1', 'beta-2@10.70.0.2', 'beta-3@10.70.0.3']);
    assert.deepEqual(await found('10.70.2'), ['alpha-7@10.70.2.7']);
    assert.deepEqual(await found('duplicate'), []);
    assert.deepEqual(checkIndex(fileOf(database.url)), { queued: 0 });
  });

  test('rows a script wrote into the file while the service was stopped are indexed at its start', async (t) => {
    const first = await build(t);
    const file = fileOf(first.database.url);
    assert.equal((await first.app.inject({ method: 'POST', url: SERVERS, payload: { ip: '10.71.0.1', port: 3306, hostname: 'before-stop' } })).statusCode, 201);
    await first.app.close();
    const script = new SqliteDatabase(file);
    const at = new Date().toISOString();
    script.prepare(`insert into servers (ip, port, hostname, ssl, ssh, is_proxy, is_vip, is_monitored, is_deleted, live, created_at, updated_at) values ('10.71.0.2', 3306, 'written-by-script', 0, 0, 0, 0, 1, 0, 1, ?, ?)`).run(at, at);
    assert.equal(script.prepare('select count(*) from servers_search_queue').pluck().get(), 1);
    script.close();
    const { app } = await build(t, { env: { DATABASE_URL: first.database.url } });
    const answer = await app.inject({ method: 'GET', url: `${SERVERS}?q=by-script` });
    assert.deepEqual((answer.json() as { items: { hostname: string }[] }).items.map((item) => item.hostname), ['written-by-script']);
    assert.deepEqual(checkIndex(file), { queued: 0 });
  });

  test('0014 down moves what is queued into the index and writes it directly again; up queues again', async () => {
    const file = join(dataDir, 'migrations.db');
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SqliteDatabase(file) }) });
    try {
      const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '0014'));
      await migrateToLatest(db, sqliteDialect.ddl, before);
      const at = new Date().toISOString();
      const insert = (id: number, hostname: string) =>
        db.insertInto('servers').values({ id, ip: `10.72.0.${id}`, port: 3306, hostname, ssl: 0, ssh: 0, is_proxy: 0, is_vip: 0, is_monitored: 1, is_deleted: 0, live: 1, created_at: at, updated_at: at }).execute();
      await insert(1, 'direct-one');
      await migrateToLatest(db, sqliteDialect.ddl, MIGRATIONS);
      await insert(2, 'queued-two');
      const match = async (text: string) => (await db.selectFrom('servers_search').select('rowid').where('servers_search', 'match', `"${text}"`).execute()).map((row) => Number(row.rowid));
      assert.deepEqual(await match('queued'), [], 'a queued row waits for its transaction to move it');
      await MIGRATIONS['0014-queued-search-writes']!.down!(db, sqliteDialect.ddl);
      assert.deepEqual(await match('queued'), [2]);
      await insert(3, 'direct-three');
      assert.deepEqual(await match('direct'), [1, 3]);
      await MIGRATIONS['0014-queued-search-writes']!.up(db, sqliteDialect.ddl);
      await insert(4, 'queued-four');
      assert.deepEqual(await match('four'), []);
      assert.equal(Number((await db.selectFrom('servers_search_queue').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), 1);
    } finally {
      await db.destroy();
    }
  });
});
