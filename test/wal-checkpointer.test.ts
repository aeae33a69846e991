// SQLite's WAL is checkpointed by a worker thread (src/db/dialects/sqlite-wal-checkpointer.ts), not by the
// connection that serves requests on the main thread. What is read here is SQLite's own
// record of it, in the WAL index (the -shm file, https://www.sqlite.org/walformat.html): the
// frames in the WAL (mxFrame) and how many of them have been copied into the database
// (nBackfill). Reading that file changes nothing, where asking SQLite (wal_checkpoint) would
// itself checkpoint from the main connection.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { WalCheckpointer } from '../src/db/dialects/sqlite-wal-checkpointer.js';
import { BACKEND } from './support/test-database.js';

const dataDir = mkdtempSync(join(tmpdir(), 'config-api-wal-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** mxFrame (the WAL index header, offset 16) and nBackfill (its checkpoint record, offset 96). */
function walIndex(file: string): { frames: number; copied: number } {
  const shm = readFileSync(`${file}-shm`);
  return { frames: shm.readUInt32LE(16), copied: shm.readUInt32LE(96) };
}

/** A database in WAL mode with its checkpointer, whose worker opens `workerPath`; `run` gets
 * them, then both are closed (the worker first, as the service does). */
async function withCheckpointer(file: string, workerPath: string, run: (database: SqliteDatabase.Database, warnings: string[]) => Promise<void>): Promise<void> {
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  database.exec('create table pages (body blob)');
  const warnings: string[] = [];
  const checkpointer = new WalCheckpointer(database, workerPath, 'NORMAL', (message) => warnings.push(message));
  try {
    await run(database, warnings);
  } finally {
    checkpointer.stop();
    database.close();
  }
}

/** Writes `transactions` × 100 pages of 4 KiB. */
function writePages(database: SqliteDatabase.Database, transactions: number): void {
  const insert = database.prepare('insert into pages (body) values (randomblob(4000))');
  for (let transaction = 0; transaction < transactions; transaction++) database.transaction(() => Array.from({ length: 100 }, () => insert.run()))();
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((done) => setTimeout(done, 20));
  }
  return condition();
}

describe('WAL checkpoints off the main thread', { skip: BACKEND !== 'sqlite' && 'SQLite only: the other databases checkpoint on their servers' }, () => {
  test('the worker copies the WAL into the database; the main connection leaves it to the worker up to 10,000 pages', async () => {
    const file = join(dataDir, 'copied.db');
    await withCheckpointer(file, file, async (database, warnings) => {
      assert.equal(database.pragma('wal_autocheckpoint', { simple: true }), 10_000);
      // 2,000 pages, past SQLite's default of 1,000 at which the main connection would have
      // checkpointed them itself.
      writePages(database, 20);
      const written = walIndex(file);
      assert.ok(written.frames >= 2000, `the WAL holds the writes: ${written.frames} frames`);
      assert.ok(await until(() => walIndex(file).copied === walIndex(file).frames, 5000), `every frame copied: ${JSON.stringify(walIndex(file))}`);
      // The next write finds everything copied and starts the WAL over from its beginning.
      writePages(database, 1);
      assert.ok(walIndex(file).frames < 200, `the WAL started over: ${walIndex(file).frames} frames`);
      assert.equal(database.prepare('select count(*) from pages').pluck().get(), 2100);
      assert.deepEqual(warnings, []);
    });
    // The worker's connection was closed first: the service's, the last, removed the WAL.
    assert.equal(existsSync(`${file}-wal`), false);
  });

  test('a worker that cannot open the database is reported, and the main connection still checkpoints', async () => {
    const file = join(dataDir, 'alone.db');
    // A folder where the worker's database should be: it cannot open it, and stops.
    await withCheckpointer(file, dataDir, async (database, warnings) => {
      assert.ok(await until(() => warnings.length > 0, 5000), 'a warning');
      assert.match(warnings[0]!, /checkpoint worker stopped/);
      writePages(database, 110);
      // 11,000 pages written, and the WAL was started over past 10,000.
      assert.ok(walIndex(file).frames < 10_000, `the WAL is bounded: ${walIndex(file).frames} frames`);
    });
  });
});
