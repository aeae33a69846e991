// Issue #38: no acknowledged write lost and no change record missing when the database server
// itself goes down mid-load and comes back. The server is one of this test's own
// (support/private-database-server.ts: the shared ones are never stopped), killed with
// SIGKILL, every process of it, and started again on the same folder, where it recovers from
// its log. Two instances of the service on it, 8 writers on A; a reader on B follows the
// feed the whole time, resuming from the last id it saw, through the restart.
// Once writes are acknowledged again after the restart: every acknowledged write has exactly
// one record, ids follow each other without gap or repeat (support/exact-change-log.ts), and
// the reader received every record of the log exactly once, in order.
// A write answered 503 may or may not have committed: it may have its record or not, never two.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { changesAfter, type ChangeRecord } from '../support/change-stream.js';
import { assertExact, startTagWriters } from '../support/exact-change-log.js';
import { startPrivateDatabaseServer, type PrivateDatabaseServer } from '../support/private-database-server.js';
import { startServer, type TestServer } from '../support/server.js';
import { BACKEND, createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { until } from '../support/until.js';

const WRITERS = 8;
/** How long the database stays down: long enough that writes fail on every connection. */
const DOWN_MS = 1500;
const skip = BACKEND === 'sqlite' ? 'SQLite runs inside the service: there is no database server to restart' : false;

/** A reader of the feed that asks for what follows the last id it saw, again and again, and
 * keeps going when the service answers an error (the database is down). */
function followFeed(server: TestServer): { records: ChangeRecord[]; errors: () => number; stop: () => Promise<void> } {
  const records: ChangeRecord[] = [];
  let errors = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        records.push(...(await changesAfter(server, records.at(-1)?.id ?? 0, '', {}, 200)));
      } catch {
        errors++;
      }
      await new Promise((done) => setTimeout(done, 20));
    }
  })();
  return {
    records,
    errors: () => errors,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

describe('a database restart under load (issue #38)', { skip }, () => {
  test(`the database server killed and restarted under ${WRITERS} writers: every acknowledged write once, the feed exact across it`, { timeout: 240_000 }, async () => {
    const dirs = [mkdtempSync(join(tmpdir(), 'config-api-dbrestart-')), mkdtempSync(join(tmpdir(), 'config-api-dbrestart-'))];
    let server: PrivateDatabaseServer | undefined;
    let database: TestDatabase | undefined;
    const running: TestServer[] = [];
    try {
      server = await startPrivateDatabaseServer(BACKEND as 'postgres' | 'mariadb');
      database = await createTestDatabase(dirs[0]!, server.adminUrl);
      const env = { SECRET_KEY: randomBytes(32).toString('hex'), DATABASE_CONNECT_TIMEOUT_MS: '1000' };
      running.push(await startServer({ database, dataDir: dirs[0]!, env, process: true }));
      running.push(await startServer({ database, dataDir: dirs[1]!, env, process: true }));
      const [a, b] = running as [TestServer, TestServer];
      const reader = followFeed(b);
      const writers = startTagWriters(a, WRITERS, 'dbrestart');
      const { sent, acknowledged } = writers;
      try {
        await until('writes acknowledged before the restart', () => acknowledged.size >= 150, 60_000);
        await server.crashAndRestart(DOWN_MS);
        const before = acknowledged.size;
        await until('writes acknowledged again after the restart', () => acknowledged.size >= before + 150, 60_000);
      } finally {
        await writers.stop();
      }
      assert.ok(writers.unavailable() > 0, 'the restart was felt: some writes were answered 503');
      const log = await assertExact(b, sent, acknowledged);
      await until('the reader has caught up', () => (reader.records.at(-1)?.id ?? 0) >= log.at(-1)!.id, 30_000);
      await reader.stop();
      assert.ok(reader.errors() > 0, 'the reader felt the restart');
      assert.deepEqual(
        reader.records.map((record) => record.id),
        log.map((record) => record.id),
        'the reader, resuming from the last id it saw, received every record once, in order',
      );
    } finally {
      await Promise.all(running.map((service) => service.stop().catch(() => undefined)));
      await database?.drop().catch(() => undefined);
      await server?.remove();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});
