// Several instances on one database, on every backend, SQLite too: two processes on one
// file, each with its entry cache, which must see the other's commits. Processes, not two apps
// in this one: better-sqlite3 waits for a lock synchronously, so an app waiting in this process
// would hold up the one holding the lock.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { scratchDir, stopAll } from '../support/instances.js';
import { startServer } from '../support/server.js';
import { makeKeyPair } from '../support/ssh-keys.js';
import { createTestDatabase } from '../support/test-database.js';

describe('several instances on one database', () => {
  test('two instances started at the same moment migrate once and share every write', async () => {
    const dirs = [scratchDir(), scratchDir()];
    const database = await createTestDatabase(dirs[0]!);
    const env = { SECRET_KEY: randomBytes(32).toString('hex') };
    const started = await Promise.allSettled(dirs.map((dataDir) => startServer({ database, dataDir, env, process: true })));
    const running = started.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
    const failure = started.find((start) => start.status === 'rejected');
    if (failure !== undefined) {
      // A running instance would keep the test process alive for ever.
      await stopAll(running, database, dirs);
      throw failure.reason;
    }
    const [a, b] = running;
    try {
      const environments = await b!.request('GET', '/en/api/config/environments');
      assert.equal(environments.body.total, 6, 'seed rows exist once');
      const clients = await a!.request('GET', '/en/api/config/clients');
      assert.deepEqual(clients.body.items.map((c: { id: number }) => c.id), [99]);

      const created = await a!.request('POST', '/en/api/config/tags', { body: { name: 'shared' } });
      assert.equal(created.status, 201);
      const path = `/en/api/config/tags/${created.body.id}`;
      assert.deepEqual((await b!.request('GET', path)).body.item, created.body.item);
      // Read on both sides first, so that a cached copy exists where one can.
      const before = await a!.request('GET', path);
      assert.equal((await b!.request('GET', path)).headers.get('etag'), before.headers.get('etag'));

      const patched = await b!.request('PATCH', path, { body: { color: '#0a0b0c' } });
      assert.equal(patched.status, 200);
      const after = await a!.request('GET', path);
      assert.equal(after.body.item.color, '#0a0b0c');
      assert.equal(after.headers.get('etag'), patched.headers.get('etag'));
      assert.equal((await a!.request('GET', path, { headers: { 'if-none-match': before.headers.get('etag')! } })).status, 200);

      const deleted = await a!.request('DELETE', path);
      assert.equal(deleted.status, 200);
      assert.equal((await b!.request('GET', path)).status, 404);

      // A key sealed by one instance is opened by the other (same SECRET_KEY).
      const pair = makeKeyPair('ED25519', 'one@example');
      const key = await a!.request('POST', '/en/api/config/ssh-keys', { body: { type: pair.type, pub: pair.pub, 'privée': pair.openssh } });
      assert.equal(key.status, 201);
      const renamed = pair.pub.replace('one@example', 'two@example');
      const replaced = await b!.request('PUT', `/en/api/config/ssh-keys/${key.body.id}`, { body: { type: pair.type, pub: renamed } });
      assert.equal(replaced.status, 200, replaced.text);
    } finally {
      await stopAll([a!, b!], database, dirs);
    }
  });
});
