// Hardening (outside probe): the SQLite database holds every entry (secrets encrypted, all the
// rest in clear); it and its -wal and -shm files are its owner's alone (0600), as the key files
// are, also when SQLite makes them again later (a new WAL at the next start). SQLite only.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServer, type TestServer } from './support/server.js';
import { BACKEND } from './support/test-database.js';

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8).padStart(4, '0');

function assertOwnerOnly(file: string, when: string): void {
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    assert.ok(existsSync(path), `${when}: ${path} is missing`);
    assert.equal(modeOf(path), '0600', `${when}: ${path}`);
  }
}

async function write(server: TestServer, name: string): Promise<void> {
  const reply = await server.request('POST', '/en/api/config/tags', { body: { name } });
  assert.equal(reply.status, 201, reply.text);
}

test('a new database, its WAL and its shared memory file are 0600, now and after a restart', { skip: BACKEND !== 'sqlite' && 'SQLite only' }, async () => {
  // A data folder the service makes itself, database file included (the harness's
  // createTestDatabase makes none for SQLite: the service does).
  const dataDir = mkdtempSync(join(tmpdir(), 'config-api-modes-'));
  let running: TestServer | undefined;
  try {
    const first = (running = await startServer({ dataDir }));
    assert.ok(first.databaseFile !== '' && first.databaseFile.startsWith(dataDir), first.databaseFile);
    await write(first, 'first');
    assertOwnerOnly(first.databaseFile, 'after the first write');
    running = undefined;
    assert.equal(await first.stop(), 0);
    // A clean stop removes the WAL and the -shm: SQLite makes new ones at the next start.
    assert.ok(!existsSync(`${first.databaseFile}-wal`), 'the WAL is removed at a clean stop');

    const second = (running = await startServer({ dataDir, database: first.database }));
    await write(second, 'second');
    assertOwnerOnly(second.databaseFile, 'after a restart and a write');
  } finally {
    await running?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
