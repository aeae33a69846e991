// A commit group of non-durable work only (the webhook dispatcher's leases and attempt results,
// DatabaseHandle.transaction(work, false)) commits with SQLite's synchronous NORMAL, no fsync
// holding the event loop; any group with a durable write, and every group after, commits at
// SQLITE_SYNCHRONOUS (FULL here). SQLite only: the other databases group commits themselves.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Transaction } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { connectDatabase, type DatabaseHandle } from '../src/db/connect.js';
import type { Database } from '../src/db/database-schema.js';
import { BACKEND } from './support/test-database.js';

// PRAGMA synchronous: 1 is NORMAL, 2 is FULL.
const NORMAL = 1;
const FULL = 2;

async function level(tx: Transaction<Database>): Promise<number> {
  const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(tx);
  return rows[0]!.synchronous;
}

describe('commit groups and durability', { skip: BACKEND === 'sqlite' ? false : 'SQLite groups commits; the others commit each transaction as configured' }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'config-api-commit-durability-'));
  let handle: DatabaseHandle;
  before(() => {
    handle = connectDatabase(`sqlite:${join(dataDir, 'group.db')}`, { sqliteSynchronous: 'FULL', poolSize: 1, connectTimeoutMs: 3000, queryTimeoutMs: 60_000, readOnly: false });
  });
  after(async () => {
    await handle?.db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('non-durable work alone commits at NORMAL, and the next durable transaction is at FULL again', async () => {
    assert.equal(await handle.transaction(level, false), NORMAL);
    assert.equal(await handle.transaction(level), FULL);
  });

  test('a group holding one durable write commits at FULL for all', async () => {
    const both = await Promise.all([handle.transaction(level, false), handle.transaction(level), handle.transaction(level, false)]);
    assert.deepEqual(both, [FULL, FULL, FULL]);
  });

  test('a non-durable group that fails leaves the level at FULL', async () => {
    await assert.rejects(
      handle.transaction(async (tx) => {
        assert.equal(await level(tx), NORMAL);
        await sql`select * from no_such_table`.execute(tx);
      }, false),
    );
    assert.equal(await handle.transaction(level), FULL);
  });
});
