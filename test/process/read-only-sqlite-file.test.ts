// A SQLite database that refuses writes, made for real: a database file that belongs to another
// user, with the service run as `nobody` (a process of its own: this one is root). The service
// must refuse to start on it, with one clear line and a non-zero exit, unless READ_ONLY=true,
// where it serves every read and answers every write 503 READ_ONLY, writing not a byte.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import { SECRET_KEY, TOKEN_KEY, assertRefusedToStart, assertServesReadsOnly, scratchDir, seed } from '../support/read-only-database.js';
import { NEEDS_ROOT, NOBODY } from '../support/root.js';
import { runToExit, startServer, type TestServer } from '../support/server.js';
import { BACKEND, createTestDatabase } from '../support/test-database.js';

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
});
