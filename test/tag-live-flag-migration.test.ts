// Migration 0008 on a database made by the migrations before it, holding links of live and
// deleted servers: each link must come out with its server's is_deleted, and a tag's list
// then answer as before. Its down migration must undo it, and up run again after it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connectDatabase, type DatabaseHandle } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { MIGRATIONS } from '../src/db/migrations/index.js';
import { parseListQuery } from '../src/pipeline/parse-list-query.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';
import { createSecretBox } from '../src/secrets/secret-box.js';
import { prepareDatabase } from '../src/store/prepare-database.js';
import { ResourceStore } from '../src/store/resource-store.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

const MIGRATION = '0008-tag-live-flag';
const servers = DEFAULT_REGISTRY.resources.find((resource) => resource.name === 'servers')!;
const dataDir = mkdtempSync(join(tmpdir(), 'config-api-migration-0008-'));
let database: TestDatabase;
let handle: DatabaseHandle;

before(async () => {
  database = await createTestDatabase(dataDir);
  handle = connectDatabase(database.url, { sqliteSynchronous: 'NORMAL', poolSize: 2, connectTimeoutMs: 3000, queryTimeoutMs: 60_000, readOnly: false });
});
after(async () => {
  await handle?.db.destroy();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const at = '2026-01-01T00:00:00.000Z';

test('0008 copies each server’s is_deleted into its links; down undoes it', async () => {
  const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < MIGRATION));
  await migrateToLatest(handle.db, handle.ddl, before);
  const db = handle.db as any;
  await db.insertInto('tags').values([1, 2].map((id) => ({ id, name: `tag-${id}`, color: '#ffffff', background: '#337ab7', created_at: at, updated_at: at }))).execute();
  // Servers 1-6; 2 and 5 deleted. Tag 1 on all of them, tag 2 on 2 and 3.
  const rows = [1, 2, 3, 4, 5, 6].map((id) => {
    const deleted = id === 2 || id === 5 ? 1 : 0;
    return { id, ip: `10.50.0.${id}`, port: 3306, hostname: '', ssl: 0, ssh: 0, is_proxy: 0, is_vip: 0, is_monitored: 1, is_deleted: deleted, live: deleted ? null : 1, created_at: at, updated_at: at };
  });
  await db.insertInto('servers').values(rows).execute();
  await handle.ddl.continueIdsAfterSeeds(handle.db, 'servers');
  const links = [...rows.map((row) => ({ id_server: row.id, id_tag: 1 })), { id_server: 2, id_tag: 2 }, { id_server: 3, id_tag: 2 }];
  await db.insertInto('server_tags').values(links).execute();

  // 0008 first, then any later ones.
  assert.equal((await prepareDatabase(handle, DEFAULT_REGISTRY.resources))[0], MIGRATION);
  const copied = async () =>
    (await db.selectFrom('server_tags').select(['id_server', 'id_tag', 'owner_deleted']).orderBy('id_tag').orderBy('id_server').execute()).map((row: any) =>
      [row.id_server, row.id_tag, Number(row.owner_deleted)].join(':'),
    );
  assert.deepEqual(await copied(), ['1:1:0', '2:1:1', '3:1:0', '4:1:0', '5:1:1', '6:1:0', '2:2:1', '3:2:0']);

  // The lists read the copy: pages and counted totals skip servers 2 and 5.
  const store = new ResourceStore({ handle, secrets: createSecretBox(randomBytes(32)), resources: DEFAULT_REGISTRY.resources });
  const list = async (query: Record<string, string>) => {
    const page = await store.list(servers, parseListQuery(servers, { limit: '1', ...query }));
    return { first: page.items.map((item) => item.id), total: page.total };
  };
  assert.deepEqual(await list({ tag: '1' }), { first: [6], total: 4 });
  assert.deepEqual(await list({ tag: '1', include_deleted: 'true' }), { first: [6], total: 6 });
  assert.deepEqual(await list({ tag: '2', offset: '0', limit: '5' }), { first: [3], total: 1 });

  const migration = MIGRATIONS[MIGRATION]!;
  await migration.down!(handle.db, handle.ddl);
  await assert.rejects(db.selectFrom('server_tags').select('owner_deleted').execute(), 'the column is gone');
  await migration.up(handle.db, handle.ddl);
  assert.deepEqual(await copied(), ['1:1:0', '2:1:1', '3:1:0', '4:1:0', '5:1:1', '6:1:0', '2:2:1', '3:2:0']);
});
