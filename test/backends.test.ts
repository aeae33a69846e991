// Behaviour that depends on the database being a shared server: the database going away and
// coming back, and concurrent writers (several instances on one database, which needs
// processes, is test/process/instances-on-one-database.test.ts). The rest of the suite runs
// unchanged on every backend (TEST_DATABASE).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scratchDir, stopAll } from './support/instances.js';
import { startServer } from './support/server.js';
import { startTcpProxy } from './support/tcp-proxy.js';
import { BACKEND, createTestDatabase } from './support/test-database.js';

const serverBacked = BACKEND !== 'sqlite';
const onlyServerBacked = serverBacked ? false : 'an embedded SQLite database is one process and cannot go away';

describe('the database going away', { skip: onlyServerBacked }, () => {
  test('answers 503 UNAVAILABLE within seconds, then recovers by itself', async () => {
    const dir = scratchDir();
    const database = await createTestDatabase(dir);
    const real = new URL(database.url);
    const proxy = await startTcpProxy(real.hostname, Number(real.port || (BACKEND === 'postgres' ? 5432 : 3306)));
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    const server = await startServer({
      database: { ...database, url: viaProxy.toString() },
      dataDir: dir,
      env: { DATABASE_CONNECT_TIMEOUT_MS: '1000' },
    });
    try {
      const tag = await server.request('POST', '/en/api/config/tags', { body: { name: 'before-outage' } });
      assert.equal(tag.status, 201);

      await proxy.down();
      for (const [method, path, body] of [
        ['GET', '/en/api/config/tags', undefined],
        ['GET', `/en/api/config/tags/${tag.body.id}`, undefined],
        ['POST', '/fr/api/config/tags', { name: 'during-outage' }],
      ] as const) {
        const started = Date.now();
        const reply = await server.request(method, path, body === undefined ? {} : { body });
        assert.equal(reply.status, 503, `${method} ${path}: ${reply.text}`);
        assert.equal(reply.body.code, 'UNAVAILABLE');
        assert.ok(Date.now() - started < 5000, 'no hang past a few seconds');
        assert.doesNotMatch(reply.text, /ECONNREFUSED|select|insert|at .*\.js/i, 'no internals');
      }

      await proxy.up();
      let recovered: number | undefined;
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        const reply = await server.request('GET', `/en/api/config/tags/${tag.body.id}`);
        if (reply.status === 200) {
          recovered = reply.status;
          assert.equal(reply.body.item.name, 'before-outage');
          break;
        }
        await new Promise((done) => setTimeout(done, 250));
      }
      assert.equal(recovered, 200, 'the service recovered without a restart');
      const list = await server.request('GET', '/en/api/config/tags');
      assert.deepEqual(list.body.items.map((t: { name: string }) => t.name), ['before-outage'], 'the refused POST wrote nothing');
    } finally {
      await proxy.close();
      await stopAll([server], database, [dir]);
    }
  });
});

describe('concurrent writers', () => {
  test('concurrent POSTs of one unique name: exactly one 201, the others 409 CONFLICT', async () => {
    const server = await startServer();
    try {
      const replies = await Promise.all(
        Array.from({ length: 12 }, () => server.request('POST', '/en/api/config/tags', { body: { name: 'race' } })),
      );
      const statuses = replies.map((reply) => reply.status).sort();
      assert.deepEqual(statuses, [201, ...Array<number>(11).fill(409)]);
      for (const reply of replies.filter((r) => r.status === 409)) assert.equal(reply.body.code, 'CONFLICT');
      assert.equal((await server.request('GET', '/en/api/config/tags')).body.total, 1);
    } finally {
      await server.stop();
      await server.cleanup();
    }
  });

  // On SQLite these writes share commit groups: a refused one must undo only itself.
  test('a burst of good and refused writes: every good one lands, every refused one changes nothing', async () => {
    const server = await startServer();
    try {
      const taken = await server.request('POST', '/en/api/config/tags', { body: { name: 'taken' } });
      assert.equal(taken.status, 201);
      const path = `/en/api/config/tags/${taken.body.id}`;
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) => {
          if (i % 3 === 0) return server.request('POST', '/en/api/config/tags', { body: { name: `burst-${i}` } });
          if (i % 3 === 1) return server.request('POST', '/en/api/config/tags', { body: { name: 'taken' } });
          return server.request('PATCH', path, { headers: { 'if-match': '"stale"' }, body: { color: '#123456' } });
        }),
      );
      replies.forEach((reply, i) => assert.equal(reply.status, [201, 409, 412][i % 3], reply.text));
      for (const reply of replies.filter((r) => r.status === 201)) {
        assert.deepEqual((await server.request('GET', `/en/api/config/tags/${reply.body.id}`)).body.item, reply.body.item);
      }
      const after = await server.request('GET', path);
      assert.equal(after.headers.get('etag'), taken.headers.get('etag'));
      assert.deepEqual(after.body.item, taken.body.item);
      assert.equal((await server.request('GET', '/en/api/config/tags')).body.total, 11);
    } finally {
      await server.stop();
      await server.cleanup();
    }
  });

  test('concurrent servers on one (ip, port): exactly one is created', async () => {
    const server = await startServer();
    try {
      const replies = await Promise.all(
        Array.from({ length: 8 }, () => server.request('POST', '/en/api/config/servers', { body: { ip: '192.0.2.1', port: 3306 } })),
      );
      assert.equal(replies.filter((reply) => reply.status === 201).length, 1);
      assert.ok(replies.every((reply) => reply.status === 201 || reply.status === 409));
    } finally {
      await server.stop();
      await server.cleanup();
    }
  });
});
