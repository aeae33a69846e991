// Webhook deliveries are durable and claimed once (contract section 16): SIGKILL of the
// service in the middle of deliveries, then a restart, loses none (a delivery cut by the
// kill may come again, with the same webhook-id); on PostgreSQL and MariaDB two instances on
// one database deliver 1,000 changes with 0 duplicates, and when one is killed mid-way the
// other takes its attempts over once their leases expire.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startServer, type TestServer } from '../support/server.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { BACKEND, createTestDatabase } from '../support/test-database.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, secret } from '../support/tokens.js';
import { until } from '../support/until.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const ADMIN = secret('adm');
const HOOKS = '/en/api/webhooks';
const TAGS = '/en/api/config/tags';
const ENV = { API_TOKENS: `root=admin:${ADMIN}`, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_RETRY_SCHEDULE_MS: '200' };
const admin = bearer(ADMIN);
const shared = BACKEND === 'sqlite' ? 'two instances share PostgreSQL or MariaDB' : false;

/** Creates `count` tags in bulk requests of 100: `count` change records. */
async function makeChanges(servers: readonly TestServer[], count: number, prefix: string): Promise<void> {
  for (let start = 0, n = 0; start < count; start += 100, n++) {
    const body = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({ name: `${prefix}-${start + i}`, color: '#000000', background: '#ffffff' }));
    const reply = await servers[n % servers.length]!.request('POST', TAGS, { headers: admin, body });
    assert.equal(reply.status, 201, reply.text);
  }
}

function entryIds(receiver: Receiver): number[] {
  return receiver.received.map((got) => (JSON.parse(got.body) as { data: { entry_id: number } }).data.entry_id);
}

test('kill -9 in the middle of deliveries, then a restart: every change delivered, a resend keeps its webhook-id', { timeout: 120_000 }, async () => {
  const receiver = await startReceiver();
  receiver.answer = () => ({ status: 204, delayMs: 20 });
  const first = await startServer({ process: true, env: ENV });
  let second: TestServer | undefined;
  try {
    const created = await first.request('POST', HOOKS, { headers: admin, body: { name: 'durable', url: receiver.url, resources: ['tags'] } });
    assert.equal(created.status, 201, created.text);
    await makeChanges([first], 300, 'crash');
    await until('deliveries under way', () => receiver.received.length >= 20);
    await first.kill();
    const beforeRestart = receiver.received.length;
    assert.ok(beforeRestart < 300, `the kill came mid-way (${beforeRestart} delivered)`);
    second = await startServer({ dataDir: first.dataDir, database: first.database, env: ENV });
    // Leases of the killed process expire after the time-out and its margin.
    await until('every change delivered', () => new Set(entryIds(receiver)).size === 300, 60_000);
    const byEntry = new Map<number, Set<string>>();
    receiver.received.forEach((got, index) => {
      const entry = entryIds(receiver)[index]!;
      byEntry.set(entry, (byEntry.get(entry) ?? new Set()).add(String(got.headers['webhook-id'])));
    });
    for (const [entry, ids] of byEntry) assert.equal(ids.size, 1, `tag ${entry}: one webhook-id for all its sends`);
    const duplicates = receiver.received.length - 300;
    assert.ok(duplicates <= 32, `only the deliveries cut by the kill came twice (${duplicates})`);
  } finally {
    await second?.stop();
    await second?.cleanup();
    await first.cleanup();
    await receiver.close();
  }
});

test('two instances on one database: 1,000 changes, each delivered once', { skip: shared, timeout: 120_000 }, async () => {
  const receiver = await startReceiver();
  const first = await startServer({ process: true, env: ENV });
  // The same data folder: the same SECRET_KEY file, which opens the webhooks' secrets.
  const second = await startServer({ process: true, dataDir: first.dataDir, database: first.database, env: ENV });
  try {
    const created = await first.request('POST', HOOKS, { headers: admin, body: { name: 'shared', url: receiver.url, resources: ['tags'] } });
    assert.equal(created.status, 201, created.text);
    await makeChanges([first, second], 1000, 'pair');
    await until('1,000 deliveries', () => receiver.received.length >= 1000, 60_000);
    // Time for a duplicate to show, were there one.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const ids = receiver.received.map((got) => String(got.headers['webhook-id']));
    assert.equal(new Set(ids).size, 1000);
    assert.equal(ids.length, 1000, '0 duplicates');
    assert.equal(new Set(entryIds(receiver)).size, 1000);
  } finally {
    await second.stop();
    await first.stop();
    await second.cleanup();
    await first.cleanup();
    await receiver.close();
  }
});

// An instance that knew of no webhook skips the change log after its own commits; it learns
// of one created elsewhere at its poll, and its poll looks at the change log whatever it knew.
test('a webhook created on one instance gets the changes written on another that knew of none', { skip: shared, timeout: 120_000 }, async () => {
  const receiver = await startReceiver();
  const first = await startServer({ process: true, env: ENV });
  const second = await startServer({ process: true, dataDir: first.dataDir, database: first.database, env: ENV });
  try {
    await makeChanges([second], 100, 'before');
    const created = await first.request('POST', HOOKS, { headers: admin, body: { name: 'elsewhere', url: receiver.url, resources: ['tags'] } });
    assert.equal(created.status, 201, created.text);
    // Only the second instance is left to fan the changes out.
    await first.stop();
    await makeChanges([second], 100, 'after');
    await until('the 100 later changes delivered', () => receiver.received.length >= 100, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(receiver.received.length, 100, 'the changes made before the webhook gave none');
  } finally {
    await second.stop();
    await second.cleanup();
    await first.cleanup();
    await receiver.close();
  }
});

test('two instances, one killed mid-way: the other takes its attempts over', { skip: shared, timeout: 120_000 }, async () => {
  const receiver = await startReceiver();
  receiver.answer = () => ({ status: 204, delayMs: 30 });
  const first = await startServer({ process: true, env: ENV });
  // The same data folder: the same SECRET_KEY file, which opens the webhooks' secrets.
  const second = await startServer({ process: true, dataDir: first.dataDir, database: first.database, env: ENV });
  try {
    const created = await first.request('POST', HOOKS, { headers: admin, body: { name: 'taken-over', url: receiver.url, resources: ['tags'] } });
    assert.equal(created.status, 201, created.text);
    await makeChanges([first], 400, 'over');
    await until('deliveries under way', () => receiver.received.length >= 40);
    await first.kill();
    await until('every change delivered by the survivor', () => new Set(entryIds(receiver)).size === 400, 60_000);
    assert.ok(receiver.received.length - 400 <= 32, `only the attempts cut by the kill came twice (${receiver.received.length - 400})`);
  } finally {
    await second.stop();
    await second.cleanup();
    await first.cleanup();
    await receiver.close();
  }
});

test('a database outage in the middle of deliveries loses none', { skip: shared, timeout: 120_000 }, async () => {
  const receiver = await startReceiver();
  receiver.answer = () => ({ status: 204, delayMs: 20 });
  const dir = mkdtempSync(join(tmpdir(), 'config-api-webhook-outage-'));
  const database = await createTestDatabase(dir);
  const real = new URL(database.url);
  const proxy = await startTcpProxy(real.hostname, Number(real.port || (BACKEND === 'postgres' ? 5432 : 3306)));
  const viaProxy = new URL(database.url);
  viaProxy.port = String(proxy.port);
  const server = await startServer({ database: { ...database, url: viaProxy.toString() }, dataDir: dir, env: { ...ENV, DATABASE_CONNECT_TIMEOUT_MS: '1000' } });
  try {
    const created = await server.request('POST', HOOKS, { headers: admin, body: { name: 'outage', url: receiver.url, resources: ['tags'] } });
    assert.equal(created.status, 201, created.text);
    await makeChanges([server], 300, 'outage');
    await until('deliveries under way', () => receiver.received.length >= 20);
    await proxy.down();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await proxy.up();
    await until('every change delivered after the outage', () => new Set(entryIds(receiver)).size === 300, 60_000);
    assert.ok(receiver.received.length - 300 <= 32, `only attempts whose result could not be recorded came twice (${receiver.received.length - 300})`);
  } finally {
    await server.stop();
    await proxy.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
    await receiver.close();
  }
});
