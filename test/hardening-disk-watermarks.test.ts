// Disk watermarks (issue "Hardening", disk nearly full): the SQLite database lives on a tmpfs
// of its own, and a ballast file takes its free space down past the low watermark, then past
// the flood stage, while SQLite still has room. Below the flood stage /readyz must be 503 and
// say why, writes must be refused 507 INSUFFICIENT_STORAGE and change nothing, reads must go
// on; once space is freed, all comes back by itself. (A disk that fills past the flood stage
// all the way is test/process/full-disk.test.ts.)
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { NEEDS_ROOT, mountTmpfs } from './support/root.js';
import { startServer, type Reply, type TestServer } from './support/server.js';
import { BACKEND, createTestDatabase } from './support/test-database.js';
import { until } from './support/until.js';

const MiB = 1024 * 1024;
const DISK_BYTES = 32 * MiB;
const SERVERS = '/en/api/config/servers';

function freeBytes(path: string): number {
  const stats = statfsSync(path);
  return stats.bavail * stats.bsize;
}

/** Grows the ballast until the disk has about `leftBytes` free. */
function fillTo(path: string, ballast: string, leftBytes: number): void {
  const file = openSync(ballast, 'a');
  try {
    const chunk = Buffer.alloc(MiB, 1);
    for (let free = freeBytes(path); free > leftBytes; free = freeBytes(path)) writeSync(file, chunk, 0, Math.min(MiB, free - leftBytes));
  } finally {
    closeSync(file);
  }
}

test('below the flood stage: /readyz 503 says why, writes 507 change nothing, reads go on; all comes back once space is freed', {
  skip: BACKEND !== 'sqlite' ? 'only SQLite keeps its data on a disk this process watches' : NEEDS_ROOT,
  timeout: 60_000,
}, async () => {
  const disk = mountTmpfs(DISK_BYTES);
  const keyDir = mkdtempSync(join(tmpdir(), 'config-api-watermarks-'));
  const ballast = join(disk.path, 'ballast');
  const database = await createTestDatabase(disk.path);
  let server: TestServer | undefined;
  try {
    server = await startServer({ database, dataDir: keyDir, env: { DISK_FLOOD_STAGE: '8mb', DISK_LOW_WATERMARK: '50%' } });
    const first = await server.request('POST', SERVERS, { body: { ip: '192.0.2.1', port: 3306, hostname: 'before' } });
    assert.equal(first.status, 201, first.text);
    let ready = await server.request('GET', '/readyz');
    assert.equal(ready.status, 200, ready.text);
    assert.equal(ready.body.disk.level, 'ok');
    assert.equal(ready.body.disk.totalBytes, DISK_BYTES);

    // Below the low watermark: still ready, and says so.
    fillTo(disk.path, ballast, 12 * MiB);
    await until('/readyz reports the low watermark', async () => (ready = await server!.request('GET', '/readyz')).body?.disk?.level === 'low');
    assert.equal(ready.status, 200);
    assert.equal((await server.request('POST', SERVERS, { body: { ip: '192.0.2.2', port: 3306, hostname: 'low' } })).status, 201, 'writes go on below the low watermark');

    // Below the flood stage, with megabytes still free for SQLite.
    fillTo(disk.path, ballast, 4 * MiB);
    await until('/readyz reports the flood stage', async () => (ready = await server!.request('GET', '/readyz')).status === 503);
    assert.equal(ready.body.code, 'UNAVAILABLE');
    assert.equal(ready.body.fault, 'INSUFFICIENT_STORAGE');
    assert.equal(ready.body.disk.level, 'flood');
    assert.ok(ready.body.disk.freeBytes < 8 * MiB && ready.body.disk.freeBytes > 2 * MiB, JSON.stringify(ready.body.disk));
    assert.match(ready.body.detail, /flood stage of 8\.0 MiB/);

    const rowsBefore = await server.rows();
    const refused: Reply[] = [
      await server.request('POST', SERVERS, { body: { ip: '192.0.2.3', port: 3306, hostname: 'flooded' } }),
      await server.request('POST', SERVERS, { body: [{ ip: '192.0.2.4', port: 3306, hostname: 'flooded-bulk' }] }),
      await server.request('PATCH', `${SERVERS}/${first.body.id}`, { body: { hostname: 'renamed' } }),
      await server.request('DELETE', `${SERVERS}/${first.body.id}`),
    ];
    for (const reply of refused) {
      assert.equal(reply.status, 507, reply.text);
      assert.equal(reply.body.code, 'INSUFFICIENT_STORAGE');
      assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.match(reply.body.detail, /below the flood stage/);
    }
    assert.equal(await server.rows(), rowsBefore, 'the refused writes changed nothing');
    const list = await server.request('GET', `${SERVERS}?sort=id`);
    assert.equal(list.status, 200, 'reads go on');
    assert.deepEqual(list.body.items.map((item: { hostname: string }) => item.hostname), ['before', 'low']);
    assert.equal((await server.request('GET', `${SERVERS}/${first.body.id}`)).status, 200);
    assert.equal((await server.request('GET', '/healthz')).status, 200, 'alive, only not ready');
    assert.match(server.logs(), /"level":50,[^\n]*"msg":"the database disk is below its flood stage \(DISK_FLOOD_STAGE\)/);
    assert.match(server.logs(), /"level":40,[^\n]*"msg":"the database disk is below its low watermark \(DISK_LOW_WATERMARK\)"/);

    unlinkSync(ballast);
    await until('/readyz ready again', async () => (ready = await server!.request('GET', '/readyz')).status === 200);
    assert.equal(ready.body.disk.level, 'ok');
    const after = await server.request('POST', SERVERS, { body: { ip: '192.0.2.5', port: 3306, hostname: 'after' } });
    assert.equal(after.status, 201, after.text);
  } finally {
    await server?.stop();
    disk.remove();
    rmSync(keyDir, { recursive: true, force: true });
  }
});
