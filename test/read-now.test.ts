// Reads of one entry run at once, past Kysely's connection queue, where the database allows
// it (DatabaseHandle.readRowNow: SQLite, when no transaction is open). A read made while a
// transaction holds SQLite's one connection must still wait for it, as a queued read does:
// it must never see what that transaction wrote, which may yet be rolled back.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connectDatabase, type DatabaseHandle } from '../src/db/connect.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';
import { createSecretBox } from '../src/secrets/secret-box.js';
import { prepareDatabase } from '../src/store/prepare-database.js';
import { ResourceStore } from '../src/store/resource-store.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

const tags = DEFAULT_REGISTRY.find('tags')!;
const dataDir = mkdtempSync(join(tmpdir(), 'config-api-read-now-'));
let database: TestDatabase;
let handle: DatabaseHandle;
let store: ResourceStore;

before(async () => {
  database = await createTestDatabase(dataDir);
  handle = connectDatabase(database.url, { sqliteSynchronous: 'NORMAL', poolSize: 2, connectTimeoutMs: 3000, queryTimeoutMs: 60_000, readOnly: false });
  await prepareDatabase(handle, DEFAULT_REGISTRY.resources);
  store = new ResourceStore({ handle, secrets: createSecretBox(randomBytes(32)), resources: DEFAULT_REGISTRY.resources });
});

after(async () => {
  await handle?.db.destroy();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

class Rollback extends Error {}

async function newTag(name: string): Promise<number> {
  const now = new Date().toISOString();
  const row = await (handle.db as any).insertInto('tags').values({ name, color: '#ffffff', background: '#337ab7', created_at: now, updated_at: now }).returning('id').executeTakeFirst();
  return Number(row?.id ?? (await (handle.db as any).selectFrom('tags').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id);
}

describe('reads next to an open transaction', () => {
  test('outside a transaction a read gives the committed entry (at once where the database allows)', async () => {
    const id = await newTag(`now-${randomBytes(3).toString('hex')}`);
    const entry = await store.read(tags, id);
    assert.equal(entry?.id, id);
    assert.equal(await store.read(tags, id + 1_000_000), undefined);
    if (handle.readRowNow !== undefined) {
      assert.deepEqual(handle.readRowNow('select 1 as one, ? as two', ['b']), [1, 'b']);
      assert.equal(handle.readRowNow('select 1 where 0', []), null);
    }
  });

  test('a read made while a transaction is open never sees its writes', async () => {
    const name = `kept-${randomBytes(3).toString('hex')}`;
    const id = await newTag(name);
    const reads: Promise<unknown>[] = [];
    await assert.rejects(
      handle.transaction(async (tx) => {
        await (tx as any).updateTable('tags').set({ name: 'never-committed' }).where('id', '=', id).execute();
        if (handle.readRowNow !== undefined) assert.equal(handle.readRowNow('select name from tags where id = ?', [id]), undefined, 'no read at once in a transaction');
        // Not awaited: on SQLite it waits for the connection this transaction holds.
        reads.push(store.read(tags, id));
        throw new Rollback();
      }),
      Rollback,
    );
    const [during] = (await Promise.all(reads)) as ({ name: string } | undefined)[];
    assert.equal(during?.name, name);

    await handle.transaction(async (tx) => {
      await (tx as any).updateTable('tags').set({ name: `${name}-b` }).where('id', '=', id).execute();
      reads.push(store.read(tags, id));
    });
    // Before or after the commit (PostgreSQL and MariaDB read on another connection), but whole.
    assert.ok([name, `${name}-b`].includes(((await reads[1]) as { name: string } | undefined)?.name ?? ''));
  });
});
