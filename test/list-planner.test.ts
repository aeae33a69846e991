// The planner always has what it needs (issue 16): on a seeded servers table with current
// statistics, the page query of every single filter and every single-field sort a list
// accepts is planned without reading the whole table. The statements are the store's own
// (ResourceStore.explainList), built from query strings by the parse step.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { connectDatabase, type DatabaseHandle } from '../src/db/connect.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';
import { encodeCursor } from '../src/pipeline/list-page.js';
import { parseListQuery } from '../src/pipeline/parse-list-query.js';
import { createSecretBox } from '../src/secrets/secret-box.js';
import { prepareDatabase } from '../src/store/prepare-database.js';
import { ResourceStore } from '../src/store/resource-store.js';
import { BACKEND, createTestDatabase, type TestDatabase } from './support/test-database.js';

const SERVERS = 20_000;
const servers = DEFAULT_REGISTRY.resources.find((resource) => resource.name === 'servers')!;
const dataDir = mkdtempSync(join(tmpdir(), 'config-api-planner-'));
let database: TestDatabase;
let handle: DatabaseHandle;
let store: ResourceStore;

const stamp = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();

before(async () => {
  database = await createTestDatabase(dataDir);
  handle = connectDatabase(database.url, { sqliteSynchronous: 'NORMAL', poolSize: 2, connectTimeoutMs: 3000, queryTimeoutMs: 60_000, readOnly: false });
  await prepareDatabase(handle, DEFAULT_REGISTRY.resources);
  const db = handle.db as any;
  await db.insertInto('tags').values([1, 2, 3].map((i) => ({ id: i, name: `tag-${i}`, color: '#ffffff', background: '#337ab7', created_at: stamp(0), updated_at: stamp(0) }))).execute();
  // Skewed like a real fleet: most servers monitored, few proxies, VIPs or deleted ones.
  for (let start = 0; start < SERVERS; start += 500) {
    const rows = [];
    for (let i = start; i < start + 500; i += 1) {
      const deleted = i % 100 === 7 ? 1 : 0;
      rows.push({
        id: i + 1, ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, port: 3306 + (i % 40), hostname: `db-${i.toString(36)}-${i % 7}`,
        ssl: i % 10 === 0 ? 1 : 0, ssh: i % 9 === 0 ? 1 : 0, is_proxy: i % 50 === 0 ? 1 : 0, is_vip: i % 60 === 0 ? 1 : 0,
        is_monitored: i % 20 === 0 ? 0 : 1, is_deleted: deleted, live: deleted === 1 ? null : 1,
        id_client: i % 3 === 0 ? 99 : null, id_environment: (i % 6) + 1, created_at: stamp(i), updated_at: stamp(SERVERS - i),
      });
    }
    await db.insertInto('servers').values(rows).execute();
  }
  // Each link copies its server's is_deleted, as the store keeps it (server i + 1 is deleted when i % 100 is 7).
  const links = Array.from({ length: 200 }, (_, i) => ({ id_server: i * 37 + 1, id_tag: (i % 3) + 1, owner_deleted: (i * 37) % 100 === 7 ? 1 : 0 }));
  await db.insertInto('server_tags').values(links).execute();
  // After a bulk insert autovacuum vacuums the table (PostgreSQL 13+), which marks its pages
  // all-visible: only then are index-only scans (the counts') costed as such.
  if (BACKEND === 'postgres') await sql`vacuum servers`.execute(handle.db);
  store = new ResourceStore({ handle, secrets: createSecretBox(randomBytes(32)), resources: DEFAULT_REGISTRY.resources });
  await store.refreshStatistics(DEFAULT_REGISTRY.resources);
});
after(async () => {
  await handle?.db.destroy();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

// A value each filter is asked for, as a dashboard would: a rare flag, an existing value.
const SAMPLE: Readonly<Record<string, string>> = {
  id: '77', ip: '10.0.1.44', port: '3310', hostname: 'db-2s-1', ssl: 'true', ssh: 'true', is_proxy: 'true', is_vip: 'true',
  is_monitored: 'false', is_deleted: '1', id_client: '99', id_environment: '2', created_at: stamp(1234), updated_at: stamp(4321), tag: '2',
};

/** `sorted`: the page must also be read in the sort's order, not sorted from every match.
 * `primaryKeyOrder`: a walk of the table in id order (the plain list) is that order. */
async function assertIndexed(
  query: Record<string, string>,
  { sorted = false, primaryKeyOrder = false, statement = 'page' as 'page' | 'count', withoutServers = false } = {},
): Promise<void> {
  const { plan, readsTable, wholeTable, sortsAll } = await store.explainList(servers, parseListQuery(servers, query), statement);
  if (process.env.SHOW_PLANS) console.log(statement, new URLSearchParams(query).toString(), JSON.stringify(plan.map((row) => row.detail ?? row['QUERY PLAN'] ?? row)));
  if (withoutServers) assert.equal(readsTable, false, `${new URLSearchParams(query)} reads the servers table:\n${JSON.stringify(plan, null, 1)}`);
  if (!primaryKeyOrder) assert.equal(wholeTable, false, `${new URLSearchParams(query)} reads the whole servers table:\n${JSON.stringify(plan, null, 1)}`);
  if (sorted) assert.equal(sortsAll, false, `${new URLSearchParams(query)} sorts every match:\n${JSON.stringify(plan, null, 1)}`);
}

describe('list query plans at fleet scale', () => {
  const filterable = [...servers.shownFields.filter(([, field]) => field.link === undefined).map(([name]) => name), 'tag'];
  test('every accepted single filter uses an index', async () => {
    for (const name of filterable) {
      const value = SAMPLE[name];
      assert.ok(value !== undefined, `no sample value for the filter ${name}: add one`);
      await assertIndexed({ [name]: value });
      // The total is counted too (up to LIST_EXACT_TOTAL_MAX + 1 matches): through the index as well.
      await assertIndexed({ [name]: value }, { statement: 'count' });
    }
  });

  test('a tag filter reads its link table in id order: the first page and a cursor page deep in it', async () => {
    const list = parseListQuery(servers, { tag: '2', limit: '10', offset: '30' });
    const { nextAfter } = await store.list(servers, list);
    assert.ok(nextAfter !== undefined);
    // On SQLite the link table drives the join (CROSS JOIN), so its index gives the order;
    // PostgreSQL and MariaDB may rightly sort a few dozen matches.
    const queries: Record<string, string>[] = [{ tag: '2' }, { tag: '2', after: encodeCursor(list.sort, nextAfter) }];
    for (const query of queries) await assertIndexed(query, { sorted: BACKEND === 'sqlite' });
  });

  test('a tag filter counts its matches from the link table alone, deleted servers excluded by its copy of the flag', async () => {
    await assertIndexed({ tag: '2' }, { statement: 'count', withoutServers: true });
    await assertIndexed({ tag: '2', include_deleted: 'true' }, { statement: 'count', withoutServers: true });
    // With another filter the servers' rows decide: they are read, through an index.
    await assertIndexed({ tag: '2', port: '3310' }, { statement: 'count' });
    const total = async (query: Record<string, string>) => (await store.list(servers, parseListQuery(servers, { tag: '3', limit: '1', ...query }))).total;
    assert.deepEqual([await total({}), await total({ include_deleted: 'true' })], [65, 66], 'one server of tag 3 is deleted, counted only with include_deleted');
  });

  const noSearchIndex = BACKEND === 'mariadb' && 'MariaDB has no substring index: q reads the table';
  test('q of 3 characters or more goes through the search index (SQLite FTS5 trigram, PostgreSQL pg_trgm)', { skip: noSearchIndex }, async () => {
    for (const q of ['0.0.1.44', 'DB-YA', 'ya-2']) await assertIndexed({ q });
  });

  test('every accepted single-field sort, either way, reads an index in order; so does a cursor page deep in it', async () => {
    for (const [name, field] of servers.shownFields) {
      if (field.link !== undefined) continue;
      for (const sort of [name, `-${name}`]) {
        const options = { sorted: true, primaryKeyOrder: name === 'id' };
        await assertIndexed({ sort }, options);
        const list = parseListQuery(servers, { sort, offset: String(SERVERS / 2), limit: '10' });
        const { nextAfter } = await store.list(servers, list);
        assert.ok(nextAfter !== undefined);
        // MariaDB sorts some cursor pages (a NULL cursor value) with a filesort of the matches.
        await assertIndexed({ sort, after: encodeCursor(list.sort, nextAfter) }, { ...options, sorted: BACKEND !== 'mariadb' });
      }
    }
  });
});
